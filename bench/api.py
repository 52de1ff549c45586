"""The REST API under load: cardledger's actions beside a bare Flask endpoint doing one INSERT.

Run: python -m bench.api            (about 2 minutes; BENCH_QUICK=1 for a few seconds per point)

Both servers run under the same gunicorn command line (`services.supervisor.gunicorn_command`: 2 workers,
gthread, each serving 4 requests at once, plus threads for streams) on loopback, against a fresh database
created on DATABASE_URL's server (default postgresql://postgres@127.0.0.1:5432/postgres, dropped at the end),
Redis at REDIS_URL (default redis://127.0.0.1:6379/11), rate limits off.

- cardledger: `cardledger up` (API, relay, 2 projection workers) and `cardledger simulate`'s random bots on
  CONCURRENCY tables at once for BENCH_API_SECONDS (default 20; the deals in progress then finish), with each
  of simulate's two clients (services/simulate/runner.py):
  - `holding` (the rows with the targets): each seat on its own thread and connection keeps its view; an
    action is one conditional POST whose answer carries the seat's new view (`Prefer: return=representation`),
    and a seat waiting for its turn long-polls its view (`wait_for_version`);
  - `polling` (one thread per table, the earlier bot): every action is a read of the seat view at the last
    written version (read your writes) and a conditional POST.
  "actions/s" counts the POSTs, the latencies are the POSTs'; "all requests/s" adds the reads.
- baseline: a tiny Flask app (`create_baseline_app`, below) whose POST does one INSERT of the body into a
  plain table through a psycopg pool like cardledger's, driven by CONCURRENCY threads posting back to back
  for the same time, with the same HTTP client.

Targets: cardledger's action rate at least RATIO_TARGET of the baseline's request rate; action p99 at most
P99_TARGET_MS. The event-to-projection lag is measured by bench/lag.py (not repeated here).
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from infra.config import Settings  # noqa: E402
from services.simulate import SimulationConfig, simulate  # noqa: E402
from services.simulate.client import HttpClient  # noqa: E402
from services.simulate.report import percentile  # noqa: E402
from services.simulate.stack import RunningStack, embedded_stack, free_port, stop  # noqa: E402
from services.supervisor import gunicorn_command  # noqa: E402

DEFAULT_SERVER_URL = "postgresql://postgres@127.0.0.1:5432/postgres"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/11"
CONCURRENCY = 8
RATIO_TARGET = 0.5
P99_TARGET_MS = 50.0
BASELINE_APP = "bench.api:create_baseline_app()"
BASELINE_BODY = {"type": "discard", "card": "7M", "capture": ["7C", "7S"]}


def quick() -> bool:
    return os.environ.get("BENCH_QUICK", "").strip() not in ("", "0")


def env_float(name: str, default: float, quick_default: float) -> float:
    raw = os.environ.get(name, "").strip()
    return float(raw) if raw else (quick_default if quick() else default)


def server_url() -> str:
    return os.environ.get("DATABASE_URL", "").strip() or DEFAULT_SERVER_URL


def redis_url() -> str:
    return os.environ.get("REDIS_URL", "").strip() or DEFAULT_REDIS_URL


@contextmanager
def bench_stack(extra_env: Mapping[str, str] | None = None) -> Iterator[tuple[RunningStack, str]]:
    """`cardledger up` against a fresh database (dropped afterwards); yields the stack and the database URL."""
    from tests.conftest import fresh_database

    with fresh_database(server_url(), prefix="cardledger_bench") as url:
        env = {"DATABASE_URL": url, "REDIS_URL": redis_url(), "CARDLEDGER_RATE_LIMITS": "off", **(extra_env or {})}
        with embedded_stack(env) as stack:
            yield stack, url


# The baseline ------------------------------------------------------------------------------------------------------


def create_baseline_app() -> Any:
    """A Flask app with one endpoint: POST /insert stores the JSON body as one row (one INSERT, one commit),
    admitting as many requests at once as cardledger's served app does (`create_served_app`)."""
    from flask import Flask, request
    from psycopg.types.json import Jsonb

    from infra.db import open_pool
    from services.api.admission import Admission
    from services.api.proxies import behind_proxies
    from services.api.serving import (
        api_queue_seconds,
        api_requests_per_caller,
        api_streams,
        api_streams_per_caller,
        api_threads,
    )

    app = Flask("bench_baseline")
    pool = open_pool(os.environ["DATABASE_URL"])

    @app.post("/insert")
    def insert() -> tuple[dict[str, Any], int]:
        with pool.connection() as conn:
            row = conn.execute(
                "INSERT INTO bench_baseline (data) VALUES (%s) RETURNING id", (Jsonb(request.get_json()),)
            ).fetchone()
        assert row is not None
        return {"id": row["id"]}, 201

    admission = Admission(
        app.wsgi_app,
        api_threads(),
        api_streams(),
        api_queue_seconds(),
        api_streams_per_caller(),
        api_requests_per_caller(),
    )
    # As create_served_app: the proxy fix outermost, so that admission sees the client's address.
    app.wsgi_app = behind_proxies(admission, Settings.from_env().trusted_proxies)  # type: ignore[method-assign,assignment]
    return app


