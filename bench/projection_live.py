"""What a projection worker spends per event under a steady live load of table games, counted.

Run: python -m bench.projection_live [--rate R] [--tables T] [--game G] [--seconds S] [--rounds N]

The appends are made beforehand (`tests.faults.workload.TableGame`: T tables of game G, interleaved at random,
seed 3, one command per append), then two writer threads append them at R appends a second in all (default 250
over 8 tables, the API bench's pace), beside a relay (`services.relay`) and one projection worker, both
subprocesses; the worker runs `services.projector.run_worker` (no turn clock) with counters installed
(`--serve-worker`, this module). After a warm-up (the tables opened and seated, the caches filled) it measures
S seconds of appends and the catch-up of their last event, and reports per event appended:

- the worker process's CPU and its PostgreSQL backends' CPU (/proc; backends by application_name);
- the worker's SQL statements (psycopg cursor executes, a row of executemany each) and round trips (psycopg
  `Connection.wait` calls: a statement, a BEGIN, a COMMIT each), its looks at the log (those that found
  nothing apart), the batches it applied and so the events per batch, its Redis calls (commands sent; a
  pipeline's or a script's call counts one) and the RQ jobs it ran;
- rows written (the rowcount of the worker's INSERT/UPDATE statements; the checkpoints apart) and WAL bytes
  of the worker's transactions (pg_walinspect over the window: every record of a transaction that wrote a
  read-model relation, its checkpoint updates and commit record included; full-page images apart);
- the event-to-read-model lag: from an append's return in its writer to the return of the worker's catch-up
  call that committed its last event (both `time.monotonic`, one clock for the machine), p50 / p99 / max;
- the worker's errors (`infra.metrics.count_error`: a run with any, a connection refused say, is no measure);
- the share of the window during which another database's transaction older than 20 ms held back the server's
  commit-safe horizon (the worker then finds nothing, then a fat batch: such a run says little of the pace).

Servers: DATABASE_URL (default postgresql://postgres@127.0.0.1:5432/postgres; a superuser, for pg_walinspect);
a throw-away database; a private redis-server (REDIS_URL when no redis-server binary is found). The counts
repeat closely from run to run at the same pace; the CPU figures move with the machine's load.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import psycopg

from bench.counting import backends, cpu_seconds, hold_wal, insert_lsn, wait_for_flush
from bench.harness import ROOT, fresh_database, percentile, private_redis
from domain.games import game_named
from infra.db import open_pool
from infra.event_store import EventStore, NewEvent
from tests.faults.servers import spawn, terminate
from tests.faults.workload import TableGame

RATE = 250.0
TABLES = 8
WRITERS = 2
WARM_UP_S = 3.0
MODEL_TABLES = (
    "table_views",
    "table_clock",
    "hand_tricks",
    "ledger_lines",
    "settlements",
    "deal_settlements",
    "closing_refunds",
)
COUNTS_VARIABLE = "CARDLEDGER_BENCH_WORKER_COUNTS"  # where the counted worker writes its snapshots


# The counted worker (a subprocess: python -m bench.projection_live --serve-worker) -------------------------


class WorkerCounts:
    """What this process's projection work sends and reads, and when each event read reached the read models."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.values: dict[str, int] = dict.fromkeys(
            (
                "SQL statements",
                "round trips",
                "looks at the log",
                "looks that found nothing",
                "events read",
                "catch-up calls",
                "batches applied",
                "rows written (read models)",
                "checkpoint rows moved",
                "Redis calls",
                "RQ jobs",
                "worker errors",
            ),
            0,
        )
        self.applied_at: dict[int, float] = {}  # global position -> when the catch-up that applied it returned
        self.local = threading.local()

    def add(self, name: str, count: int = 1) -> None:
        with self.lock:
            self.values[name] += count

    def install(self) -> None:
        import redis

        from infra import projections
        from infra.projections import runner
        from services.projector import jobs, worker

        counts = self
        execute, executemany = psycopg.Cursor.execute, psycopg.Cursor.executemany
        wait = psycopg.Connection.wait
        send = redis.connection.Connection.send_packed_command
        read_log, catch_up_all = runner.read_log_in, projections.catch_up_all
        job_catch_up_all = jobs.catch_up_all
        count_error = jobs.count_error

        def rows_of(query: Any, rowcount: int) -> None:
            text = str(query).lstrip().upper()
            if rowcount > 0 and (text.startswith("INSERT") or text.startswith("UPDATE")):
                name = "checkpoint rows moved" if "LOG_POSITIONS" in text else "rows written (read models)"
                counts.add(name, rowcount)

        def rows_of_one_statement(cursor: Any) -> None:
            """A round's one statement (`infra.projections.round_statement`): a row per checkpoint moved, each
            with the rows its upserts wrote (its second column)."""
            result = cursor.pgresult
            if result is not None and result.ntuples > 0:
                counts.add("checkpoint rows moved", result.ntuples)
                counts.add("rows written (read models)", int(result.get_value(0, 1)))

        def counted_execute(cursor: Any, query: Any, *args: Any, **kwargs: Any) -> Any:
            result = execute(cursor, query, *args, **kwargs)
            counts.add("SQL statements")
            text = str(query).lstrip()
            if text.startswith("WITH moved AS"):
                rows_of_one_statement(cursor)
            else:
                rows_of(query, cursor.rowcount)
            return result

        def counted_many(cursor: Any, query: Any, params_seq: Any, **kwargs: Any) -> Any:
            params = list(params_seq)
            result = executemany(cursor, query, params, **kwargs)
            counts.add("SQL statements", len(params))
            rows_of(query, cursor.rowcount)
            return result

        def counted_wait(conn: Any, *args: Any, **kwargs: Any) -> Any:
            counts.add("round trips")
            return wait(conn, *args, **kwargs)

        def counted_send(connection: Any, command: Any, check_health: bool = True) -> None:
            counts.add("Redis calls")
            send(connection, command, check_health)

        def counted_read_log(conn: Any, *args: Any, **kwargs: Any) -> Any:
            events = read_log(conn, *args, **kwargs)
            counts.add("looks at the log")
            counts.add("looks that found nothing", not events)
            counts.add("events read", len(events))
            if events:
                counts.local.read = [*getattr(counts.local, "read", []), [e.global_position for e in events]]
            return events

        def counted_catch_up_all(*args: Any, **kwargs: Any) -> Any:
            counts.local.read = []
            applied = catch_up_all(*args, **kwargs)
            now = time.monotonic()
            counts.add("catch-up calls")
            if any(applied.values()):
                with counts.lock:
                    for positions in counts.local.read:
                        counts.values["batches applied"] += 1
                        for position in positions:
                            counts.applied_at.setdefault(position, now)
            return applied

        def counted_job(*args: Any, **kwargs: Any) -> Any:
            if threading.current_thread().name != "projection-poller":
                counts.add("RQ jobs")
            return job_catch_up_all(*args, **kwargs)

        def counted_error(component: str, code: str) -> None:
            counts.add("worker errors")
            count_error(component, code)

        jobs.count_error = worker.count_error = counted_error
        psycopg.Cursor.execute = counted_execute  # type: ignore[method-assign, assignment]
        psycopg.Cursor.executemany = counted_many  # type: ignore[method-assign]
        psycopg.Connection.wait = counted_wait  # type: ignore[method-assign]
        redis.connection.Connection.send_packed_command = counted_send  # type: ignore[method-assign]
        runner.read_log_in = counted_read_log
        projections.catch_up_all = counted_catch_up_all
        jobs.catch_up_all = counted_job  # RQ finds the job's function by its dotted name at each job

    def snapshot(self, path: str) -> None:
        with self.lock:
            data = {"counts": dict(self.values), "applied_at": dict(self.applied_at)}
        Path(path + ".tmp").write_text(json.dumps(data))
        os.replace(path + ".tmp", path)


