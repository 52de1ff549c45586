"""gunicorn settings for the API by measurement: a fixed load against a few worker/thread configurations.

    DATABASE_URL=postgresql://... REDIS_URL=redis://... .venv/bin/python -m bench.gunicorn_settings [SECONDS]

For each configuration (worker class, workers, threads) it starts gunicorn with `services.supervisor.gunicorn_command`
on a loopback port, against a fresh database, and runs the same load for SECONDS (default 12): BENCH_CLIENTS threads
(default 16), each playing its own two-seat Cholek Tiga table through the API in a loop of GET /v1/tables/{id},
GET /v1/tables/{id}/view (the seat to act) and POST /v1/tables/{id}/actions (a legal action chosen at random); a
table whose deal is over is replaced by a new one. Keep-alive connections, loopback only, rate limits off, the relay
and the workers not running. It prints one row per configuration: requests/s, p50 and p99 latency (ms) over every
request, and errors. The load generator takes CPU from the server: compare the rows with each other.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time
import uuid
from typing import Any

from bench.harness import ROOT, fresh_database, in_threads, percentile
from infra.config import Settings
from services.cli.http_client import HttpClient
from services.cli.simulate.stack import free_port, wait_ready
from services.supervisor import gunicorn_command

CONFIGURATIONS: tuple[tuple[str, int, int], ...] = (
    ("sync", 2, 1),
    ("sync", 4, 1),
    ("gthread", 2, 2),
    ("gthread", 2, 4),
    ("gthread", 2, 8),
    ("gthread", 3, 4),
    ("gthread", 4, 2),
)


def play(base_url: str, deadline: float, seed: int, latencies: list[float], errors: list[int]) -> None:
    """One client's loop until `deadline`: its requests' latencies (s) and its errors added to the lists."""
    rng, client, current = random.Random(seed), HttpClient(base_url), None

    def call(method: str, path: str, body: Any = None, token: str | None = None, **headers: str) -> Any:
        try:
            answer = client.request(method, path, body, token, headers)
        except OSError:
            errors.append(1)
            return None
        latencies.append(answer.seconds)
        if not answer.ok:
            errors.append(1)
        return answer.payload if answer.ok else None

    while time.monotonic() < deadline:
        if current is None:
            tokens = [(call("POST", "/v1/players", {"name": f"bench-{n}"}) or {}).get("token") for n in (0, 1)]
            table = call("POST", "/v1/tables", {"game": "cholek-tiga", "seats": 2, "options": {}}, tokens[0])
            if table is not None and all(tokens):
                for seat, token in enumerate(tokens):
                    call("POST", f"/v1/tables/{table['id']}/seats", {"seat": seat}, token)
                current = table["id"], tokens
            continue
        table_id, tokens = current
        state = call("GET", f"/v1/tables/{table_id}", token=tokens[0])
        if state is None or state.get("status") != "playing":
            current = None
            continue
        token = tokens[state["to_act"]]
        view = call("GET", f"/v1/tables/{table_id}/view", token=token)
        if view is None or not view.get("legal_actions"):
            continue
        action = dict(rng.choice(view["legal_actions"]))
        if action.get("type") == "play" and "count" in action:
            action = {"type": "play", "cards": rng.sample(view["hand"], int(action["count"]))}
        call("POST", f"/v1/tables/{table_id}/actions", action, token, **{"Idempotency-Key": uuid.uuid4().hex})
    client.close()


def measure(database_url: str, kind: str, workers: int, threads: int, seconds: float, clients: int) -> dict[str, Any]:
    port = free_port()
    settings = Settings(database_url=database_url, redis_url=os.environ["REDIS_URL"], port=port, log_level="WARNING")
    env = {**os.environ, "DATABASE_URL": database_url, "CARDLEDGER_RATE_LIMITS": "off", "PYTHONPATH": str(ROOT)}
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    command = gunicorn_command(settings, workers=workers, threads=threads, worker_class=kind)
    server = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    latencies: list[float] = []
    errors: list[int] = []
    try:
        wait_ready(f"http://127.0.0.1:{port}", server, timeout=30)
        deadline, started = time.monotonic() + seconds, time.monotonic()
        in_threads(clients, lambda n: play(f"http://127.0.0.1:{port}", deadline, n, latencies, errors))
        elapsed = time.monotonic() - started
    finally:
        server.terminate()
        server.wait(timeout=30)
    nan = float("nan")
    return {
        "config": f"{kind} w={workers} t={threads}",
        "rps": len(latencies) / elapsed,
        "p50": (percentile(latencies, 0.5) or nan) * 1000,
        "p99": (percentile(latencies, 0.99) or nan) * 1000,
        "requests": len(latencies),
        "errors": len(errors),
    }


def main(argv: list[str]) -> int:
    if argv[:1] in (["-h"], ["--help"]):
        print(__doc__)
        return 0
    seconds, clients = float(argv[0]) if argv else 12.0, int(os.environ.get("BENCH_CLIENTS", "16"))
    if not os.environ.get("DATABASE_URL", "").strip() or not os.environ.get("REDIS_URL", "").strip():
        print("set DATABASE_URL (a server where a database may be created) and REDIS_URL", file=sys.stderr)
        return 2
    print(f"{os.cpu_count()} CPUs, {clients} clients, {seconds:.0f} s per configuration")
    rows = []
    with fresh_database("cardledger_bench_gunicorn") as database_url:
        for kind, workers, threads in CONFIGURATIONS:
            rows.append(row := measure(database_url, kind, workers, threads, seconds, clients))
            print(
                f"  {row['config']:<20} {row['rps']:8.1f} req/s  p50 {row['p50']:7.1f} ms  "
                f"p99 {row['p99']:7.1f} ms  ({row['requests']} requests, {row['errors']} errors)",
                flush=True,
            )
    print("\n| configuration | requests/s | p50 (ms) | p99 (ms) | errors |\n|---|---:|---:|---:|---:|")
    for row in rows:
        print(f"| {row['config']} | {row['rps']:.0f} | {row['p50']:.1f} | {row['p99']:.1f} | {row['errors']} |")
    best = max(rows, key=lambda r: (r["rps"], -r["p99"]))
    print(f"\nbest throughput: {best['config']}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
