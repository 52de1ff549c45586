"""Flat with the number of tables: the API's action rate with 256 tables in play at once against 8.

Run: python -m bench.tables          (about 3 minutes; BENCH_QUICK=1 for a short check)

One `cardledger up` stack (as bench/api.py starts it: a fresh database on DATABASE_URL's server, REDIS_URL, rate
limits off). `cardledger simulate`'s random bots, polling client, play TABLES_FEW and then TABLES_MANY tables at
once, on the same THREADS client threads and connections (`SimulationConfig.threads`: each thread takes one step of
each of its tables in turn), so the server sees the same number of requests in flight and only the number of tables
differs. The points alternate in mirrored rounds (few, many, then many, few: ROUNDS rounds, `point_order`): the
database's history grows all through the run (every point's actions stay in the log and its indexes, and a later
point pays for the larger ones), so in few-many-few-many order the many point of each round comes later than its few
point and carries more history; mirrored, both counts have the same mean position in the run and that growth weighs
on them alike. Each point is measured for BENCH_TABLES_SECONDS (default 15) once every table of the point has been
opened and seated and the tables have made WARM_ACTIONS_PER_TABLE actions each on average (a deal's first action
reads what later ones find cached, once per deal whatever the number of tables), and stopped then in the middle of
its deals (the tables keep a turn clock of an hour, so nothing acts on them afterwards). The tables of earlier
points stay open, so the later points run beside every table opened before them. Before each point the bench waits
until the relay and the projections have processed the whole log (`wait_caught_up`): the in-process part below
writes thousands of events into the same database, and an earlier point may leave a backlog, which the
projection workers would otherwise work off inside the next point's window and charge to its actions.

Per point: actions/s, the action POST's p50 and p99, and the CPU seconds spent per action (psutil) by the stack's
processes (API workers, relay, projection workers, supervisor) and by the PostgreSQL backends connected to the
bench's database (not the server's shared processes, nor Redis): wall-clock rates are noisy on a shared machine,
CPU per action is a count. Beside them, counts of the database per action: the events appended (exact), the buffer
pages PostgreSQL's backends touched and the `table_views` rows updated (its statistics; `database_counts`). The
target: the
rate with TABLES_MANY tables at least RATIO_TARGET of the rate with TABLES_FEW.

Before the HTTP points, the application alone (`CardLedger` in this process, no HTTP): the CPU per action with
TABLES_FEW and TABLES_MANY tables played in turn, interleaved rounds in the same mirrored order.

Left as it is, and to be kept in mind: a point's window starts on fresh tables (deal 1, their first plays), so with
TABLES_MANY tables the window holds the first plays of every table's first deal and none of the ends and starts of
deals, while with TABLES_FEW tables it spans whole deals; the mix of plays differs (docs/performance.md, "The latest
`make bench`").
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import psutil
import psycopg

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.api import bench_stack, env_float, quick, redis_url  # noqa: E402
from bench.memory import KINDS, classify  # noqa: E402
from domain import table as domain_tables  # noqa: E402
from infra.config import Settings  # noqa: E402
from services.app.callers import Caller  # noqa: E402
from services.bootstrap import bootstrap  # noqa: E402
from services.simulate import SimulationConfig, simulate  # noqa: E402
from services.simulate.bots import make_bot  # noqa: E402
from services.simulate.report import Stats, percentile  # noqa: E402

TABLES_FEW = 8
TABLES_MANY = 256
THREADS = 8
ROUNDS = 2
RATIO_TARGET = 0.9
TURN_SECONDS = 3600
OPEN_TIMEOUT_S = 180.0
DATABASE = "PostgreSQL backend"  # the bench database's backends, beside bench.memory's kinds
CATCH_UP_TIMEOUT_S = 120.0
WARM_ACTIONS_PER_TABLE = 2  # actions after the last table is seated, before the window opens (first reads behind)


def point_order(round_no: int) -> tuple[int, int]:
    """The numbers of tables of round `round_no`'s two points: few then many, then mirrored (module docstring)."""
    return (TABLES_FEW, TABLES_MANY) if round_no % 2 == 0 else (TABLES_MANY, TABLES_FEW)


def wait_caught_up(url: str, timeout: float = CATCH_UP_TIMEOUT_S) -> bool:
    """Wait until the relay and every projection have processed the whole log (their `log_positions` rows), so that
    a point's window does not carry the backlog of what ran before it; False when `timeout` passed first."""
    deadline = time.monotonic() + timeout
    with psycopg.connect(url, autocommit=True) as conn:
        while True:
            row = conn.execute(
                """SELECT count(*) FROM log_positions p WHERE EXISTS (
                       SELECT 1 FROM events e WHERE (e.tx_id, e.global_position) > (p.tx_id, p.global_position))""",
                prepare=False,
            ).fetchone()
            if row is not None and int(row[0]) == 0:
                return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.2)