def serve_worker() -> None:
    """Run a counted projection worker until SIGTERM; each SIGUSR1 writes a snapshot of the counts."""
    from services.projector import run_worker

    out = os.environ[COUNTS_VARIABLE]
    counts = WorkerCounts()
    counts.install()
    stop = threading.Event()
    taken = [0]

    def on_usr1(signum: int, frame: Any) -> None:
        counts.snapshot(f"{out}.{taken[0]}")
        taken[0] += 1

    signal.signal(signal.SIGUSR1, on_usr1)
    signal.signal(signal.SIGTERM, lambda signum, frame: stop.set())
    run_worker(os.environ["DATABASE_URL"], os.environ["REDIS_URL"], stop, clock=False)


# The load and the measurement -------------------------------------------------------------------------------


def planned_appends(game: str, tables: int, count: int, seed: int = 3) -> list[tuple[int, str, int, list[NewEvent]]]:
    """`count` appends (table index, table id, expected version, events) of `tables` games played at random."""
    rng, rules = random.Random(seed), game_named(game)
    games = [
        TableGame(f"t-{i}", game=game, seats=rng.randint(rules.min_seats, rules.max_seats), deals=1000, rng=rng)
        for i in range(tables)
    ]
    appends = []
    while len(appends) < count:
        index = rng.randrange(tables)
        table = games[index]
        version = 0 if table.state is None else table.state.version
        appends.append((index, table.table_id, version, table.advance(table.step())))
    return appends


