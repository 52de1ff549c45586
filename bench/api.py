"""How many actions per second? `cardledger up` under bots on CONCURRENCY tables (each of simulate's clients),
beside a bare Flask POST + INSERT under the same gunicorn; CPU per action of every process by component. Targets on
TARGETED_CLIENT's rows: its action rate at least RATIO_TARGET of the baseline's, its p99 at most P99_RATIO_TARGET times.

Run: python -m bench.api     (about 2 minutes; BENCH_API_SECONDS per point, default 20; BENCH_API_CLIENTS=a,b)
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator, Mapping
from contextlib import closing, contextmanager
from typing import Any

from bench.counting import BACKEND_OWNER, CLOCK_TICKS, KINDS, CpuMeter, cpu_seconds, stack_kinds
from bench.harness import (
    ROOT,
    Row,
    bench_stack,
    bots,
    env_float,
    in_threads,
    percentile,
    print_table,
    ratio,
    redis_url,
    row,
    say,
)
from infra.config import Settings
from services.cli.http_client import HttpClient
from services.cli.simulate import simulate
from services.cli.simulate.stack import free_port, stop
from services.supervisor import gunicorn_command

CONCURRENCY = 8
RATIO_TARGET = 0.5
P99_RATIO_TARGET = 2.0
BASELINE_BODY = {"type": "discard", "card": "7M", "capture": ["7C", "7S"]}
CLIENTS = ("holding", "polling", "streaming")
# The client the directions describe (one request per action, turns learned from the stream), chosen before
# the run whose rows it marks, never after seeing them.
TARGETED_CLIENT = "streaming"


# The baseline ------------------------------------------------------------------------------------------------------


def create_baseline_app() -> Any:
    """A Flask app with one endpoint: POST /insert stores the JSON body as one row (one INSERT, one commit),
    admitting as many requests at once as cardledger's served app does (`create_served_app`)."""
    from flask import Flask, request
    from psycopg.types.json import Jsonb

    from infra.db import open_pool
    from services.api import served_admission
    from services.api.middleware.proxies import behind_proxies

    app = Flask("bench_baseline")
    pool = open_pool(os.environ["DATABASE_URL"], component="api")  # its backends count as the API's

    @app.post("/insert")
    def insert() -> tuple[dict[str, Any], int]:
        with pool.connection() as conn:
            found = conn.execute(
                "INSERT INTO bench_baseline (data) VALUES (%s) RETURNING id", (Jsonb(request.get_json()),)
            ).fetchone()
        assert found is not None
        return {"id": found["id"]}, 201

    settings = Settings.from_env()
    # As create_served_app: the proxy fix outermost, so that admission sees the client's address.
    admitted = served_admission(settings.serving)(app.wsgi_app)
    app.wsgi_app = behind_proxies(admitted, settings.trusted_proxies)  # type: ignore[method-assign]
    return app


def create_baseline_table(database_url: str) -> None:
    import psycopg

    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute("CREATE TABLE IF NOT EXISTS bench_baseline (id bigserial PRIMARY KEY, data jsonb NOT NULL)")


