"""What the `table_views` projection writes per event, counted on a fixed log (docs/performance.md, "The read models").

Run: python -m bench.table_view_writes [--tables 8 256] [--appends 4000] [--batch 12] [--game cholek-tiga]

For each number of tables: a throw-away database, `--appends` appends of that many tables played at random
(`bench.projection_live.planned_appends`: seed 3, the default 60 s turn clock), then every projection caught up
with batches of `--batch` events (`catch_up_all`, as a live worker: the round's one statement when it can). Around
the catch-up: the rows of `table_views` and `table_clock` updated, and of them HOT (pg_stat_user_tables, this
backend's counts flushed), and from the WAL (pg_walinspect) the records whose first block is in one of the two
tables, their indexes or TOAST: bytes (full-page images aside), heap updates HOT and not, index entries written
(Btree INSERT_LEAF); and the heap's pages at the end. Counts only: the same log gives the same figures, whatever
the machine's load (a transaction of another database that holds back the log's horizon only delays the catch-up).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import psycopg
from psycopg.rows import dict_row

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.projection_live import DEFAULT_URL, planned_appends  # noqa: E402
from infra import projections  # noqa: E402
from infra.db import open_pool  # noqa: E402
from infra.event_store import EventStore  # noqa: E402
from infra.migrations import migrate  # noqa: E402
from tests.conftest import fresh_database  # noqa: E402

MODELS = ["table_views", "table_clock"]

_RECORDS = """
WITH records AS (
    SELECT resource_manager, split_part(record_type, '+', 1) AS record_type, record_length - fpi_length AS length,
           substring(block_ref FROM 'rel \\d+/' || %s || '/(\\d+)') AS filenode
    FROM pg_get_wal_records_info(%s::pg_lsn, %s::pg_lsn)
), relations AS (
    SELECT pg_relation_filenode(c.oid)::text AS filenode, t.relname AS model,
           CASE WHEN c.oid = t.relid THEN 'heap' WHEN c.relkind = 'i' THEN 'index' ELSE 'toast' END AS kind
    FROM pg_stat_user_tables t
    JOIN pg_class c ON c.oid = t.relid OR c.oid IN (SELECT indexrelid FROM pg_index WHERE indrelid = t.relid)
         OR c.oid = (SELECT reltoastrelid FROM pg_class WHERE oid = t.relid)
    WHERE t.relname = ANY(%s)
)
SELECT r.model, r.kind, records.resource_manager, records.record_type, count(*) AS n, sum(length) AS bytes
FROM records JOIN relations r USING (filenode) GROUP BY 1, 2, 3, 4
"""


def _updates(conn: psycopg.Connection[Any]) -> dict[str, tuple[int, int]]:
    conn.execute("SELECT pg_stat_force_next_flush()")  # flushed when the backend goes idle, before the next query
    conn.execute("SELECT pg_stat_clear_snapshot()")
    rows = conn.execute(
        "SELECT relname, n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE relname = ANY(%s)", (MODELS,)
    ).fetchall()
    return {row["relname"]: (int(row["n_tup_upd"]), int(row["n_tup_hot_upd"])) for row in rows}


def measure(server_url: str, tables: int, appends: int, batch: int, game: str) -> dict[str, float]:
    plan = planned_appends(game, tables, appends)
    with fresh_database(server_url, prefix="cardledger_bench") as url:
        migrate(url)
        pool = open_pool(url, min_size=1, max_size=1)
        try:
            store = EventStore(pool)
            for _index, table_id, version, events in plan:
                store.append(table_id, version, events)
        finally:
            pool.close()
        with psycopg.connect(url, autocommit=True, row_factory=dict_row) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS pg_walinspect")
            total = int(conn.execute("SELECT count(*) AS n FROM events").fetchone()["n"])  # type: ignore[index]
            slot = "bench_table_view_writes"
            conn.execute("SELECT pg_create_physical_replication_slot(%s, true, true)", (slot,))
            before, start = _updates(conn), conn.execute("SELECT pg_current_wal_insert_lsn()::text AS l").fetchone()
            applied, deadline = 0, time.monotonic() + 600
            while applied < total and time.monotonic() < deadline:
                done = projections.catch_up_all(conn, batch_size=batch)["table_views"]
                applied += done
                if not done:
                    time.sleep(0.05)  # another database's transaction holds the log's horizon back
            # Flushed: every commit of the catch-up is (synchronous commit), and pg_walinspect reads no further.
            after, end = _updates(conn), conn.execute("SELECT pg_current_wal_flush_lsn()::text AS l").fetchone()
            assert start is not None and end is not None and applied == total, (applied, total)
            dboid = conn.execute("SELECT oid FROM pg_database WHERE datname = current_database()").fetchone()
            assert dboid is not None
            records = conn.execute(_RECORDS, (str(dboid["oid"]), start["l"], end["l"], MODELS)).fetchall()
            pages = conn.execute(
                "SELECT relname, pg_relation_size(oid) / 8192 AS pages FROM pg_class WHERE relname = ANY(%s)", (MODELS,)
            ).fetchall()
    found: dict[str, float] = {"events": float(total)}
    for model in MODELS:
        updated = after.get(model, (0, 0))[0] - before.get(model, (0, 0))[0]
        hot = after.get(model, (0, 0))[1] - before.get(model, (0, 0))[1]
        found[f"{model} rows updated"], found[f"{model} rows updated HOT"] = updated, hot
        for row in records:
            if row["model"] == model:
                name = f"{model} {row['kind']} {row['resource_manager']} {row['record_type']}"
                found[name], found[f"{name} bytes"] = float(row["n"]), float(row["bytes"])
    for row in pages:
        found[f"{row['relname']} heap pages at the end"] = float(row["pages"])
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, nargs="+", default=[8, 256])
    parser.add_argument("--appends", type=int, default=4000)
    parser.add_argument("--batch", type=int, default=12, help="events per batch (a live worker's: about 12)")
    parser.add_argument("--game", default="cholek-tiga")
    args = parser.parse_args()
    server_url = __import__("os").environ.get("DATABASE_URL", "").strip() or DEFAULT_URL
    for tables in args.tables:
        got = measure(server_url, tables, args.appends, args.batch, args.game)
        n = got["events"]
        label = f"{args.game}, {tables} tables, batches of {args.batch}"
        print(f"{label}: {n:,.0f} events")
        wal = sum(value for name, value in got.items() if name.endswith(" bytes"))
        entries = sum(value for name, value in got.items() if name.endswith("index Btree INSERT_LEAF"))
        for model in MODELS:
            updated, hot = got[f"{model} rows updated"], got[f"{model} rows updated HOT"]
            print(
                f"  {model}: rows updated per event {updated / n:.3f}, HOT {hot / n:.3f} ({hot / max(updated, 1):.0%})"
            )
            print(
                f"  {model}: index entries written per event "
                f"{got.get(f'{model} index Btree INSERT_LEAF', 0) / n:.3f}; "
                f"heap pages at the end {got.get(f'{model} heap pages at the end', 0):,.0f}"
            )
        print(f"  both: index entries written per event {entries / n:.3f}; WAL bytes per event {wal / n:,.1f}")
        for name in sorted(name for name in got if not name.endswith(" bytes") and " heap " in name and "Heap" in name):
            print(f"    {name}: {got[name] / n:.3f} per event, {got[name + ' bytes'] / n:,.1f} bytes per event")


if __name__ == "__main__":
    main()
