"""The REST API under load: cardledger's actions beside a bare Flask endpoint doing one INSERT.

Run: python -m bench.api            (about 2 minutes; BENCH_QUICK=1 for a few seconds per point)

Both servers run under the same gunicorn command line (`services.supervisor.gunicorn_command`: 2 workers,
gthread, each serving 4 requests at once, plus threads for streams) on loopback, against a fresh database
created on DATABASE_URL's server (default postgresql://postgres@127.0.0.1:5432/postgres, dropped at the end),
Redis at REDIS_URL (default redis://127.0.0.1:6379/11), rate limits off.

- cardledger: `cardledger up` (API, relay, 2 projection workers) and `cardledger simulate`'s random bots on
  CONCURRENCY tables at once for BENCH_API_SECONDS (default 20; the deals in progress then finish), with each
  of simulate's three clients (services/simulate/runner.py):
  - `holding`: each seat on its own thread and connection keeps its view; an
    action is one conditional POST whose answer carries the seat's new view (`Prefer: return=representation`),
    and a seat waiting for its turn long-polls its view (`wait_for_version`);
  - `polling` (one thread per table, the earlier bot): every action is a read of the seat view at the last
    written version (read your writes) and a conditional POST;
  - `streaming` (the rows with the targets, TARGETED_CLIENT): each seat on its own thread follows its seat
    view's stream (GET /view/stream, Server-Sent Events, one connection held open) and acts with a
    conditional POST (another connection) when the view pushed says it is its turn; the POST does not ask for
    the view (the stream pushes it).
  "actions/s" counts the POSTs, the latencies are the POSTs'; "all requests/s" adds the reads (a stream
  counts one request per connection). BENCH_API_CLIENTS (e.g. `streaming,holding`) runs only those;
  `streaming+view` there adds the streaming client whose POSTs ask for the view too.
- baseline: a tiny Flask app (`create_baseline_app`, below) whose POST does one INSERT of the body into a
  plain table through a psycopg pool like cardledger's, driven by CONCURRENCY threads posting back to back
  for the same time, on the bots' own HTTP client (`services.simulate.client.HttpClient`), so that both sides
  of the ratio pay the same client per request (until 2026-12-02 both used `http.client`, which cost about
  four times as much per request: docs/performance.md, "Running the benches").

CPU per action, by component: around each row's window (and the baseline's), the CPU seconds (utime + stime of
/proc/<pid>/stat) of every process of the stack (the gunicorn workers, the relay, the projection workers, the
supervisor), of the PostgreSQL backends of the bench's database (in total, and by whose they are: the API's,
the relay's, the projection workers', the others', by their `application_name`), of PostgreSQL's background
processes and of Redis (those two serve the whole server: other users' work lands there too), and of this
process (the bots and their HTTP client), divided by the actions (or the baseline's requests). A row's window
ends once the relay and the projection workers have gone quiet (the projections caught up with the row's
actions). Counts of CPU, not wall-clock rates, so they hold up on a machine shared with other work.

Targets (issue 24), on the TARGETED_CLIENT's rows: cardledger's action rate at least RATIO_TARGET of the
baseline's request rate; action p99 at most P99_RATIO_TARGET times the baseline's p99, both measured in the
same run. The event-to-projection lag is measured by bench/lag.py (not repeated here).
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
from infra.db import application_name  # noqa: E402
from services.simulate import SimulationConfig, simulate  # noqa: E402
from services.simulate.client import HttpClient  # noqa: E402
from services.simulate.report import percentile  # noqa: E402
from services.simulate.stack import RunningStack, embedded_stack, free_port, stop  # noqa: E402
from services.supervisor import gunicorn_command  # noqa: E402

DEFAULT_SERVER_URL = "postgresql://postgres@127.0.0.1:5432/postgres"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/11"
CONCURRENCY = 8
RATIO_TARGET = 0.5
P99_RATIO_TARGET = 2.0
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

    app = Flask("bench_baseline")
    pool = open_pool(os.environ["DATABASE_URL"], component="api")  # its backends count as the API's

    @app.post("/insert")
    def insert() -> tuple[dict[str, Any], int]:
        with pool.connection() as conn:
            row = conn.execute(
                "INSERT INTO bench_baseline (data) VALUES (%s) RETURNING id", (Jsonb(request.get_json()),)
            ).fetchone()
        assert row is not None
        return {"id": row["id"]}, 201

    settings = Settings.from_env()
    limits = settings.serving
    admission = Admission(
        app.wsgi_app,
        limits.threads,
        limits.streams,
        limits.queue_seconds,
        limits.streams_per_caller,
        limits.requests_per_caller,
    )
    # As create_served_app: the proxy fix outermost, so that admission sees the client's address.
    app.wsgi_app = behind_proxies(admission, settings.trusted_proxies)  # type: ignore[method-assign,assignment]
    return app


@contextmanager
def baseline_server(database_url: str) -> Iterator[tuple[str, int]]:
    """The baseline app under gunicorn: its URL and the gunicorn master's pid."""
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
        yield base_url, process.pid
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
        "requests": len(merged),
    }