def _backends(conn: psycopg.Connection[Any], name: str) -> list[int]:
    return list(backends(conn, name))


# The worker's transactions: those that wrote a read-model relation (a table, its indexes, its TOAST).
_WORKER_WAL = """
WITH records AS (
    SELECT xid, record_length - fpi_length AS length, block_ref
    FROM pg_get_wal_records_info(%s::pg_lsn, %s::pg_lsn)
), relations AS (
    SELECT pg_relation_filenode(c.oid)::text AS filenode FROM pg_class c
    WHERE c.oid IN (SELECT relid FROM pg_stat_user_tables WHERE relname = ANY(%s))
       OR c.oid IN (SELECT indexrelid FROM pg_index JOIN pg_stat_user_tables ON indrelid = relid
                    WHERE relname = ANY(%s))
       OR c.oid IN (SELECT reltoastrelid FROM pg_class WHERE relname = ANY(%s))
), ours AS (
    SELECT DISTINCT xid FROM records
    WHERE xid <> '0'
      AND substring(block_ref FROM 'rel \\d+/' || %s || '/(\\d+)') IN (SELECT filenode FROM relations)
)
SELECT coalesce(sum(length), 0), count(DISTINCT xid::text) FROM records WHERE xid IN (SELECT xid FROM ours)
"""

# The window's WAL records by the relation of their first block (a read model's heap or one of its indexes) and
# kind: heap UPDATE against HOT_UPDATE, and Btree INSERT_LEAF (an index entry written).
_RECORD_KINDS = """
WITH records AS (
    SELECT resource_manager, split_part(record_type, '+', 1) AS record_type,
           substring(block_ref FROM 'rel \\d+/' || %s || '/(\\d+)') AS filenode
    FROM pg_get_wal_records_info(%s::pg_lsn, %s::pg_lsn)
), relations AS (
    SELECT pg_relation_filenode(c.oid)::text AS filenode, t.relname AS model,
           CASE WHEN c.oid = t.relid THEN 'heap' ELSE 'index' END AS kind
    FROM pg_stat_user_tables t
    JOIN pg_class c ON c.oid = t.relid OR c.oid IN (SELECT indexrelid FROM pg_index WHERE indrelid = t.relid)
    WHERE t.relname = ANY(%s)
)
SELECT r.model, r.kind, records.resource_manager, records.record_type, count(*)
FROM records JOIN relations r USING (filenode) GROUP BY 1, 2, 3, 4
"""
# What the table views' rows hold at the end of the run (bytes, as stored: compressed values inline or a pointer).
_ROW_WIDTHS = """
SELECT count(*), coalesce(avg(pg_column_size(v.*)), 0), coalesce(max(pg_column_size(v.*)), 0),
       coalesce(avg(pg_column_size(v.view)), 0), coalesce(avg(pg_column_size(v.seat_parts)), 0),
       pg_relation_size('table_views'), pg_relation_size(reltoastrelid)
FROM table_views v, (SELECT reltoastrelid FROM pg_class WHERE oid = 'table_views'::regclass) AS toast
GROUP BY reltoastrelid
"""


