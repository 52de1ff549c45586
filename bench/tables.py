"""Is it flat with the number of tables? Polling bots on TABLES_FEW, then TABLES_MANY tables on the same client
threads, in mirrored rounds; rate, latencies, CPU and database work per action; and the application alone in
process with as many tables. Target: the rate with TABLES_MANY at least RATIO_TARGET of the rate with TABLES_FEW.

Run: python -m bench.tables     (about 3 minutes; BENCH_TABLES_SECONDS per point, default 15)
"""

from __future__ import annotations

import random
import statistics
import threading
import time
from typing import Any

import psycopg

from bench.counting import KINDS, CpuMeter, backends, stack_kinds
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
TURN_SECONDS = 3600  # nothing acts on a table left in the middle of a deal
OPEN_TIMEOUT_S = 180.0
DATABASE = "PostgreSQL backend"  # the bench database's backends, beside the stack's kinds
CATCH_UP_TIMEOUT_S = 120.0
WARM_ACTIONS_PER_TABLE = 2  # actions after the last table is seated, before the window opens (first reads behind)
COUNTED = ("events appended", "PostgreSQL buffer pages", "table_views rows updated")  # the first counted since


def point_order(round_no: int) -> tuple[int, int]:
    return (TABLES_FEW, TABLES_MANY) if round_no % 2 == 0 else (TABLES_MANY, TABLES_FEW)


def wait_caught_up(conn: Any, timeout: float = CATCH_UP_TIMEOUT_S) -> bool:
    """Wait until the relay and every projection have processed the whole log; False when `timeout` passed first."""
    deadline = time.monotonic() + timeout
    while True:
        behind = conn.execute(
            """SELECT count(*) FROM log_positions p WHERE EXISTS (
                   SELECT 1 FROM events e WHERE (e.tx_id, e.global_position) > (p.tx_id, p.global_position))""",
            prepare=False,
        ).fetchone()
        if int(behind[0]) == 0:
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.2)


def database_counts(conn: Any, after_position: int | None = None) -> dict[str, float]:
    """The newest event's position (with `after_position`, the events appended since), the buffer pages the
    database's backends touched and the `table_views` rows updated (statistics a backend reports once a second)."""
    conn.execute("SELECT pg_stat_clear_snapshot()")
    position, pages, updated, appended = conn.execute(
        """SELECT (SELECT coalesce(max(global_position), 0) FROM events),
                  (SELECT blks_hit + blks_read FROM pg_stat_database WHERE datname = current_database()),
                  (SELECT n_tup_upd FROM pg_stat_user_tables WHERE relname = 'table_views'),
                  (SELECT count(*) FROM events WHERE global_position > %s)""",
        (2**62 if after_position is None else after_position,),
    ).fetchone()
    return {"position": float(position), "PostgreSQL buffer pages": float(pages or 0)} | {
        "table_views rows updated": float(updated or 0),
        "events appended": float(appended),
    }


def wait_for_warm(stats: Stats, tables: int, runner: threading.Thread) -> None:
    """Until every table is opened and seated and they have made WARM_ACTIONS_PER_TABLE actions on average."""
    deadline = time.monotonic() + OPEN_TIMEOUT_S
    while stats.tables_started < tables and runner.is_alive() and time.monotonic() < deadline:
        time.sleep(0.05)
    if stats.tables_started < tables:
        raise RuntimeError(f"only {stats.tables_started} of {tables} tables were opened and seated")
    warm = stats.actions + WARM_ACTIONS_PER_TABLE * tables
    while stats.actions < warm and time.monotonic() < deadline + OPEN_TIMEOUT_S:
        time.sleep(0.05)


