"""What one request costs the API process around the work of its route, counted in CPU instructions: the yardstick
of issue 24 (`bench/api.py`'s bare Flask endpoint, one INSERT) against the app's simplest route.

Run:  python -m bench.pipeline_cost [--requests 200]      (valgrind; a few minutes)

Each subject is served in this process through Flask's test client, as `bench.action_cost` serves the API:
`bare-get` and `bare-post` (the test client against a WSGI app that only answers, so its own side of a request:
building the environ, reading the answer), `baseline` (`bench.api.create_baseline_app`: POST /insert of a small
JSON body, on a fresh database created on DATABASE_URL's server), and `healthz` (GET /healthz through the app as
`bench.action_cost.served_app` builds it: admission, request ids, metrics, the hooks, the answer's dump and JSON;
no database work). Under `valgrind --tool=callgrind` each runs twice, with no request and with `--requests`
(after three unmeasured ones each time), and the difference divided by the requests is printed: minus the test
client's own side, what the server's side of one request costs.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bench.callgrind import module_instructions

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

SUBJECTS = ("bare-get", "bare-post", "baseline", "healthz")
BODY = {"seat": 1, "action": {"type": "discard", "cards": ["AS", "KD"]}}
WARM_UP = 3


def _answering(environ: dict[str, Any], start_response: Callable[..., Any]) -> list[bytes]:
    environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
    start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", "16")])
    return [b'{"status":"ok"}\n']


@contextmanager
def requester(subject: str) -> Iterator[Callable[[], None]]:
    """A function making one request of `subject` and reading its whole answer."""
    from flask import Flask

    from bench.action_cost import served_app, server_url
    from tests.conftest import fresh_database

    def reading(send: Callable[[], Any]) -> Callable[[], None]:
        def request() -> None:
            answer = send()
            assert answer.status_code < 300, answer.get_data(as_text=True)
            answer.get_data()
            answer.close()

        return request

    if subject.startswith("bare-"):
        app = Flask("bare")
        app.wsgi_app = _answering  # type: ignore[method-assign]
        client = app.test_client()
        if subject == "bare-get":
            yield reading(lambda: client.get("/healthz"))
        else:
            yield reading(lambda: client.post("/insert", json=BODY))
        return
    with fresh_database(server_url(), prefix="cardledger_pipeline") as url:
        if subject == "baseline":
            import psycopg

            from bench.api import create_baseline_app

            with psycopg.connect(url, autocommit=True) as conn:
                conn.execute("CREATE TABLE bench_baseline (id bigserial PRIMARY KEY, data jsonb NOT NULL)")
            os.environ["DATABASE_URL"] = url  # create_baseline_app opens its pool there
            client = create_baseline_app().test_client()
            yield reading(lambda: client.post("/insert", json=BODY))
            return
        from infra.migrations import migrate

        migrate(url)
        with served_app(url) as (app, _):
            client = app.test_client()
            yield reading(lambda: client.get("/healthz"))


def run(subject: str, requests: int) -> None:
    with requester(subject) as request:
        for _ in range(WARM_UP + requests):
            request()


def instructions(subject: str, requests: int) -> int:
    return module_instructions("bench.pipeline_cost", ["--run", subject, "--requests", str(requests)])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.pipeline_cost", description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--subject", choices=SUBJECTS, action="append", help="default: all")
    parser.add_argument("--run", choices=SUBJECTS, help=argparse.SUPPRESS)  # one run, under valgrind
    args = parser.parse_args(argv)
    if args.run:
        run(args.run, args.requests)
        return
    per_request = {}
    for subject in args.subject or SUBJECTS:
        idle, busy = instructions(subject, 0), instructions(subject, args.requests)
        per_request[subject] = (busy - idle) / args.requests
        print(f"{subject}: {per_request[subject]:,.0f} instructions per request ({args.requests} requests)")
    for subject, client in (("baseline", "bare-post"), ("healthz", "bare-get")):
        if subject in per_request and client in per_request:
            print(f"{subject} without the test client's side: {per_request[subject] - per_request[client]:,.0f}")


if __name__ == "__main__":
    main()
