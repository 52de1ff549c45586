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
import time
from typing import Any

import psycopg

from bench.counting import counted_statements, cpu_seconds, database_oid, hold_wal, insert_lsn, wait_for_flush
from bench.harness import Row, fresh_database, played_log, row
from infra import projections
from infra.db import connect
from infra.projections import ProjectionCaches

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


def settled_rows_written(admin: psycopg.Connection[Any]) -> int:
    """The read models' rows inserted or updated so far, once an exited backend's statistics have reached them."""
    last = -1
    for _ in range(50):
        admin.execute("SELECT pg_stat_clear_snapshot()")
        found = admin.execute(
            "SELECT coalesce(sum(n_tup_ins + n_tup_upd), 0) FROM pg_stat_user_tables WHERE relname = ANY(%s)",
            (list(MODEL_TABLES),),
        ).fetchone()
        now = int(found[0]) if found is not None else 0
        if now == last:
            return now
        last = now
        time.sleep(0.1)
    return last


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


def reset_models(url: str) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"TRUNCATE {', '.join(MODEL_TABLES)}")
        conn.execute("DELETE FROM log_positions WHERE name LIKE 'projection:%'")


def catch_up_once(url: str, batch: int, profile: cProfile.Profile | None = None) -> dict[str, float]:
    reset_models(url)
    with psycopg.connect(url, autocommit=True) as admin:
        dboid, rows_before = str(database_oid(admin)), settled_rows_written(admin)
        hold_wal(admin, "bench_catch_up")  # the catch-up's WAL kept until it is read
        lsn_before = insert_lsn(admin)
        with connect(url) as conn:
            pid = conn.info.backend_pid
            client, backend = time.process_time(), cpu_seconds(pid) or 0.0
            with counted_statements() as statements:
                if profile is not None:
                    profile.enable()
                applied = projections.catch_up_all(conn, batch_size=batch, caches=ProjectionCaches())
                if profile is not None:
                    profile.disable()
            client, backend = time.process_time() - client, (cpu_seconds(pid) or 0.0) - backend
        lsn_after = insert_lsn(admin)
        written = settled_rows_written(admin) - rows_before
        wait_for_flush(admin, lsn_after)
        wal = admin.execute(_WAL_OF_DATABASE, (lsn_before, lsn_after, dboid)).fetchone()
        assert wal is not None
        by_relation = admin.execute(_WAL_BY_RELATION, (dboid, lsn_before, lsn_after)).fetchall()
    events = max(applied.values())
    return {
        **{f"wal_bytes {relation}": int(length) / events for relation, length in by_relation},
        "events": events,
        "client_us": client / events * 1e6,
        "backend_us": backend / events * 1e6,
        "rows": written / events,
        "wal_bytes": (int(wal[0]) - int(wal[1])) / events,
        "fpi_bytes": int(wal[1]) / events,
        "statements": statements["statements"] / events,
    }


def run(
    rounds: int = 3, batch: int = 4, tables: int = 8, profile_path: str | None = None, by_relation: bool = False
) -> list[Row]:
    rows: list[Row] = []
    profile = cProfile.Profile(time.process_time) if profile_path else None  # CPU, not waits
    for game in GAMES:
        with fresh_database() as url:
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
            shown = ", ".join(f"{v:,.1f}" for v in values)
            rows.append(row(f"{label}: {key}", values[len(values) // 2], f"{unit} (median of {rounds}: {shown})"))
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
    for found in run(args.rounds, args.batch, args.tables, args.profile, args.by_relation):
        print(f"{found['benchmark']:<78}  {found['value']:>10,.2f}  {found['unit']}")


if __name__ == "__main__":
    main()