def measure(base_url: str, conn: Any, root: int, game: str, tables: int, seconds: float, n: int) -> dict[str, Any]:
    """Play `tables` tables at once on THREADS threads; the figures of a window of `seconds` once all play."""
    config = bots(
        base_url, game, tables, f"bench-tables-{game}-{tables}-{n}", threads=THREADS, turn_seconds=TURN_SECONDS
    )
    stats = Stats(deals_requested=tables * config.deals)
    stop, outcome = threading.Event(), {}
    runner = threading.Thread(target=lambda: outcome.update(result=simulate(config, stop=stop, stats=stats)))
    runner.start()
    try:
        wait_for_warm(stats, tables, runner)
        with stats.lock:
            first, started = stats.actions, time.monotonic()
        meter = CpuMeter(lambda: stack_kinds(root) | dict.fromkeys(backends(conn), DATABASE)).start()
        before = database_counts(conn)
        time.sleep(seconds)
        with stats.lock:
            last, ended = stats.actions, time.monotonic()
            latencies = stats.latencies_ms[first:last]
            errors = sum(stats.errors.values()) - stats.errors.get("version_mismatch", 0)
        cpu, after = meter.stop(), database_counts(conn, int(before["position"]))
    finally:
        stop.set()
        runner.join()
    actions = max(last - first, 1)
    counted = {name: after[name] - before[name] for name in COUNTED[1:]} | {COUNTED[0]: after[COUNTED[0]]}
    return {
        "rate": (last - first) / (ended - started),
        "p50": percentile(latencies, 0.5),
        "p99": percentile(latencies, 0.99),
        "cpu_ms_per_action": {kind: 1000 * spent / actions for kind, spent in cpu.items()},
        "actions": last - first,
        "per_action": {name: counted[name] / actions for name in COUNTED},
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


def point_rows(game: str, tables: int, measured: list[dict[str, Any]]) -> list[Row]:
    label = f"API {game}, {tables} tables at once on {THREADS} client threads (polling)"
    rates = ", ".join(f"{p['rate']:,.0f}" for p in measured)
    totals = [sum(p[key] for p in measured) for key in ("actions", "errors", "failed_tables")]

    def mean(key: str, name: str) -> float:
        return statistics.mean(p[key].get(name, 0.0) for p in measured)

    return [
        row(f"{label}: actions/s (mean of {len(measured)}: {rates})", mean_rate(measured), "actions/s"),
        row(f"{label}: action POST p50 (worst round)", max(p["p50"] or 0.0 for p in measured), "ms (max)"),
        row(f"{label}: action POST p99 (worst round)", max(p["p99"] or 0.0 for p in measured), "ms (max)"),
        row(f"{label}: CPU per action, `cardledger up` and its database's backends", cpu_ms(measured), "ms (max)"),
        *(
            row(f"{label}: CPU per action, {kind}s", mean("cpu_ms_per_action", kind), "ms (max)")
            for kind in (*KINDS[:3], DATABASE)
        ),
        *(row(f"{label}: {name} per action", mean("per_action", name), "count") for name in COUNTED),
        row(f"{label}: actions measured / error answers / failed tables", " / ".join(map(str, totals))),
    ]


def cpu_ms(measured: list[dict[str, Any]]) -> float:
    return statistics.mean(sum(p["cpu_ms_per_action"].values()) for p in measured)


def mean_rate(measured: list[dict[str, Any]]) -> float:
    return statistics.mean(p["rate"] for p in measured)


def run() -> list[Row]:
    seconds = env_float("BENCH_TABLES_SECONDS", 15.0, 4.0)
    games = ("cholek-tiga",) if quick() else ("cholek-tiga", "cha-kau-tsz")
    rounds = 1 if quick() else ROUNDS
    points: dict[tuple[str, int], list[dict[str, Any]]] = {}
    in_process_cpu: dict[str, dict[int, float]] = {}
    with bench_stack() as (stack, url), psycopg.connect(url, autocommit=True) as conn:
        for game in games:
            say(f"bench.tables: {game}, the application in process, {TABLES_FEW} and {TABLES_MANY} tables ...")
            in_process_cpu[game] = application_cpu_per_action(url, game, 300 if quick() else 1500, rounds)
            for n in range(rounds):
                for tables in point_order(n):
                    if not wait_caught_up(conn):
                        say(f"bench.tables: the read models still lag after {CATCH_UP_TIMEOUT_S:.0f} s")
                    say(f"bench.tables: {game}, {tables} tables, {THREADS} threads, round {n + 1}, {seconds:.0f} s ...")
                    found = measure(stack.base_url, conn, stack.process.pid, game, tables, seconds, n)
                    points.setdefault((game, tables), []).append(found)
    rows: list[Row] = []
    for game in games:
        few, many = points[game, TABLES_FEW], points[game, TABLES_MANY]
        rows += point_rows(game, TABLES_FEW, few) + point_rows(game, TABLES_MANY, many)
        in_few = in_process_cpu[game][TABLES_FEW]
        for tables in (TABLES_FEW, TABLES_MANY):
            label = f"application in process (no HTTP), {game}, {tables} tables played in turn: CPU per action"
            rows.append(row(label, in_process_cpu[game][tables], "ms (max)", baseline=in_few))
        rate_few, cpu_many = mean_rate(few), cpu_ms(many)
        rate_ratio = mean_rate(many) / rate_few if rate_few else None
        cpu_label = f"API {game}: CPU per action with {TABLES_FEW} tables / with {TABLES_MANY} (a count, not a clock: "
        rate_label = f"API {game}: actions/s with {TABLES_MANY} tables / with {TABLES_FEW}"
        rows += [
            row(cpu_label + "the rate ratio the CPU allows)", cpu_ms(few) / cpu_many if cpu_many else None, "ratio"),
            row(rate_label, rate_ratio, "ratio", RATIO_TARGET, baseline=rate_few, ratio=rate_ratio),
        ]
    return rows


if __name__ == "__main__":
    print_table(run())