@contextmanager
def baseline_server(database_url: str) -> Iterator[tuple[str, int]]:
    """The baseline app under gunicorn: its URL and the gunicorn master's pid."""
    create_baseline_table(database_url)
    port = free_port()
    command = gunicorn_command(Settings(host="127.0.0.1", port=port))
    assert command[-1] == "services.api:create_served_app()", command
    command[-1] = "bench.api:create_baseline_app()"
    env = {**os.environ, "DATABASE_URL": database_url, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base_url, client = f"http://127.0.0.1:{port}", HttpClient(f"http://127.0.0.1:{port}", timeout=5)
    try:
        deadline = time.monotonic() + 60
        while not _answers(client):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the baseline app did not answer (gunicorn: {process.poll()})")
            time.sleep(0.2)
        client.close()
        yield base_url, process.pid
    finally:
        stop(process)


def _answers(client: HttpClient) -> bool:
    try:
        return client.request("POST", "/insert", BASELINE_BODY).status == 201
    except OSError:
        return False


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
    in_threads(threads, work)
    merged = [value for chunk in latencies for value in chunk]
    rate = len(merged) / (time.monotonic() - started)
    p50, p99 = percentile(merged, 0.5), percentile(merged, 0.99)
    return {"rate": rate, "p50": p50, "p99": p99, "errors": sum(errors), "requests": len(merged)}


# CPU per component -------------------------------------------------------------------------------------------------

QUIET_TICKS = 2 / CLOCK_TICKS  # CPU seconds of the relay and the workers together per QUIET_INTERVAL_S: idle polling
QUIET_INTERVAL_S = 0.5
QUIET_TIMEOUT_S = 15.0
IDLE_SECONDS = 3.0  # the stack with nothing to do: its polling, for comparison with the rows

API = "API (gunicorn)"
RELAY = "relay"
PROJECTORS = "projection workers"
SUPERVISOR = "supervisor"
PG_BACKENDS = "PostgreSQL backends (bench database)"  # the total of the four below
PG_API = "PostgreSQL backends of the API"
PG_RELAY = "PostgreSQL backends of the relay"
PG_PROJECTORS = "PostgreSQL backends of the projection workers"
PG_OTHERS = "PostgreSQL backends of the others (clock, metrics, probes, unnamed)"
PG_PARTS = (PG_API, PG_RELAY, PG_PROJECTORS, PG_OTHERS)
PG_OF_OWNER = {"api": PG_API, "relay": PG_RELAY, "worker": PG_PROJECTORS}  # counting.BACKEND_OWNER's owners
PG_BACKGROUND = "PostgreSQL background (whole server)"
REDIS = "Redis (whole server)"
BOTS = "bots + HTTP client (bench process)"
COMPONENTS = (API, RELAY, PROJECTORS, SUPERVISOR, *PG_PARTS, PG_BACKGROUND, REDIS, BOTS)
COMPONENT_OF_KIND = dict(zip(KINDS, (API, PROJECTORS, RELAY, API, SUPERVISOR), strict=True))


class CpuAccount:
    """Which process is which component: the stack's process tree, the backends of `database` and PostgreSQL's
    background processes (pg_stat_activity), the Redis server (INFO), and this process."""

    def __init__(self, database_url: str, stack_pid: int | None) -> None:
        import psycopg

        self.stack_pid = stack_pid
        self.conn = psycopg.connect(database_url, autocommit=True)  # one, kept: the server's slots are shared

    def close(self) -> None:
        self.conn.close()

    def processes(self) -> dict[int, str]:
        import redis

        found = {}
        if self.stack_pid is not None:
            found = {pid: COMPONENT_OF_KIND[kind] for pid, kind in stack_kinds(self.stack_pid).items()}
        activity = self.conn.execute(
            "SELECT pid, datname = current_database(), backend_type <> 'client backend' AND datname IS NULL,"
            " application_name FROM pg_stat_activity WHERE pid <> pg_backend_pid()"
        ).fetchall()
        for pid, ours, background, name in activity:
            if ours:
                found[int(pid)] = PG_OF_OWNER.get(BACKEND_OWNER.get(name, ""), PG_OTHERS)
            elif background:
                found[int(pid)] = PG_BACKGROUND
        client = redis.Redis.from_url(redis_url())
        try:
            found[int(client.info("server")["process_id"])] = REDIS
        finally:
            client.close()
        found[os.getpid()] = BOTS
        return found

    def quiet(self) -> None:
        """Wait until the relay and the projection workers have nothing left to do (or QUIET_TIMEOUT_S)."""
        busy = [pid for pid, component in self.processes().items() if component in (RELAY, PROJECTORS)]
        deadline = time.monotonic() + QUIET_TIMEOUT_S
        last = sum(cpu_seconds(pid) or 0.0 for pid in busy)
        while time.monotonic() < deadline:
            time.sleep(QUIET_INTERVAL_S)
            now = sum(cpu_seconds(pid) or 0.0 for pid in busy)
            if now - last <= QUIET_TICKS:
                return
            last = now


@contextmanager
def accounted(account: CpuAccount, into: dict[str, float]) -> Iterator[None]:
    """Fill `into` with the CPU seconds per component of the block, up to when the projections are quiet."""
    meter = CpuMeter(account.processes).start()
    yield
    account.quiet()
    into.update(dict.fromkeys(COMPONENTS, 0.0) | meter.stop())  # type: ignore[operator]


def shown(used: Mapping[str, float]) -> list[tuple[str, float]]:
    """The components that used CPU, in COMPONENTS' order, with the PostgreSQL backends' total before its parts."""
    found = [(component, used[component]) for component in COMPONENTS if used.get(component)]
    backends = sum(used.get(part, 0.0) for part in PG_PARTS)
    if backends:
        at = next(n for n, (component, _) in enumerate(found) if component in PG_PARTS)
        found.insert(at, (PG_BACKENDS, backends))
    return found


def cpu_rows(label: str, used: Mapping[str, float], count: int, per: str) -> list[Row]:
    if not count:
        return []
    parts = [(component, seconds) for component, seconds in shown(used)] + [("all components", sum(used.values()))]
    return [row(f"{label}: CPU per {per}, {name}", seconds / count * 1e6, f"us/{per}") for name, seconds in parts]


# The rows ----------------------------------------------------------------------------------------------------------


def chosen_clients() -> tuple[str, ...]:
    """BENCH_API_CLIENTS (comma-separated), else every client."""
    raw = [name.strip() for name in os.environ.get("BENCH_API_CLIENTS", "").split(",") if name.strip()]
    unknown = sorted(set(raw) - set(CLIENTS))
    if unknown:
        raise SystemExit(f"BENCH_API_CLIENTS: unknown client(s) {', '.join(unknown)}; choose from {', '.join(CLIENTS)}")
    return tuple(raw) or CLIENTS


def measure_cardledger(base_url: str, game: str, client: str, seconds: float, account: CpuAccount) -> dict[str, Any]:
    """simulate's summary, with the CPU seconds per component of its window under "cpu"."""
    config = bots(base_url, game, CONCURRENCY, f"bench-api-{game}", duration=seconds, client=client)
    cpu: dict[str, float] = {}
    with accounted(account, cpu):
        summary = simulate(config).summary
    return {**summary, "cpu": cpu}


def run() -> list[Row]:
    seconds = env_float("BENCH_API_SECONDS", 20.0, 5.0)
    measured: dict[tuple[str, str], dict[str, Any]] = {}
    idle: dict[str, float] = {}
    baseline_cpu: dict[str, float] = {}
    with bench_stack() as (stack, url), closing(CpuAccount(url, stack.process.pid)) as account:
        account.quiet()
        with accounted(account, idle):
            time.sleep(IDLE_SECONDS)
        for game in ("cholek-tiga", "cha-kau-tsz"):
            for client in chosen_clients():
                say(f"bench.api: {game}, {CONCURRENCY} tables at once, {client} client, {seconds:.0f} s ...")
                measured[game, client] = measure_cardledger(stack.base_url, game, client, seconds, account)
        # The baseline runs beside the (now idle) stack, on the same database server.
        say(f"bench.api: bare Flask + INSERT, {CONCURRENCY} clients, {seconds:.0f} s ...")
        with (
            baseline_server(url) as (base_url, baseline_pid),
            closing(CpuAccount(url, baseline_pid)) as baseline_account,
            accounted(baseline_account, baseline_cpu),
        ):
            baseline = drive_baseline(base_url, CONCURRENCY, seconds)
    rows = [
        row(f"bare Flask POST + 1 INSERT, {CONCURRENCY} clients (baseline)", baseline["rate"], "requests/s"),
        row("bare Flask POST latency p50", baseline["p50"], "ms (max)"),
        row("bare Flask POST latency p99", baseline["p99"], "ms (max)"),
        *cpu_rows("bare Flask POST + 1 INSERT", baseline_cpu, baseline["requests"], "request"),
        *(
            row(f"idle stack: CPU per second, {component}", spent / IDLE_SECONDS * 1e6, "us/s")
            for component, spent in shown(idle)
        ),
    ]
    for (game, client), summary in measured.items():
        label = f"API {game}, {CONCURRENCY} tables at once, {client} client"
        rows += client_rows(label, summary, baseline, targeted=client == TARGETED_CLIENT)
    return rows


def client_rows(label: str, s: Mapping[str, Any], baseline: Mapping[str, Any], targeted: bool) -> list[Row]:
    """The rows of one client's run against the baseline's; the targets only on the `targeted` client's."""
    rate, latency, base = s["actions_per_s"], s["latency_ms"], baseline["rate"]
    return [
        row(f"{label}: actions/s", rate, "actions/s", baseline=base, ratio=ratio(rate, base)),
        row(
            f"{label}: actions/s / baseline requests/s", ratio(rate, base), "ratio", RATIO_TARGET if targeted else None
        ),
        row(f"{label}: all requests/s (views + actions)", s["requests_per_s"], "requests/s", baseline=base),
        row(f"{label}: action POST p50", latency["p50"], "ms (max)", baseline=baseline["p50"]),
        row(f"{label}: action POST p99", latency["p99"], "ms (max)", baseline=baseline["p99"]),
        row(
            f"{label}: action POST p99 / baseline p99",
            ratio(latency["p99"], baseline["p99"]),
            "ratio (max)",
            P99_RATIO_TARGET if targeted else None,
        ),
        row(
            f"{label}: deals completed / failed / error answers",
            f"{s['deals_completed']} / {s['deals_failed']} / {sum(s['errors'].values())}",
        ),
        *cpu_rows(label, s["cpu"], s["actions"], "action"),
    ]


if __name__ == "__main__":
    print_table(run())
