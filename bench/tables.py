"""Is it flat with the number of tables? The API's action rate with 256 tables in play at once against 8.

Run: python -m bench.tables     (about 3 minutes; BENCH_TABLES_SECONDS per point, default 15; BENCH_QUICK=1: 4)

One `cardledger up` stack. `cardledger simulate`'s random bots, polling client, play TABLES_FEW and then
TABLES_MANY tables at once on the same THREADS client threads and connections (`SimulationConfig.threads`), so the
server sees the same number of requests in flight and only the number of tables differs. The points alternate in
mirrored rounds (few, many, then many, few: `point_order`): the log grows all through the run, and mirrored, both
counts have the same mean position in it. Each point is measured once every table has been opened and seated and
has made WARM_ACTIONS_PER_TABLE actions on average, and stopped in the middle of its deals (an hour's turn clock:
nothing acts on them afterwards); the tables of earlier points stay open. Before each point the bench waits until
the relay and the projections have processed the whole log (`wait_caught_up`), so that no backlog is charged to
the next point's actions.

Per point: actions/s, the action POST's p50 and p99, the CPU seconds per action of the stack's processes and of
the bench database's backends (a count, where wall-clock rates are noisy), and per action the events appended, the
buffer pages PostgreSQL's backends touched and the `table_views` rows updated (its statistics). The target: the
rate with TABLES_MANY tables at least RATIO_TARGET of the rate with TABLES_FEW. Before the HTTP points, the
application alone (`CardLedger` in this process, no HTTP): its CPU per action with TABLES_FEW and TABLES_MANY
tables played in turn, in the same mirrored order. A window with TABLES_MANY tables holds the first plays of every
table's first deal, one with TABLES_FEW whole deals: the mix of plays differs.
"""

from __future__ import annotations

import random
import statistics
import threading
import time
from typing import Any

import psycopg

from bench.counting import KINDS, backends, cpu_seconds, stack_cpu_seconds
from bench.harness import (
    Row,
    act_in_process,
    bench_stack,
    bots,
    env_float,
    in_process,
    percentile,
    print_table,
    quick,
    row,
    say,
    seated_in_process,
)
from services.cli.simulate import simulate
from services.cli.simulate.bots import make_bot
from services.cli.simulate.report import Stats

TABLES_FEW, TABLES_MANY = 8, 256
THREADS = 8
ROUNDS = 2
RATIO_TARGET = 0.9
TURN_SECONDS = 3600
OPEN_TIMEOUT_S = 180.0
DATABASE = "PostgreSQL backend"  # the bench database's backends, beside the stack's kinds
CATCH_UP_TIMEOUT_S = 120.0
WARM_ACTIONS_PER_TABLE = 2  # actions after the last table is seated, before the window opens (first reads behind)
COUNTED = ("events appended", "PostgreSQL buffer pages", "table_views rows updated")


def point_order(round_no: int) -> tuple[int, int]:
    return (TABLES_FEW, TABLES_MANY) if round_no % 2 == 0 else (TABLES_MANY, TABLES_FEW)


def wait_caught_up(url: str, timeout: float = CATCH_UP_TIMEOUT_S) -> bool:
    """Wait until the relay and every projection have processed the whole log; False when `timeout` passed first."""
    deadline = time.monotonic() + timeout
    with psycopg.connect(url, autocommit=True) as conn:
        while True:
            behind = conn.execute(
                """SELECT count(*) FROM log_positions p WHERE EXISTS (
                       SELECT 1 FROM events e WHERE (e.tx_id, e.global_position) > (p.tx_id, p.global_position))""",
                prepare=False,
            ).fetchone()
            if behind is not None and int(behind[0]) == 0:
                return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.2)