def stack_cpu_seconds(root: psutil.Process) -> dict[str, float]:
    """User + system CPU seconds so far of the stack's processes (the supervisor and its descendants), by kind
    (bench.memory's kinds: API worker, projection worker, relay, ...)."""
    by_kind: dict[str, float] = {}
    for pid, kind in classify(root).items():
        try:
            times = psutil.Process(pid).cpu_times()
        except psutil.Error:
            continue
        by_kind[kind] = by_kind.get(kind, 0.0) + times.user + times.system
    return by_kind


def database_cpu_seconds(url: str) -> dict[int, float]:
    """CPU seconds so far of each PostgreSQL backend connected to the bench's database, by pid (the server's shared
    processes, which other databases use too, are left out)."""
    with psycopg.connect(url, autocommit=True) as conn:
        pids = [
            int(row[0])
            for row in conn.execute(
                "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
        ]
    seconds: dict[int, float] = {}
    for pid in pids:
        try:
            times = psutil.Process(pid).cpu_times()
        except psutil.Error:
            continue
        seconds[pid] = times.user + times.system
    return seconds


def database_counts(url: str, after_position: int | None = None) -> dict[str, float]:
    """Counts so far in the bench's database: the newest event's position (with `after_position`, also the events
    after it: appended since, exactly) and, from PostgreSQL's statistics, the buffer pages its backends touched
    and the `table_views` rows updated (a backend reports these at most once a second, so a window's edges blur
    by about a second of work)."""
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("SELECT pg_stat_clear_snapshot()")
        position = conn.execute("SELECT coalesce(max(global_position), 0) FROM events").fetchone()
        pages = conn.execute(
            "SELECT blks_hit + blks_read FROM pg_stat_database WHERE datname = current_database()"
        ).fetchone()
        updated = conn.execute("SELECT n_tup_upd FROM pg_stat_user_tables WHERE relname = 'table_views'").fetchone()
        counts = {
            "position": float(position[0]) if position else 0.0,
            "pages": float(pages[0]) if pages else 0.0,
            "table_views updated": float(updated[0]) if updated else 0.0,
        }
        if after_position is not None:
            appended = conn.execute(
                "SELECT count(*) FROM events WHERE global_position > %s", (int(after_position),)
            ).fetchone()
            counts["appended"] = float(appended[0]) if appended else 0.0
        return counts


def measure(
    base_url: str, url: str, root: psutil.Process, game: str, tables: int, seconds: float, n: int
) -> dict[str, Any]:
    """Play `tables` tables at once on THREADS threads; the figures of a window of `seconds` once all play."""
    config = SimulationConfig(
        base_url=base_url,
        game=game,
        tables=tables,
        seats=2,
        concurrency=tables,
        threads=THREADS,
        bot="random",
        deals=1_000_000,
        progress=False,
        seed=f"bench-tables-{game}-{tables}-{n}",
        turn_seconds=TURN_SECONDS,
    )
    stats = Stats(deals_requested=tables * config.deals)
    stop = threading.Event()
    outcome: dict[str, Any] = {}
    runner = threading.Thread(target=lambda: outcome.update(result=simulate(config, stop=stop, stats=stats)))
    runner.start()
    try:
        deadline = time.monotonic() + OPEN_TIMEOUT_S
        while stats.tables_started < tables and runner.is_alive() and time.monotonic() < deadline:
            time.sleep(0.05)
        if stats.tables_started < tables:
            raise RuntimeError(f"only {stats.tables_started} of {tables} tables were opened and seated")
        with stats.lock:
            opened_at = stats.actions
        deadline = time.monotonic() + OPEN_TIMEOUT_S
        while stats.actions < opened_at + WARM_ACTIONS_PER_TABLE * tables and time.monotonic() < deadline:
            time.sleep(0.05)
        with stats.lock:
            first, started = stats.actions, time.monotonic()
        cpu_before, database_before = stack_cpu_seconds(root), database_cpu_seconds(url)
        counts_before = database_counts(url)
        time.sleep(seconds)
        with stats.lock:
            last, ended = stats.actions, time.monotonic()
            latencies = stats.latencies_ms[first:last]
            errors = sum(stats.errors.values()) - stats.errors.get("version_mismatch", 0)
        cpu_after, database_after = stack_cpu_seconds(root), database_cpu_seconds(url)
        counts_after = database_counts(url, int(counts_before["position"]))
        cpu = {kind: cpu_after.get(kind, 0.0) - cpu_before.get(kind, 0.0) for kind in cpu_after}
        cpu[DATABASE] = sum(spent - database_before.get(pid, 0.0) for pid, spent in database_after.items())
    finally:
        stop.set()
        runner.join()
    actions = last - first
    failed = [t for t in outcome["result"].tables if t.failed] if "result" in outcome else []
    return {
        "rate": actions / (ended - started),
        "p50": percentile(latencies, 0.5),
        "p99": percentile(latencies, 0.99),
        "cpu_ms_per_action": {kind: 1000 * seconds / actions for kind, seconds in cpu.items()} if actions else {},
        "actions": actions,
        "per_action": {
            "events appended": counts_after["appended"] / actions,
            "PostgreSQL buffer pages": (counts_after["pages"] - counts_before["pages"]) / actions,
            "table_views rows updated": (counts_after["table_views updated"] - counts_before["table_views updated"])
            / actions,
        }
        if actions
        else {},
        "errors": errors,
        "failed_tables": len(failed),
    }


def application_cpu_per_action(url: str, game: str, actions: int, rounds: int) -> dict[int, float]:
    """In this process, without HTTP: the CPU milliseconds per action of `CardLedger` (the load of the table's
    state, the seat view, the action) with TABLES_FEW and TABLES_MANY tables played in turn, interleaved rounds of
    `actions` actions each: what the application itself does per action, free of the other processes' load."""
    container = bootstrap(
        Settings.from_env({**os.environ, "DATABASE_URL": url, "REDIS_URL": redis_url()}), start_embedded=False
    )
    ledger = container.ledger
    rng = random.Random(f"bench-tables-in-process-{game}")
    bot = make_bot("random", rng)

    def open_tables(count: int) -> list[tuple[str, list[Caller]]]:
        opened = []
        for n in range(count):
            callers = []
            for seat in range(2):
                player = ledger.register_player(f"in-process-{n}-{seat}")
                caller = ledger.authenticate(str(player["token"]))
                assert caller is not None
                callers.append(caller)
            table_id = str(ledger.open_table(callers[0], game, 2, {"turn_seconds": TURN_SECONDS})["id"])
            for seat, caller in enumerate(callers):
                ledger.sit(caller, table_id, seat, f"in-process-{seat}")
            opened.append((table_id, callers))
        return opened

    def step(table_id: str, callers: list[Caller]) -> int:
        state = ledger.load_state(table_id)
        if state.status != "playing":
            for seat, caller in enumerate(callers):
                ready = {"type": "ready", "client_seed": f"in-process-{seat}-{state.deal_no + 1}"}
                ledger.act(caller, table_id, ready, str(uuid.uuid4()), None)
            return 0
        seat = domain_tables.to_act(state)
        assert seat is not None
        view = ledger.seat_view(callers[seat], table_id)
        ledger.act(callers[seat], table_id, bot.choose(view), str(uuid.uuid4()), int(str(view["version"])))
        return 1

    spent: dict[int, list[float]] = {TABLES_FEW: [], TABLES_MANY: []}
    try:
        played = {count: open_tables(count) for count in spent}
        for opened in played.values():  # every table has acted once: first reads of its deal are behind
            for table_id, callers in opened:
                step(table_id, callers)
        for n in range(rounds):
            for count in point_order(n):
                opened = played[count]
                done, turn, started = 0, 0, time.process_time()
                while done < actions:
                    table_id, callers = opened[turn % count]
                    done += step(table_id, callers)
                    turn += 1
                spent[count].append(1000 * (time.process_time() - started) / done)
    finally:
        container.close()
    return {count: statistics.mean(values) for count, values in spent.items()}


def run() -> list[dict[str, Any]]:
    seconds = env_float("BENCH_TABLES_SECONDS", 15.0, 4.0)
    games = ("cholek-tiga",) if quick() else ("cholek-tiga", "cha-kau-tsz")
    rounds = 1 if quick() else ROUNDS
    points: dict[tuple[str, int], list[dict[str, Any]]] = {}
    in_process: dict[str, dict[int, float]] = {}
    with bench_stack() as (stack, url):
        root = psutil.Process(stack.process.pid)
        for game in games:
            print(
                f"  bench.tables: {game}, the application in process, {TABLES_FEW} and {TABLES_MANY} tables ...",
                file=sys.stderr,
            )
            in_process[game] = application_cpu_per_action(url, game, 300 if quick() else 1500, rounds)
            for n in range(rounds):
                for tables in point_order(n):
                    if not wait_caught_up(url):
                        print(
                            f"  bench.tables: the read models still lag after {CATCH_UP_TIMEOUT_S:.0f} s",
                            file=sys.stderr,
                        )
                    print(
                        f"  bench.tables: {game}, {tables} tables on {THREADS} threads, round {n + 1}, "
                        f"{seconds:.0f} s ...",
                        file=sys.stderr,
                    )
                    points.setdefault((game, tables), []).append(
                        measure(stack.base_url, url, root, game, tables, seconds, n)
                    )
    rows: list[dict[str, Any]] = []
    for game in games:
        few, many = points[game, TABLES_FEW], points[game, TABLES_MANY]
        few_rate = statistics.mean(p["rate"] for p in few)
        many_rate = statistics.mean(p["rate"] for p in many)
        for tables, measured in ((TABLES_FEW, few), (TABLES_MANY, many)):
            label = f"API {game}, {tables} tables at once on {THREADS} client threads (polling)"
            rates = ", ".join(f"{p['rate']:,.0f}" for p in measured)
            rows += [
                {
                    "benchmark": f"{label}: actions/s (mean of {len(measured)}: {rates})",
                    "value": statistics.mean(p["rate"] for p in measured),
                    "target": None,
                    "unit": "actions/s",
                },
                {
                    "benchmark": f"{label}: action POST p50 (worst round)",
                    "value": max(p["p50"] or 0.0 for p in measured),
                    "target": None,
                    "unit": "ms (max)",
                },
                {
                    "benchmark": f"{label}: action POST p99 (worst round)",
                    "value": max(p["p99"] or 0.0 for p in measured),
                    "target": None,
                    "unit": "ms (max)",
                },
                {
                    "benchmark": f"{label}: CPU per action, `cardledger up` and its database's backends",
                    "value": statistics.mean(sum(p["cpu_ms_per_action"].values()) for p in measured),
                    "target": None,
                    "unit": "ms (max)",
                },
                *(
                    {
                        "benchmark": f"{label}: CPU per action, {kind}s",
                        "value": statistics.mean(p["cpu_ms_per_action"].get(kind, 0.0) for p in measured),
                        "target": None,
                        "unit": "ms (max)",
                    }
                    for kind in (*KINDS[:3], DATABASE)
                ),
                *(
                    {
                        "benchmark": f"{label}: {name} per action",
                        "value": statistics.mean(p["per_action"].get(name, 0.0) for p in measured),
                        "target": None,
                        "unit": "count",
                    }
                    for name in ("events appended", "PostgreSQL buffer pages", "table_views rows updated")
                ),
                {
                    "benchmark": f"{label}: actions measured / error answers / failed tables",
                    "value": f"{sum(p['actions'] for p in measured)} / {sum(p['errors'] for p in measured)} / "
                    f"{sum(p['failed_tables'] for p in measured)}",
                    "target": None,
                    "unit": "",
                },
            ]
        rows += [
            {
                "benchmark": f"application in process (no HTTP), {game}, {tables} tables played in turn: "
                "CPU per action",
                "value": in_process[game][tables],
                "target": None,
                "unit": "ms (max)",
                "baseline": in_process[game][TABLES_FEW],
                "ratio": in_process[game][tables] / in_process[game][TABLES_FEW],
            }
            for tables in (TABLES_FEW, TABLES_MANY)
        ]
        cpu_few = statistics.mean(sum(p["cpu_ms_per_action"].values()) for p in few)
        cpu_many = statistics.mean(sum(p["cpu_ms_per_action"].values()) for p in many)
        rows.append(
            {
                "benchmark": f"API {game}: CPU per action with {TABLES_FEW} tables / with {TABLES_MANY} "
                "(a count, not a clock: the rate ratio the CPU allows)",
                "value": cpu_few / cpu_many if cpu_many else None,
                "target": None,
                "unit": "ratio",
            }
        )
        rows.append(
            {
                "benchmark": f"API {game}: actions/s with {TABLES_MANY} tables / with {TABLES_FEW}",
                "value": many_rate / few_rate if few_rate else None,
                "target": RATIO_TARGET,
                "unit": "ratio",
                "baseline": few_rate,
                "ratio": many_rate / few_rate if few_rate else None,
            }
        )
    return rows


if __name__ == "__main__":
    from bench.__main__ import print_table

    print_table(run())