# CPU per component -------------------------------------------------------------------------------------------------

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
QUIET_TICKS = 2  # the relay and the projection workers together, per QUIET_INTERVAL_S: idle polling, nothing to do
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
# Whose backend it is, by pg_stat_activity.application_name (`infra.db.application_name`).
PG_BACKEND_OF = {
    application_name("api"): PG_API,
    application_name("relay"): PG_RELAY,
    application_name("projector"): PG_PROJECTORS,
}
PG_BACKGROUND = "PostgreSQL background (whole server)"
REDIS = "Redis (whole server)"
BOTS = "bots + HTTP client (bench process)"
COMPONENTS = (API, RELAY, PROJECTORS, SUPERVISOR, *PG_PARTS, PG_BACKGROUND, REDIS, BOTS)


def cpu_ticks(pid: int) -> int | None:
    """utime + stime of `pid` in clock ticks, or None when it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2 :].split()  # after "pid (comm) ": state, ppid, ... utime is field 14
    return int(fields[11]) + int(fields[12])


def _parent(pid: int) -> int | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat[stat.rindex(")") + 2 :].split()[1])


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def descendants(root: int) -> list[int]:
    parents = {int(p.name): _parent(int(p.name)) for p in Path("/proc").iterdir() if p.name.isdigit()}
    found, frontier = [], [root]
    while frontier:
        pid = frontier.pop()
        found.append(pid)
        frontier += [child for child, parent in parents.items() if parent == pid]
    return found


def stack_component(pid: int) -> str:
    command = _cmdline(pid)
    if "gunicorn" in command:
        return API
    if command.endswith(" relay ") or command.endswith(" relay"):
        return RELAY
    if command.endswith(" worker ") or command.endswith(" worker"):
        return PROJECTORS
    return SUPERVISOR


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

        found = {pid: stack_component(pid) for pid in descendants(self.stack_pid)} if self.stack_pid else {}
        rows = self.conn.execute(
            "SELECT pid, datname = current_database(), backend_type <> 'client backend' AND datname IS NULL,"
            " application_name FROM pg_stat_activity WHERE pid <> pg_backend_pid()"
        ).fetchall()
        for pid, ours, background, name in rows:
            if ours:
                found[int(pid)] = PG_BACKEND_OF.get(name, PG_OTHERS)
            elif background:
                found[int(pid)] = PG_BACKGROUND
        client = redis.Redis.from_url(redis_url())
        try:
            found[int(client.info("server")["process_id"])] = REDIS
        finally:
            client.close()
        found[os.getpid()] = BOTS
        return found

    def snapshot(self) -> dict[int, tuple[str, int]]:
        return {
            pid: (component, ticks)
            for pid, component in self.processes().items()
            if (ticks := cpu_ticks(pid)) is not None
        }

    def quiet(self) -> None:
        """Wait until the relay and the projection workers have nothing left to do (or QUIET_TIMEOUT_S)."""
        busy = [pid for pid, component in self.processes().items() if component in (RELAY, PROJECTORS)]
        deadline = time.monotonic() + QUIET_TIMEOUT_S
        last = sum(cpu_ticks(pid) or 0 for pid in busy)
        while time.monotonic() < deadline:
            time.sleep(QUIET_INTERVAL_S)
            now = sum(cpu_ticks(pid) or 0 for pid in busy)
            if now - last <= QUIET_TICKS:
                return
            last = now


def cpu_used(before: dict[int, tuple[str, int]], after: dict[int, tuple[str, int]]) -> dict[str, float]:
    """CPU seconds per component between two snapshots (a process that appeared in between counts from zero)."""
    used = dict.fromkeys(COMPONENTS, 0.0)
    for pid, (component, ticks) in after.items():
        start = before.get(pid)
        used[component] += (ticks - (start[1] if start is not None and start[0] == component else 0)) / CLOCK_TICKS
    return used


@contextmanager
def closing_account(database_url: str, stack_pid: int) -> Iterator[CpuAccount]:
    account = CpuAccount(database_url, stack_pid)
    try:
        yield account
    finally:
        account.close()


@contextmanager
def accounted(account: CpuAccount, into: dict[str, float]) -> Iterator[None]:
    """Fill `into` with the CPU seconds per component of the block, up to when the projections are quiet."""
    before = account.snapshot()
    yield
    account.quiet()
    into.update(cpu_used(before, account.snapshot()))


def shown(used: Mapping[str, float]) -> list[tuple[str, float]]:
    """The components that used CPU, in COMPONENTS' order, with the PostgreSQL backends' total before its parts."""
    found = [(component, used[component]) for component in COMPONENTS if used.get(component)]
    backends = sum(used.get(part, 0.0) for part in PG_PARTS)
    if backends:
        at = next(n for n, (component, _) in enumerate(found) if component in PG_PARTS)
        found.insert(at, (PG_BACKENDS, backends))
    return found


def cpu_rows(label: str, used: Mapping[str, float], count: int, per: str) -> list[dict[str, Any]]:
    if not count:
        return []
    rows = [
        {
            "benchmark": f"{label}: CPU per {per}, {component}",
            "value": seconds / count * 1e6,
            "target": None,
            "unit": f"us/{per}",
        }
        for component, seconds in shown(used)
    ]
    total = sum(used.values())
    rows.append(
        {
            "benchmark": f"{label}: CPU per {per}, all components",
            "value": total / count * 1e6,
            "target": None,
            "unit": f"us/{per}",
        }
    )
    return rows


# The rows ----------------------------------------------------------------------------------------------------------


CLIENTS = ("holding", "polling", "streaming")
# Run only when BENCH_API_CLIENTS names it: the streaming client whose POSTs also ask for the view.
STREAMING_WITH_VIEW = "streaming+view"
# The client the directions describe (one request per action, turns learned from the stream), chosen
# before the run whose rows it marks, never after seeing them.
TARGETED_CLIENT = "streaming"


def chosen_clients() -> tuple[str, ...]:
    """BENCH_API_CLIENTS (comma-separated), else every client."""
    raw = [name.strip() for name in os.environ.get("BENCH_API_CLIENTS", "").split(",") if name.strip()]
    unknown = sorted(set(raw) - {*CLIENTS, STREAMING_WITH_VIEW})
    if unknown:
        raise SystemExit(f"BENCH_API_CLIENTS: unknown client(s) {', '.join(unknown)}; choose from {', '.join(CLIENTS)}")
    return tuple(raw) or CLIENTS


def measure_cardledger(
    base_url: str, game: str, client: str, seconds: float, account: CpuAccount | None = None
) -> dict[str, Any]:
    """simulate's summary, with the CPU seconds per component of its window under "cpu" when `account` is given."""
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
        client="streaming" if client == STREAMING_WITH_VIEW else client,
        view_in_answer=client == STREAMING_WITH_VIEW,
    )
    cpu: dict[str, float] = {}
    if account is None:
        return simulate(config).summary
    with accounted(account, cpu):
        summary = simulate(config).summary
    return {**summary, "cpu": cpu}