def database_counts(url: str, after_position: int | None = None) -> dict[str, float]:
    """The newest event's position (with `after_position`, the events appended since, exactly), the buffer pages the
    database's backends touched and the `table_views` rows updated (PostgreSQL's statistics: a backend reports them
    at most once a second), and the CPU seconds so far of its backends, by pid."""
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("SELECT pg_stat_clear_snapshot()")
        one = conn.execute(
            """SELECT (SELECT coalesce(max(global_position), 0) FROM events),
                      (SELECT blks_hit + blks_read FROM pg_stat_database WHERE datname = current_database()),
                      (SELECT n_tup_upd FROM pg_stat_user_tables WHERE relname = 'table_views'),
                      (SELECT count(*) FROM events WHERE global_position > %s)""",
            (2**62 if after_position is None else after_position,),
        ).fetchone()
        assert one is not None
        pids = backends(conn)
    counts = {"position": float(one[0]), "PostgreSQL buffer pages": float(one[1] or 0)}
    counts |= {"table_views rows updated": float(one[2] or 0), "events appended": float(one[3])}
    return counts | {f"pid {pid}": cpu_seconds(pid) or 0.0 for pid in pids}


def measure(base_url: str, url: str, root: int, game: str, tables: int, seconds: float, n: int) -> dict[str, Any]:
    """Play `tables` tables at once on THREADS threads; the figures of a window of `seconds` once all play."""
    config = bots(
        base_url, game, tables, f"bench-tables-{game}-{tables}-{n}", threads=THREADS, turn_seconds=TURN_SECONDS
    )
    stats = Stats(deals_requested=tables * config.deals)
    stop, outcome = threading.Event(), {}
    runner = threading.Thread(target=lambda: outcome.update(result=simulate(config, stop=stop, stats=stats)))
    runner.start()
    try:
        deadline = time.monotonic() + OPEN_TIMEOUT_S
        while stats.tables_started < tables and runner.is_alive() and time.monotonic() < deadline:
            time.sleep(0.05)
        if stats.tables_started < tables:
            raise RuntimeError(f"only {stats.tables_started} of {tables} tables were opened and seated")
        warm = stats.actions + WARM_ACTIONS_PER_TABLE * tables
        while stats.actions < warm and time.monotonic() < deadline + OPEN_TIMEOUT_S:
            time.sleep(0.05)
        with stats.lock:
            first, started = stats.actions, time.monotonic()
        cpu_before, before = stack_cpu_seconds(root), database_counts(url)
        time.sleep(seconds)
        with stats.lock:
            last, ended = stats.actions, time.monotonic()
            latencies = stats.latencies_ms[first:last]
            errors = sum(stats.errors.values()) - stats.errors.get("version_mismatch", 0)
        cpu_after, after = stack_cpu_seconds(root), database_counts(url, int(before["position"]))
    finally:
        stop.set()
        runner.join()
    cpu = {kind: spent - cpu_before.get(kind, 0.0) for kind, spent in cpu_after.items()}
    cpu[DATABASE] = sum(spent - before.get(key, 0.0) for key, spent in after.items() if key.startswith("pid "))
    actions = last - first
    per_action = {
        name: (after[name] - (0 if name == "events appended" else before[name])) / actions for name in COUNTED
    }
    return {
        "rate": actions / (ended - started),
        "p50": percentile(latencies, 0.5),
        "p99": percentile(latencies, 0.99),
        "cpu_ms_per_action": {kind: 1000 * spent / actions for kind, spent in cpu.items()} if actions else {},
        "actions": actions,
        "per_action": per_action if actions else {},
        "errors": errors,
        "failed_tables": sum(t.failed for t in outcome["result"].tables) if "result" in outcome else 0,
    }


def application_cpu_per_action(url: str, game: str, actions: int, rounds: int) -> dict[int, float]:
    """In this process, without HTTP: the CPU milliseconds per action of `CardLedger` with TABLES_FEW and TABLES_MANY
    tables played in turn, interleaved rounds of `actions` actions each."""
    bot = make_bot("random", random.Random(f"bench-tables-in-process-{game}"))
    spent: dict[int, list[float]] = {TABLES_FEW: [], TABLES_MANY: []}
    with in_process(url) as container:
        ledger = container.ledger
        played = {
            count: [seated_in_process(ledger, game, f"in-process-{n}", TURN_SECONDS)[:2] for n in range(count)]
            for count in spent
        }
        for opened in played.values():  # every table has acted once: first reads of its deal are behind
            for table_id, callers in opened:
                act_in_process(ledger, table_id, callers, bot, "in-process")
        for n in range(rounds):
            for count in point_order(n):
                done, turn, started = 0, 0, time.process_time()
                while done < actions:
                    table_id, callers = played[count][turn % count]
                    done += act_in_process(ledger, table_id, callers, bot, "in-process")
                    turn += 1
                spent[count].append(1000 * (time.process_time() - started) / done)
    return {count: statistics.mean(values) for count, values in spent.items()}


