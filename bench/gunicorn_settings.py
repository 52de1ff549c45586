"""gunicorn settings for the API by measurement: a fixed load against a few worker/thread configurations.

    DATABASE_URL=postgresql://... REDIS_URL=redis://... .venv/bin/python -m bench.gunicorn_settings [SECONDS]

For each configuration (worker class, workers, threads) it starts gunicorn with
`services.supervisor.gunicorn_command` on a loopback port, against a fresh
database made on the DATABASE_URL server (dropped at the end), and runs the
same load for SECONDS (default 12): CLIENTS threads (default 16), each playing
its own two-seat Cholek Tiga table through the API in a loop of
GET /v1/tables/{id}, GET /v1/tables/{id}/view (the seat to act) and
POST /v1/tables/{id}/actions (a legal action chosen at random); a table whose
deal is over is replaced by a new one. Keep-alive connections, loopback only.

It prints one row per configuration: requests/s, p50 and p99 latency (ms) over
every request, and errors. The load generator runs on the same machine and
takes CPU from the server: compare the rows with each other, not with figures
from elsewhere. The relay and the workers are not running (GET falls back to the
event log when the projected row is missing, as after a write).
"""

from __future__ import annotations

import http.client
import json
import os
import random
import statistics
import subprocess
import sys
import threading
import time
import uuid
from typing import Any

from bench.harness import ROOT, fresh_database
from infra.config import Settings
from services.simulate.stack import free_port
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


class Client:
    """One keep-alive connection; records the latency of every request."""

    def __init__(self, port: int, latencies: list[float]) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.latencies = latencies
        self.errors = 0

    def call(self, method: str, path: str, body: Any = None, token: str | None = None, **headers: str) -> Any:
        all_headers = {"Content-Type": "application/json", **headers}
        if token:
            all_headers["Authorization"] = f"Bearer {token}"
        payload = None if body is None else json.dumps(body)
        started = time.perf_counter()
        try:
            self.conn.request(method, path, payload, all_headers)
            response = self.conn.getresponse()
            data = response.read()
        except (OSError, http.client.HTTPException):
            self.conn.close()
            self.errors += 1
            return None
        self.latencies.append(time.perf_counter() - started)
        if response.status >= 400:
            self.errors += 1
            return None
        return json.loads(data) if data else None


def new_table(client: Client, rng: random.Random) -> tuple[str, dict[int, str]] | None:
    tokens = []
    for n in range(2):
        player = client.call("POST", "/v1/players", {"name": f"bench-{n}"})
        if player is None:
            return None
        tokens.append(player["token"])
    table = client.call("POST", "/v1/tables", {"game": "cholek-tiga", "seats": 2, "options": {}}, tokens[0])
    if table is None:
        return None
    for seat, token in enumerate(tokens):
        client.call("POST", f"/v1/tables/{table['id']}/seats", {"seat": seat}, token)
    return table["id"], dict(enumerate(tokens))


def play(port: int, deadline: float, seed: int, latencies: list[float], errors: list[int]) -> None:
    rng = random.Random(seed)
    client = Client(port, latencies)
    current = None
    while time.monotonic() < deadline:
        if current is None:
            current = new_table(client, rng)
            continue
        table_id, tokens = current
        state = client.call("GET", f"/v1/tables/{table_id}", token=tokens[0])
        if state is None or state.get("status") != "playing":
            current = None
            continue
        token = tokens[state["to_act"]]
        view = client.call("GET", f"/v1/tables/{table_id}/view", token=token)
        if view is None or not view.get("legal_actions"):
            continue
        action = dict(rng.choice(view["legal_actions"]))
        if action.get("type") == "play" and "count" in action:
            action = {"type": "play", "cards": rng.sample(view["hand"], int(action["count"]))}
        client.call("POST", f"/v1/tables/{table_id}/actions", action, token, **{"Idempotency-Key": uuid.uuid4().hex})
    errors.append(client.errors)


def wait_healthy(port: int, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            conn.request("GET", "/readyz")
            if conn.getresponse().status == 200:
                return
        except OSError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"gunicorn on port {port} did not become ready")


def measure(
    database_url: str, redis_url: str, kind: str, workers: int, threads: int, seconds: float, clients: int
) -> dict[str, Any]:
    port = free_port()
    settings = Settings(database_url=database_url, redis_url=redis_url, port=port, log_level="WARNING")
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "CARDLEDGER_LOG_LEVEL": "WARNING",
        "CARDLEDGER_RATE_LIMITS": "off",
        "PYTHONPATH": str(ROOT),
    }
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    command = gunicorn_command(settings, workers=workers, threads=threads, worker_class=kind)
    server = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_healthy(port)
        latencies: list[float] = []
        errors: list[int] = []
        deadline = time.monotonic() + seconds
        started = time.monotonic()
        threads_ = [threading.Thread(target=play, args=(port, deadline, n, latencies, errors)) for n in range(clients)]
        for thread in threads_:
            thread.start()
        for thread in threads_:
            thread.join()
        elapsed = time.monotonic() - started
    finally:
        server.terminate()
        server.wait(timeout=30)
    ordered = sorted(latencies)
    return {
        "config": f"{kind} w={workers} t={threads}",
        "rps": len(ordered) / elapsed,
        "p50": statistics.median(ordered) * 1000 if ordered else float("nan"),
        "p99": ordered[int(len(ordered) * 0.99) - 1] * 1000 if ordered else float("nan"),
        "requests": len(ordered),
        "errors": sum(errors),
    }


def main(argv: list[str]) -> int:
    seconds = float(argv[0]) if argv else 12.0
    clients = int(os.environ.get("BENCH_CLIENTS", "16"))
    server_url = os.environ.get("DATABASE_URL", "").strip()
    redis_url = os.environ.get("REDIS_URL", "").strip()
    if not server_url or not redis_url:
        print("set DATABASE_URL (a server where a database may be created) and REDIS_URL", file=sys.stderr)
        return 2
    print(f"{os.cpu_count()} CPUs, {clients} clients, {seconds:.0f} s per configuration")
    rows = []
    with fresh_database("cardledger_bench_gunicorn", server=server_url) as database_url:
        for kind, workers, threads in CONFIGURATIONS:
            row = measure(database_url, redis_url, kind, workers, threads, seconds, clients)
            rows.append(row)
            print(
                f"  {row['config']:<20} {row['rps']:8.1f} req/s  p50 {row['p50']:7.1f} ms  "
                f"p99 {row['p99']:7.1f} ms  ({row['requests']} requests, {row['errors']} errors)",
                flush=True,
            )
    print()
    print("| configuration | requests/s | p50 (ms) | p99 (ms) | errors |")
    print("|---|---:|---:|---:|---:|")
    for row in rows:
        print(f"| {row['config']} | {row['rps']:.0f} | {row['p50']:.1f} | {row['p99']:.1f} | {row['errors']} |")
    best = max(rows, key=lambda r: (r["rps"], -r["p99"]))
    print(f"\nbest throughput: {best['config']}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