def run() -> list[dict[str, Any]]:
    seconds = env_float("BENCH_API_SECONDS", 20.0, 5.0)
    games = ("cholek-tiga", "cha-kau-tsz")
    measured: dict[tuple[str, str], dict[str, Any]] = {}
    idle: dict[str, float] = {}
    baseline_cpu: dict[str, float] = {}
    with bench_stack() as (stack, url), closing_account(url, stack.process.pid) as account:
        account.quiet()
        with accounted(account, idle):
            time.sleep(IDLE_SECONDS)
        for game in games:
            for client in chosen_clients():
                print(
                    f"  bench.api: {game}, {CONCURRENCY} tables at once, {client} client, {seconds:.0f} s ...",
                    file=sys.stderr,
                )
                measured[game, client] = measure_cardledger(stack.base_url, game, client, seconds, account)
        # The baseline runs beside the (now idle) stack, on the same database server.
        print(f"  bench.api: bare Flask + INSERT, {CONCURRENCY} clients, {seconds:.0f} s ...", file=sys.stderr)
        with (
            baseline_server(url) as (base_url, baseline_pid),
            closing_account(url, baseline_pid) as baseline_account,
            accounted(baseline_account, baseline_cpu),
        ):
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
        *cpu_rows("bare Flask POST + 1 INSERT", baseline_cpu, baseline["requests"], "request"),
        *[
            {
                "benchmark": f"idle stack: CPU per second, {component}",
                "value": seconds / IDLE_SECONDS * 1e6,
                "target": None,
                "unit": "us/s",
            }
            for component, seconds in shown(idle)
        ],
    ]
    for game, client in measured:
        rows += client_rows(
            f"API {game}, {CONCURRENCY} tables at once, {client} client",
            measured[game, client],
            baseline,
            targeted=client == TARGETED_CLIENT,
        )
    return rows


def client_rows(label: str, s: Mapping[str, Any], baseline: Mapping[str, Any], targeted: bool) -> list[dict[str, Any]]:
    """The rows of one client's run against the baseline's; the targets only on the `targeted` client's."""
    rate, latency = s["actions_per_s"], s["latency_ms"]
    return [
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
            "target": None,
            "unit": "ms (max)",
            "baseline": baseline["p99"],
            "ratio": _ratio(latency["p99"], baseline["p99"]),
        },
        {
            "benchmark": f"{label}: action POST p99 / baseline p99",
            "value": _ratio(latency["p99"], baseline["p99"]),
            "target": P99_RATIO_TARGET if targeted else None,
            "unit": "ratio (max)",
        },
        {
            "benchmark": f"{label}: deals completed / failed / error answers",
            "value": f"{s['deals_completed']} / {s['deals_failed']} / {sum(s['errors'].values())}",
            "target": None,
            "unit": "",
        },
        *cpu_rows(label, s["cpu"], s["actions"], "action"),
    ]


def _ratio(value: float | None, base: float | None) -> float | None:
    return value / base if value is not None and base else None


if __name__ == "__main__":
    from bench.__main__ import print_table

    print_table(run())