def run() -> list[Row]:
    seconds = env_float("BENCH_TABLES_SECONDS", 15.0, 4.0)
    games = ("cholek-tiga",) if quick() else ("cholek-tiga", "cha-kau-tsz")
    rounds = 1 if quick() else ROUNDS
    points: dict[tuple[str, int], list[dict[str, Any]]] = {}
    in_process_cpu: dict[str, dict[int, float]] = {}
    with bench_stack() as (stack, url):
        for game in games:
            say(f"bench.tables: {game}, the application in process, {TABLES_FEW} and {TABLES_MANY} tables ...")
            in_process_cpu[game] = application_cpu_per_action(url, game, 300 if quick() else 1500, rounds)
            for n in range(rounds):
                for tables in point_order(n):
                    if not wait_caught_up(url):
                        say(f"bench.tables: the read models still lag after {CATCH_UP_TIMEOUT_S:.0f} s")
                    say(f"bench.tables: {game}, {tables} tables, {THREADS} threads, round {n + 1}, {seconds:.0f} s ...")
                    found = measure(stack.base_url, url, stack.process.pid, game, tables, seconds, n)
                    points.setdefault((game, tables), []).append(found)
    rows: list[Row] = []
    for game in games:
        mean: dict[int, float] = {}
        cpu: dict[int, float] = {}
        for tables in (TABLES_FEW, TABLES_MANY):
            measured = points[game, tables]
            label = f"API {game}, {tables} tables at once on {THREADS} client threads (polling)"
            rates = ", ".join(f"{p['rate']:,.0f}" for p in measured)
            mean[tables] = statistics.mean(p["rate"] for p in measured)
            cpu[tables] = statistics.mean(sum(p["cpu_ms_per_action"].values()) for p in measured)
            totals = [sum(p[key] for p in measured) for key in ("actions", "errors", "failed_tables")]
            rows += [
                row(f"{label}: actions/s (mean of {len(measured)}: {rates})", mean[tables], "actions/s"),
                row(f"{label}: action POST p50 (worst round)", max(p["p50"] or 0.0 for p in measured), "ms (max)"),
                row(f"{label}: action POST p99 (worst round)", max(p["p99"] or 0.0 for p in measured), "ms (max)"),
                row(f"{label}: CPU per action, `cardledger up` and its database's backends", cpu[tables], "ms (max)"),
                *(
                    row(
                        f"{label}: CPU per action, {kind}s",
                        statistics.mean(p["cpu_ms_per_action"].get(kind, 0.0) for p in measured),
                        "ms (max)",
                    )
                    for kind in (*KINDS[:3], DATABASE)
                ),
                *(
                    row(
                        f"{label}: {name} per action",
                        statistics.mean(p["per_action"].get(name, 0.0) for p in measured),
                        "count",
                    )
                    for name in COUNTED
                ),
                row(f"{label}: actions measured / error answers / failed tables", " / ".join(map(str, totals))),
            ]
        few = in_process_cpu[game][TABLES_FEW]
        rows += [
            row(
                f"application in process (no HTTP), {game}, {tables} tables played in turn: CPU per action",
                in_process_cpu[game][tables],
                "ms (max)",
                baseline=few,
            )
            for tables in (TABLES_FEW, TABLES_MANY)
        ]
        rows += [
            row(
                f"API {game}: CPU per action with {TABLES_FEW} tables / with {TABLES_MANY} "
                "(a count, not a clock: the rate ratio the CPU allows)",
                cpu[TABLES_FEW] / cpu[TABLES_MANY] if cpu[TABLES_MANY] else None,
                "ratio",
            ),
            row(
                f"API {game}: actions/s with {TABLES_MANY} tables / with {TABLES_FEW}",
                mean[TABLES_MANY] / mean[TABLES_FEW] if mean[TABLES_FEW] else None,
                "ratio",
                RATIO_TARGET,
                baseline=mean[TABLES_FEW],
                ratio=mean[TABLES_MANY] / mean[TABLES_FEW] if mean[TABLES_FEW] else None,
            ),
        ]
    return rows


if __name__ == "__main__":
    print_table(run())
