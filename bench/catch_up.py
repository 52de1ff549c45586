"""What the projection workers spend per event: a catch-up of a played log in live-sized batches, counted.

Run: python -m bench.catch_up [--rounds N] [--batch B] [--tables T] [--profile FILE]

A log is played once per game (`tests.faults.workload.TableGame`: T tables interleaved at random, two deals each,
seed 3) into a throw-away database; then, each round, the read models are emptied and every projection is caught up
from the start of the log on one connection (`projections.catch_up_all`, batches of B events, fresh caches),
as a worker catches up live batches. Per event applied, it reports:

- client CPU (user + system of this process) and the connection's PostgreSQL backend CPU (/proc/<pid>/stat);
- rows inserted or updated in the read models (pg_stat_user_tables, after the backend has exited);
- WAL bytes written for the database (pg_walinspect over the catch-up's LSN range: records touching the
  database's relations, and the commit records of the same transactions), full-page images apart (they
  depend on when the server last checkpointed);
- statements the client sent (psycopg cursor executes, a row of executemany each; BEGIN and COMMIT not
  counted).

With --by-relation it also prints the WAL bytes per event of each relation (the first block a record
touches names it; a TOAST table by its own name, pg_toast_<oid of its table>), full-page images apart.

Servers: DATABASE_URL (default postgresql://postgres@127.0.0.1:5432/postgres); needs a superuser, for
pg_walinspect. Counts are steady from run to run; the CPU figures move with the machine's load.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import random
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psycopg

from domain.games import game_named
from infra import projections
from infra.db import connect, open_pool
from infra.event_store import EventStore
from infra.migrations import migrate
from infra.projections import ProjectionCaches
from tests.conftest import fresh_database
from tests.faults.workload import TableGame

DEFAULT_URL = "postgresql://postgres@127.0.0.1:5432/postgres"
GAMES = ("cholek-tiga", "cha-kau-tsz")
MODEL_TABLES = (
    "table_views",
    "seat_views",
    "hand_tricks",
    "ledger_lines",
    "settlements",
    "deal_settlements",
    "closing_refunds",
)


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rows_written(admin: psycopg.Connection[Any]) -> int:
    admin.execute("SELECT pg_stat_clear_snapshot()")
    row = admin.execute(
        "SELECT coalesce(sum(n_tup_ins + n_tup_upd), 0) FROM pg_stat_user_tables WHERE relname = ANY(%s)",
        (list(MODEL_TABLES),),
    ).fetchone()
    return int(row[0]) if row is not None else 0


def settled_rows_written(admin: psycopg.Connection[Any]) -> int:
    """The counters once an exited backend's statistics have reached them."""
    last = rows_written(admin)
    for _ in range(50):
        time.sleep(0.1)
        now = rows_written(admin)
        if now == last:
            return now
        last = now
    return last


def wait_for_flush(admin: psycopg.Connection[Any], lsn: str) -> None:
    """Until the server has flushed WAL up to `lsn` (pg_walinspect reads no further; other sessions' records
    may lie unflushed before it)."""
    for _ in range(100):
        row = admin.execute("SELECT pg_current_wal_flush_lsn() >= %s::pg_lsn", (lsn,)).fetchone()
        if row is not None and row[0]:
            return
        time.sleep(0.05)


_WAL_OF_DATABASE = """
WITH records AS (
    SELECT xid, resource_manager, record_length, fpi_length, block_ref
    FROM pg_get_wal_records_info(%s::pg_lsn, %s::pg_lsn)
), ours AS (
    SELECT * FROM records WHERE block_ref LIKE '%%/' || %s || '/%%'
)
SELECT coalesce(sum(record_length), 0), coalesce(sum(fpi_length), 0) FROM (
    SELECT record_length, fpi_length FROM ours
    UNION ALL
    SELECT record_length, fpi_length FROM records
    WHERE resource_manager = 'Transaction' AND xid IN (SELECT xid FROM ours WHERE xid <> '0')
) AS counted
"""


_WAL_BY_RELATION = """
WITH records AS (
    SELECT record_length - fpi_length AS length,
           substring(block_ref FROM 'rel \\d+/' || %s || '/(\\d+)') AS filenode
    FROM pg_get_wal_records_info(%s::pg_lsn, %s::pg_lsn)
)
SELECT coalesce(pg_filenode_relation(0, filenode::oid)::text, 'filenode ' || filenode) AS relation, sum(length)
FROM records WHERE filenode IS NOT NULL GROUP BY 1 ORDER BY 2 DESC
"""


class Statements:
    """Counts the statements psycopg connections send while installed."""

    def __init__(self) -> None:
        self.count = 0

    @contextmanager
    def counting(self) -> Iterator[None]:
        execute, executemany = psycopg.Cursor.execute, psycopg.Cursor.executemany

        def counted_execute(cur: Any, *args: Any, **kwargs: Any) -> Any:
            self.count += 1
            return execute(cur, *args, **kwargs)

        def counted_many(cur: Any, query: Any, params_seq: Any, **kwargs: Any) -> Any:
            params = list(params_seq)
            self.count += len(params)
            return executemany(cur, query, params, **kwargs)

        psycopg.Cursor.execute = counted_execute  # type: ignore[method-assign]
        psycopg.Cursor.executemany = counted_many  # type: ignore[method-assign]
        try:
            yield
        finally:
            psycopg.Cursor.execute = execute  # type: ignore[method-assign]
            psycopg.Cursor.executemany = executemany  # type: ignore[method-assign]