def measure(rate: float, tables: int, game: str, seconds: float) -> dict[str, Any]:
    total = int(rate * (WARM_UP_S + seconds)) + 1
    appends = planned_appends(game, tables, total)
    warm_up = int(rate * WARM_UP_S)
    with private_redis() as redis_url, fresh_database() as url:
        with psycopg.connect(url, autocommit=True) as admin:
            admin.execute("CREATE EXTENSION IF NOT EXISTS pg_walinspect")
        scratch = tempfile.mkdtemp(prefix="projection_live_")
        counts_path = os.path.join(scratch, "counts")
        relay = spawn("services.relay", url, redis_url, CARDLEDGER_RELAY_METRICS_PORT="0")
        worker = subprocess.Popen(
            [sys.executable, "-m", "bench.projection_live", "--serve-worker"],
            cwd=ROOT,
            env={
                **os.environ,
                "PYTHONPATH": str(ROOT),
                "DATABASE_URL": url,
                "REDIS_URL": redis_url,
                "CARDLEDGER_LOG_LEVEL": "WARNING",
                COUNTS_VARIABLE: counts_path,
            },
        )
        pool = open_pool(url, min_size=WRITERS, max_size=WRITERS)
        store = EventStore(pool)
        committed: dict[int, float] = {}  # the last global position of each append -> its return
        events_of: dict[int, int] = {}  # ... -> the append's events
        started = [0.0]
        go, stop = threading.Event(), threading.Event()
        held = [0, 0]  # samples in the window, those that found the server's commit-safe horizon held elsewhere

        def watch_horizon() -> None:
            """Sample whether another database's transaction older than 20 ms is running: it holds back the
            horizon of every log reader on the server, so the worker finds nothing, then a fat batch."""
            with psycopg.connect(url, autocommit=True) as conn:
                while not stop.is_set():
                    row = conn.execute(
                        "SELECT count(*) FROM pg_stat_activity WHERE datname IS DISTINCT FROM current_database()"
                        " AND backend_xid IS NOT NULL AND now() - xact_start > interval '20 ms'"
                    ).fetchone()
                    if measuring.is_set():
                        held[0] += 1
                        held[1] += bool(row and row[0])
                    stop.wait(0.05)

        measuring = threading.Event()
        watcher = threading.Thread(target=watch_horizon)

        def write(w: int) -> None:
            mine = [(n, a) for n, a in enumerate(appends) if a[0] % WRITERS == w]
            go.wait()
            interval = 1.0 / rate
            for n, (_index, table_id, version, events) in mine:
                if stop.is_set():
                    return
                time.sleep(max(0.0, started[0] + n * interval - time.monotonic()))
                recorded = store.append(table_id, version, events)
                committed[recorded[-1].global_position] = time.monotonic()
                events_of[recorded[-1].global_position] = len(recorded)

        writers = [threading.Thread(target=write, args=(w,)) for w in range(WRITERS)]
        try:
            with psycopg.connect(url, autocommit=True) as admin:
                deadline = time.monotonic() + 30
                while not (_backends(admin, "cardledger-projector") and _backends(admin, "cardledger-relay")):
                    if time.monotonic() > deadline:
                        raise RuntimeError("the relay or the worker did not connect within 30 s")
                    time.sleep(0.1)
                time.sleep(1.0)
                watcher.start()
                for thread in writers:
                    thread.start()
                started[0] = time.monotonic()
                go.set()
                time.sleep(max(0.0, started[0] + warm_up / rate - time.monotonic()))
                worker_backends = _backends(admin, "cardledger-projector")

                def sample(index: int) -> dict[str, Any]:
                    worker.send_signal(signal.SIGUSR1)
                    path = f"{counts_path}.{index}"
                    for _ in range(200):
                        if os.path.exists(path):
                            break
                        time.sleep(0.01)
                    return {
                        "worker CPU": cpu_seconds(worker.pid) or 0.0,
                        "backends CPU": sum(cpu_seconds(pid) or 0.0 for pid in worker_backends),
                        "lsn": insert_lsn(admin),
                        **json.loads(Path(path).read_text()),
                    }

                # Keeps the window's WAL from being recycled before it is read (dropped with the session).
                hold_wal(admin, "bench_live")
                before = sample(0)
                first = max(committed)
                measuring.set()
                for thread in writers:
                    thread.join()
                measuring.clear()
                last = max(committed)
                deadline = time.monotonic() + 30
                while time.monotonic() < deadline:
                    row = admin.execute(
                        "SELECT global_position FROM log_positions WHERE name = 'projection:table_views'"
                    ).fetchone()
                    if row is not None and int(row[0]) >= last:
                        break
                    time.sleep(0.02)
                after = sample(1)
                if set(_backends(admin, "cardledger-projector")) != set(worker_backends):
                    print("note: the worker's backends changed during the run", file=sys.stderr)
                wait_for_flush(admin, after["lsn"])
                dboid = admin.execute("SELECT oid FROM pg_database WHERE datname = current_database()").fetchone()
                assert dboid is not None
                models = list(MODEL_TABLES)
                wal = admin.execute(
                    _WORKER_WAL, (before["lsn"], after["lsn"], models, models, models, str(dboid[0]))
                ).fetchone()
                assert wal is not None
                kinds = admin.execute(_RECORD_KINDS, (str(dboid[0]), before["lsn"], after["lsn"], models)).fetchall()
                widths = admin.execute(_ROW_WIDTHS).fetchone()
                assert widths is not None
        finally:
            stop.set()
            go.set()
            for thread in [*writers, watcher]:
                if thread.is_alive():
                    thread.join()
            pool.close()
            terminate(worker)
            terminate(relay)
    window = [p for p in committed if first < p <= last]
    events = sum(events_of[p] for p in window)
    applied_at = {int(p): t for p, t in after["applied_at"].items()}
    lags = [applied_at[p] - committed[p] for p in window if p in applied_at]
    counts = {name: after["counts"][name] - before["counts"][name] for name in after["counts"]}
    return {
        "events": events,
        "appends": len(window),
        "rate": len(window) / seconds,
        "worker CPU": after["worker CPU"] - before["worker CPU"],
        "backends CPU": after["backends CPU"] - before["backends CPU"],
        "WAL bytes": int(wal[0]),
        "worker transactions (WAL)": int(wal[1]),
        "lags": lags,
        "unseen": len(window) - len(lags),
        "horizon held": held[1] / max(1, held[0]),
        "records": {f"{model} {kind} {manager} {kind_of}": int(n) for model, kind, manager, kind_of, n in kinds},
        "widths": [float(value) for value in widths],
        **counts,
    }