@contextmanager
def baseline_server(database_url: str) -> Iterator[str]:
    import psycopg

    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute("CREATE TABLE IF NOT EXISTS bench_baseline (id bigserial PRIMARY KEY, data jsonb NOT NULL)")
    port = free_port()
    command = gunicorn_command(Settings(host="127.0.0.1", port=port))
    assert command[-1] == "services.api:create_served_app()", command
    command[-1] = BASELINE_APP
    env = {**os.environ, "DATABASE_URL": database_url, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        base_url = f"http://127.0.0.1:{port}"
        wait_ready_baseline(base_url, process)
        yield base_url
    finally:
        stop(process)


def wait_ready_baseline(base_url: str, process: subprocess.Popen[bytes], timeout: float = 60) -> None:
    client = HttpClient(base_url, timeout=5)
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise RuntimeError(f"baseline gunicorn exited with {process.returncode}")
            try:
                if client.request("POST", "/insert", BASELINE_BODY).status == 201:
                    return
            except OSError:
                pass
            time.sleep(0.2)
    finally:
        client.close()
    raise TimeoutError("the baseline app did not answer")


def drive_baseline(base_url: str, threads: int, seconds: float) -> dict[str, Any]:
    """`threads` clients posting back to back for `seconds`: rate, latencies, errors."""
    latencies: list[list[float]] = [[] for _ in range(threads)]
    errors = [0] * threads
    deadline = time.monotonic() + seconds

    def work(n: int) -> None:
        client = HttpClient(base_url)
        try:
            while time.monotonic() < deadline:
                answer = client.request("POST", "/insert", BASELINE_BODY)
                if answer.status == 201:
                    latencies[n].append(answer.seconds * 1000)
                else:
                    errors[n] += 1
        finally:
            client.close()

    started = time.monotonic()
    workers = [threading.Thread(target=work, args=(n,)) for n in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    elapsed = time.monotonic() - started
    merged = [value for chunk in latencies for value in chunk]
    return {
        "rate": len(merged) / elapsed,
        "p50": percentile(merged, 0.5),
        "p99": percentile(merged, 0.99),
        "errors": sum(errors),
    }


# The rows ----------------------------------------------------------------------------------------------------------


CLIENTS = ("holding", "polling")
TARGETED_CLIENT = "holding"


def measure_cardledger(base_url: str, game: str, client: str, seconds: float) -> dict[str, Any]:
    config = SimulationConfig(
        base_url=base_url,
        game=game,
        tables=CONCURRENCY,
        seats=2,
        concurrency=CONCURRENCY,
        bot="random",
        deals=1_000_000,
        duration=seconds,
        progress=False,
        seed=f"bench-api-{game}",
        client=client,
    )
    result = simulate(config)
    return result.summary


def run() -> list[dict[str, Any]]:
    seconds = env_float("BENCH_API_SECONDS", 20.0, 5.0)
    games = ("cholek-tiga", "cha-kau-tsz")
    measured: dict[tuple[str, str], dict[str, Any]] = {}
    with bench_stack() as (stack, url):
        for game in games:
            for client in CLIENTS:
                print(
                    f"  bench.api: {game}, {CONCURRENCY} tables at once, {client} client, {seconds:.0f} s ...",
                    file=sys.stderr,
                )
                measured[game, client] = measure_cardledger(stack.base_url, game, client, seconds)
        # The baseline runs beside the (now idle) stack, on the same database server.
        print(f"  bench.api: bare Flask + INSERT, {CONCURRENCY} clients, {seconds:.0f} s ...", file=sys.stderr)
        with baseline_server(url) as base_url:
            baseline = drive_baseline(base_url, CONCURRENCY, seconds)
    rows: list[dict[str, Any]] = [
        {
            "benchmark": f"bare Flask POST + 1 INSERT, {CONCURRENCY} clients (baseline)",
            "value": baseline["rate"],
            "target": None,
            "unit": "requests/s",
        },
        {"benchmark": "bare Flask POST latency p50", "value": baseline["p50"], "target": None, "unit": "ms (max)"},
        {"benchmark": "bare Flask POST latency p99", "value": baseline["p99"], "target": None, "unit": "ms (max)"},
    ]
    for game, client in measured:
        s = measured[game, client]
        rate, latency = s["actions_per_s"], s["latency_ms"]
        label = f"API {game}, {CONCURRENCY} tables at once, {client} client"
        targeted = client == TARGETED_CLIENT
        rows += [
            {
                "benchmark": f"{label}: actions/s",
                "value": rate,
                "target": None,
                "unit": "actions/s",
                "baseline": baseline["rate"],
                "ratio": rate / baseline["rate"] if baseline["rate"] else None,
            },
            {
                "benchmark": f"{label}: actions/s / baseline requests/s",
                "value": rate / baseline["rate"] if baseline["rate"] else None,
                "target": RATIO_TARGET if targeted else None,
                "unit": "ratio",
            },
            {
                "benchmark": f"{label}: all requests/s (views + actions)",
                "value": s["requests_per_s"],
                "target": None,
                "unit": "requests/s",
                "baseline": baseline["rate"],
                "ratio": s["requests_per_s"] / baseline["rate"] if baseline["rate"] else None,
            },
            {
                "benchmark": f"{label}: action POST p50",
                "value": latency["p50"],
                "target": None,
                "unit": "ms (max)",
                "baseline": baseline["p50"],
                "ratio": _ratio(latency["p50"], baseline["p50"]),
            },
            {
                "benchmark": f"{label}: action POST p99",
                "value": latency["p99"],
                "target": P99_TARGET_MS if targeted else None,
                "unit": "ms (max)",
                "baseline": baseline["p99"],
                "ratio": _ratio(latency["p99"], baseline["p99"]),
            },
            {
                "benchmark": f"{label}: deals completed / failed / error answers",
                "value": f"{s['deals_completed']} / {s['deals_failed']} / {sum(s['errors'].values())}",
                "target": None,
                "unit": "",
            },
        ]
    return rows


def _ratio(value: float | None, base: float | None) -> float | None:
    return value / base if value is not None and base else None


if __name__ == "__main__":
    from bench.__main__ import print_table

    print_table(run())