def pid_tag() -> str:
    return f"{os.getpid()}_{time.monotonic_ns()}"


def reset_models(url: str) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"TRUNCATE {', '.join(MODEL_TABLES)}")
        conn.execute("DELETE FROM log_positions WHERE name LIKE 'projection:%'")


def catch_up_once(url: str, batch: int, profile: cProfile.Profile | None = None) -> dict[str, float]:
    reset_models(url)
    statements = Statements()
    with psycopg.connect(url, autocommit=True) as admin:
        dboid = admin.execute("SELECT oid FROM pg_database WHERE datname = current_database()").fetchone()
        assert dboid is not None
        rows_before = settled_rows_written(admin)
        # Keeps the catch-up's WAL from being recycled before it is read (dropped with the session).
        admin.execute("SELECT pg_create_physical_replication_slot(%s, true, true)", (f"bench_catch_up_{pid_tag()}",))
        lsn_before = admin.execute("SELECT pg_current_wal_insert_lsn()::text").fetchone()
        with connect(url) as conn:
            pid = conn.info.backend_pid
            client, backend = time.process_time(), cpu_seconds(pid)
            with statements.counting():
                if profile is not None:
                    profile.enable()
                applied = projections.catch_up_all(conn, batch_size=batch, caches=ProjectionCaches())
                if profile is not None:
                    profile.disable()
            client, backend = time.process_time() - client, cpu_seconds(pid) - backend
        lsn_after = admin.execute("SELECT pg_current_wal_insert_lsn()::text").fetchone()
        assert lsn_before is not None and lsn_after is not None
        rows = settled_rows_written(admin) - rows_before
        wait_for_flush(admin, lsn_after[0])
        wal = admin.execute(_WAL_OF_DATABASE, (lsn_before[0], lsn_after[0], str(dboid[0]))).fetchone()
        assert wal is not None
        by_relation = admin.execute(_WAL_BY_RELATION, (str(dboid[0]), lsn_before[0], lsn_after[0])).fetchall()
    events = max(applied.values())
    return {
        **{f"wal_bytes {relation}": int(length) / events for relation, length in by_relation},
        "events": events,
        "client_us": client / events * 1e6,
        "backend_us": backend / events * 1e6,
        "rows": rows / events,
        "wal_bytes": (int(wal[0]) - int(wal[1])) / events,
        "fpi_bytes": int(wal[1]) / events,
        "statements": statements.count / events,
    }


def played_log(url: str, game: str, tables: int) -> None:
    migrate(url)
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS pg_walinspect")
    pool = open_pool(url, min_size=1, max_size=2)
    try:
        store, rng, rules = EventStore(pool), random.Random(3), game_named(game)
        games = [
            TableGame(f"t-{i}", game=game, seats=rng.randint(rules.min_seats, rules.max_seats), deals=2, rng=rng)
            for i in range(tables)
        ]
        runs = [table.play_into(store) for table in games]
        while runs:  # interleaved at random, as tables play at once
            run = rng.choice(runs)
            if next(run, None) is None:
                runs.remove(run)
    finally:
        pool.close()


def run(
    rounds: int = 3, batch: int = 4, tables: int = 8, profile_path: str | None = None, by_relation: bool = False
) -> list[dict[str, Any]]:
    server_url = os.environ.get("DATABASE_URL", "").strip() or DEFAULT_URL
    rows: list[dict[str, Any]] = []
    profile = cProfile.Profile(time.process_time) if profile_path else None  # CPU, not waits
    for game in GAMES:
        with fresh_database(server_url, prefix="cardledger_bench") as url:
            played_log(url, game, tables)
            results = [catch_up_once(url, batch, profile) for _ in range(rounds)]
        label = f"catch-up of {game}, {tables} tables, batches of {batch} ({results[0]['events']:.0f} events)"
        relations = sorted({key for r in results for key in r if key.startswith("wal_bytes ")}) if by_relation else []
        for key, unit in (
            ("client_us", "us CPU/event"),
            ("backend_us", "us CPU/event"),
            ("rows", "rows/event"),
            ("wal_bytes", "WAL bytes/event, full-page images aside"),
            ("fpi_bytes", "WAL bytes/event of full-page images (depend on checkpoints)"),
            ("statements", "statements/event"),
            *((relation, "WAL bytes/event of the relation, full-page images aside") for relation in relations),
        ):
            values = sorted(r.get(key, 0.0) for r in results)
            rows.append(
                {
                    "benchmark": f"{label}: {key}",
                    "value": values[len(values) // 2],
                    "target": None,
                    "unit": f"{unit} (median of {rounds}: {', '.join(f'{v:,.1f}' for v in values)})",
                }
            )
    if profile is not None and profile_path:
        profile.dump_stats(profile_path)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3, help="catch-ups of each log")
    parser.add_argument("--batch", type=int, default=4, help="events per batch (a live batch's size)")
    parser.add_argument("--tables", type=int, default=8, help="tables played at once in the log")
    parser.add_argument("--profile", help="write the cProfile statistics of the catch-ups to this file")
    parser.add_argument("--by-relation", action="store_true", help="also the WAL bytes per event of each relation")
    args = parser.parse_args()
    for row in run(args.rounds, args.batch, args.tables, args.profile, args.by_relation):
        print(f"{row['benchmark']:<78}  {row['value']:>10,.2f}  {row['unit']}")


if __name__ == "__main__":
    main()