def rows(rate: float, tables: int, game: str, seconds: float, rounds: int) -> list[dict[str, Any]]:
    out = []
    for round_no in range(rounds):
        got = measure(rate, tables, game, seconds)
        n = max(got["events"], 1)
        label = f"{game} {rate:g} appends/s over {tables} tables" + (f" (round {round_no + 1})" if rounds > 1 else "")

        def row(name: str, value: float, unit: str) -> None:
            out.append({"benchmark": f"{label}: {name}", "value": value, "target": None, "unit": unit})  # noqa: B023

        row("events appended in the window", got["events"], f"events ({got['appends']} appends)")
        row("appends/s reached", got["rate"], "per second")
        row("worker CPU", got["worker CPU"] / n * 1e6, "us/event")
        row("worker's backends CPU", got["backends CPU"] / n * 1e6, "us/event")
        for name in (
            "SQL statements",
            "round trips",
            "looks at the log",
            "looks that found nothing",
            "batches applied",
            "catch-up calls",
            "rows written (read models)",
            "checkpoint rows moved",
            "Redis calls",
            "RQ jobs",
        ):
            row(name, got[name] / n, "per event")
        row("RQ jobs run in the window", got["RQ jobs"], "jobs (a job that goes on hands on every 5 s)")
        row("events per batch", got["events read"] / max(got["batches applied"], 1), "events")
        row("WAL bytes of the worker's transactions", got["WAL bytes"] / n, "bytes/event, full-page images aside")
        row("worker transactions", got["worker transactions (WAL)"] / n, "per event")
        records = got["records"]
        for model in ("table_views", "table_clock"):
            for name, key in (
                ("rows inserted", "heap Heap INSERT"),
                ("rows updated, HOT", "heap Heap HOT_UPDATE"),
                ("rows updated, not HOT", "heap Heap UPDATE"),
                ("rows locked", "heap Heap LOCK"),
            ):
                row(f"{model} {name} (WAL records)", records.get(f"{model} {key}", 0) / n, "per event")
            row(
                f"{model} index entries written (Btree INSERT_LEAF)",
                records.get(f"{model} index Btree INSERT_LEAF", 0) / n,
                "per event",
            )
        count, average, widest, view, parts, heap, toast = got["widths"]
        row("table_views rows at the end", count, "rows")
        row("table_views row size, mean / widest", average, f"bytes (widest {widest:,.0f})")
        row("table_views view / seat_parts size, mean", view, f"bytes / {parts:,.0f} bytes")
        row("table_views heap / TOAST size at the end", heap / 8192, f"pages / {toast / 8192:,.0f} pages")
        for q, name in ((0.5, "p50"), (0.99, "p99"), (1.0, "max")):
            row(f"event-to-read-model lag {name}", 1000 * (percentile(got["lags"], q) or -0.001), "ms")
        row("appends not seen applied", got["unseen"], "appends")
        row("worker errors (a failed run when not 0)", got["worker errors"], "errors")
        row("horizon held by another database's transaction", got["horizon held"], "of the time")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rate", type=float, default=RATE, help="appends a second, in all")
    parser.add_argument("--tables", type=int, default=TABLES, help="tables played at once")
    parser.add_argument("--game", default="cholek-tiga", help="the game the tables play")
    parser.add_argument("--seconds", type=float, default=8.0, help="the measured window")
    parser.add_argument("--rounds", type=int, default=1, help="runs, one after the other")
    parser.add_argument("--serve-worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_worker:
        serve_worker()
        return
    for row in rows(args.rate, args.tables, args.game, args.seconds, args.rounds):
        print(f"{row['benchmark']:<86}  {row['value']:>10,.2f}  {row['unit']}")


if __name__ == "__main__":
    main()
