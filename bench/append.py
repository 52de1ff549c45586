"""Append throughput of cardledger's event store beside a raw INSERT and the `eventsourcing` library.

Run: python -m bench.append            (the table of rows; about 1 minute)
     python -m bench.append --processes (each writer a process instead of a thread)

Every point runs `writers` threads for about `seconds`, each writer with its own
connection and its own stream, one ~300-byte JSON event per append (one
transaction, one commit each). The database is a fresh one created on
DATABASE_URL's server (default postgresql://postgres@127.0.0.1:5432/postgres)
and dropped at the end.

Rows:
- cardledger EventStore.append events/s at 1, 4, 16 writers;
- raw single-row INSERT (autocommit) of the same payload into a plain table
  (bigserial id, text, jsonb) at the same concurrency, and the ratio
  cardledger/raw (target >= 0.6);
- the same INSERT into a json column instead (no target): cardledger keeps an
  event's data as json, which PostgreSQL checks but does not take apart, so this
  row shows the ratio against a baseline that saves that work too;
- eventsourcing's PostgresApplicationRecorder.insert_events (if the package is
  installed) and the ratio cardledger/eventsourcing (target >= 3.0 at 4 and 16).

Each cardledger writer passes the head hash of its last append, as the
application service does with the events it loaded, so an append is one
guarded statement.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from typing import Any

import psycopg
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict
from psycopg.types.json import Json, Jsonb

from infra.db import open_pool
from infra.event_store import EventStore, NewEvent
from infra.migrations import migrate
from tests.conftest import fresh_database

DEFAULT_URL = "postgresql://postgres@127.0.0.1:5432/postgres"
WRITERS = (1, 4, 16)
RAW_RATIO_TARGET = 0.6
ES_RATIO_TARGET = 3.0

# A card played at a Cha Kau Tsz table, as the service records it (~300 bytes of JSON).
PAYLOAD: dict[str, Any] = {
    "table_id": "tbl_01HZX4Q9R7C2M8N5K3J6W1V0TB",
    "deal_no": 7,
    "trick_no": 3,
    "seat": 2,
    "player_id": "plr_01HZX4QA2B6D9F1G3H5J7K9M0N",
    "cards": ["9D", "9H"],
    "combination": "pair",
    "beats": {"seat": 1, "cards": ["8S", "8C"]},
    "hand_size_after": 11,
    "next_seat": 3,
    "client_seq": 4182,
    "request_id": "req_5f1c2a9e7b3d4c6a8e0f",
}
PAYLOAD_BYTES = len(json.dumps(PAYLOAD))
# The raw baselines' tables: the data column's type, by table.
RAW_TABLES = {"raw_events": "jsonb", "raw_events_json": "json"}
EVENT = NewEvent("card_played", PAYLOAD, deal_no=7, metadata={"ip": "203.0.113.7", "ua": "cardledger-web/1.4"})


# --- Databases -------------------------------------------------------------------------------------------------------


def prepare(url: str, synchronous_commit: bool = True) -> None:
    migrate(url)
    with psycopg.connect(url, autocommit=True) as conn:
        if not synchronous_commit:  # every later session of the bench database, whichever library opens it
            name = conninfo_to_dict(url)["dbname"]
            conn.execute(sql.SQL("ALTER DATABASE {} SET synchronous_commit = off").format(sql.Identifier(name)))
        for table, data_type in RAW_TABLES.items():
            conn.execute(
                sql.SQL("CREATE TABLE {} (id bigserial PRIMARY KEY, stream_id text NOT NULL, data {} NOT NULL)").format(
                    sql.Identifier(table), sql.SQL(data_type)
                )
            )


# --- Writers ---------------------------------------------------------------------------------------------------------
# A writer kind is a factory: given the database URL and the number of writers, it returns (appenders, close);
# appenders[i]() appends one event to writer i's own stream.

Appender = Callable[[], None]
Kind = Callable[[str, int], tuple[list[Appender], Callable[[], None]]]


def cardledger_writers(url: str, writers: int) -> tuple[list[Appender], Callable[[], None]]:
    """EventStore.append as the service calls it: a shared pool, one connection per writer thread."""
    pool = open_pool(url, min_size=writers, max_size=writers)
    store = EventStore(pool)
    run = uuid.uuid4().hex[:8]

    def appender(i: int) -> Appender:
        stream, version = f"cl-{run}-{i}", [0]
        head: list[str | None] = [None]

        def append() -> None:
            # Like the service, the writer knows the head it decided on (the last event it read or wrote).
            recorded = store.append(stream, version[0], [EVENT], head_hash=head[0])
            version[0] += 1
            head[0] = recorded[-1].hash

        return append

    return [appender(i) for i in range(writers)], pool.close


def raw_writers(url: str, writers: int, table: str = "raw_events") -> tuple[list[Appender], Callable[[], None]]:
    """A single-row INSERT of the same payload, autocommit (one round trip, one commit)."""
    conns = [psycopg.connect(url, autocommit=True) for _ in range(writers)]
    run = uuid.uuid4().hex[:8]
    insert = sql.SQL("INSERT INTO {} (stream_id, data) VALUES (%s, %s)").format(sql.Identifier(table))
    wrap = Jsonb if RAW_TABLES[table] == "jsonb" else Json

    def appender(i: int) -> Appender:
        conn, stream = conns[i], f"raw-{run}-{i}"

        def append() -> None:
            conn.execute(insert, (stream, wrap(PAYLOAD)))

        return append

    def close() -> None:
        for conn in conns:
            conn.close()

    return [appender(i) for i in range(writers)], close


def raw_json_writers(url: str, writers: int) -> tuple[list[Appender], Callable[[], None]]:
    return raw_writers(url, writers, "raw_events_json")


def eventsourcing_writers(url: str, writers: int) -> tuple[list[Appender], Callable[[], None]]:
    """eventsourcing's PostgresApplicationRecorder (it has a global notification log, as cardledger has)."""
    from eventsourcing.persistence import StoredEvent
    from eventsourcing.postgres import PostgresApplicationRecorder, PostgresDatastore

    params = conninfo_to_dict(url)
    datastore = PostgresDatastore(
        dbname=str(params["dbname"]),
        host=str(params.get("host", "127.0.0.1")),
        port=str(params.get("port", "5432")),
        user=str(params.get("user", "postgres")),
        password=str(params.get("password", "")),
        pool_size=writers,
    )
    recorder = PostgresApplicationRecorder(datastore, events_table_name="es_stored_events")
    with psycopg.connect(url) as conn:  # once: writer processes creating it at the same time collide
        created = conn.execute("SELECT to_regclass('es_stored_events') IS NOT NULL").fetchone()
    if not (created and created[0]):
        recorder.create_table()
    state = json.dumps({"data": PAYLOAD, "metadata": dict(EVENT.metadata)}).encode()
    topic = "cardledger.bench:CardPlayed"

    def appender(_: int) -> Appender:
        originator, version = uuid.uuid4(), [1]

        def append() -> None:
            recorder.insert_events([StoredEvent(originator, version[0], topic, state)])
            version[0] += 1

        return append

    return [appender(i) for i in range(writers)], datastore.close


# --- Measuring -------------------------------------------------------------------------------------------------------


def _run_slice(appenders: list[Appender], seconds: float, warmup: float) -> tuple[int, float]:
    """All appenders in their own threads for `seconds` after `warmup`; returns (appends counted, elapsed)."""
    writers = len(appenders)
    counts = [0] * writers
    errors: list[BaseException] = []
    start_line = threading.Barrier(writers + 1)
    measuring = threading.Event()
    stop = threading.Event()

    def loop(i: int) -> None:
        append = appenders[i]
        try:
            start_line.wait()
            while not stop.is_set():
                append()
                if measuring.is_set():
                    counts[i] += 1
        except BaseException as exc:
            errors.append(exc)
            stop.set()

    threads = [threading.Thread(target=loop, args=(i,), daemon=True) for i in range(writers)]
    for thread in threads:
        thread.start()
    start_line.wait()
    time.sleep(warmup)
    measuring.set()
    began = time.perf_counter()
    time.sleep(seconds)
    measuring.clear()
    elapsed = time.perf_counter() - began
    stop.set()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
    return sum(counts), elapsed


def measure(kinds: dict[str, Kind], url: str, writers: int, seconds: float, slices: int = 3) -> dict[str, float]:
    """Events/s of each kind at `writers` threads, about `seconds` each, measured in interleaved slices.

    The machine may be shared, so the kinds take turns (a, b, c, a, b, c, ...) and each total is the sum of its
    slices: a burst of outside load then hurts every kind about equally instead of one point.
    """
    setups = {name: kind(url, writers) for name, kind in kinds.items()}
    totals = dict.fromkeys(kinds, (0, 0.0))
    try:
        for _ in range(slices):
            for name, (appenders, _close) in setups.items():
                count, elapsed = _run_slice(appenders, seconds / slices, warmup=0.2)
                totals[name] = (totals[name][0] + count, totals[name][1] + elapsed)
    finally:
        for _appenders, close in setups.values():
            close()
    return {name: count / elapsed for name, (count, elapsed) in totals.items()}


def _process_writer(kind: Kind, url: str, ready: Any, stop: Any, counts: Any) -> None:
    """One writer process: its own kind's writer (connection, stream), warmed up, then appends until `stop`.
    Puts its count of appends on `counts`, or the error that stopped it."""
    close: Callable[[], None] | None = None
    try:
        appenders, close = kind(url, 1)
        append, count = appenders[0], 0
        for _ in range(20):  # the stream exists and the statements are prepared before the clock starts
            append()
        ready.wait()
        while not stop.is_set():
            append()
            count += 1
        counts.put(count)
    except BaseException as exc:
        ready.abort()
        counts.put(f"{type(exc).__name__}: {exc}")
    finally:
        if close is not None:
            close()


def measure_processes(
    kinds: dict[str, Kind], url: str, writers: int, seconds: float, slices: int = 3
) -> dict[str, float]:
    """As `measure`, with each writer a process of its own (no GIL shared between writers)."""
    context = multiprocessing.get_context("fork")
    for kind in kinds.values():  # once here, so that the writers do not all create the same tables at once
        kind(url, 1)[1]()
    totals = dict.fromkeys(kinds, (0, 0.0))
    for _ in range(slices):
        for name, kind in kinds.items():
            ready, stop, counts = context.Barrier(writers + 1), context.Event(), context.Queue()
            processes = [
                context.Process(target=_process_writer, args=(kind, url, ready, stop, counts), daemon=True)
                for _ in range(writers)
            ]
            for process in processes:
                process.start()
            try:
                ready.wait(timeout=60)
            except threading.BrokenBarrierError:
                stop.set()
                raise RuntimeError(f"a {name} writer process failed: {counts.get(timeout=10)}") from None
            began = time.perf_counter()
            time.sleep(seconds / slices)
            stop.set()
            elapsed = time.perf_counter() - began
            results = [counts.get(timeout=60) for _ in processes]
            for process in processes:
                process.join(timeout=60)
            failed = [r for r in results if isinstance(r, str)]
            if failed:
                raise RuntimeError(f"a {name} writer process failed: {failed[0]}")
            totals[name] = (totals[name][0] + sum(results), totals[name][1] + elapsed)
    return {name: count / elapsed for name, (count, elapsed) in totals.items()}


def eventsourcing_available() -> str | None:
    """None when eventsourcing's PostgreSQL recorder can be imported, else the reason it cannot."""
    try:
        import eventsourcing.postgres  # noqa: F401
    except ImportError as exc:
        return f"eventsourcing[postgres] not installed ({exc})"
    return None


def run(
    seconds: float = 3.0, writers: Sequence[int] = WRITERS, synchronous_commit: bool = True, processes: bool = False
) -> list[dict[str, Any]]:
    server_url = os.environ.get("DATABASE_URL", DEFAULT_URL)
    es_missing = eventsourcing_available()
    rows: list[dict[str, Any]] = []
    kinds: dict[str, Kind] = {"cardledger": cardledger_writers, "raw": raw_writers, "raw_json": raw_json_writers}
    if es_missing is None:
        kinds["eventsourcing"] = eventsourcing_writers
    with fresh_database(server_url, prefix="cardledger_bench") as url:
        prepare(url, synchronous_commit)
        for n in writers:
            rate = (measure_processes if processes else measure)(kinds, url, n, seconds)
            cardledger, raw = rate["cardledger"], rate["raw"]
            rows += [
                row(f"cardledger EventStore.append, {n} writers", cardledger, None, "events/s"),
                row(f"raw single-row INSERT, {n} writers", raw, None, "events/s"),
                row(f"cardledger / raw, {n} writers", cardledger / raw, RAW_RATIO_TARGET, "ratio"),
                row(f"raw INSERT into a json column, {n} writers", rate["raw_json"], None, "events/s"),
                row(f"cardledger / raw into json, {n} writers", cardledger / rate["raw_json"], None, "ratio"),
            ]
            if es_missing is None:
                es = rate["eventsourcing"]
                rows += [
                    row(f"eventsourcing PostgresApplicationRecorder, {n} writers", es, None, "events/s"),
                    row(
                        f"cardledger / eventsourcing, {n} writers",
                        cardledger / es,
                        ES_RATIO_TARGET if n >= 4 else None,
                        "ratio",
                    ),
                ]
            else:
                rows.append(row(f"cardledger / eventsourcing, {n} writers", None, None, "ratio", es_missing))
    return rows


def row(
    benchmark: str, value: float | None, target: float | None, unit: str, skipped: str | None = None
) -> dict[str, Any]:
    result: dict[str, Any] = {"benchmark": benchmark, "value": value, "target": target, "unit": unit}
    if skipped is not None:
        result["skipped"] = skipped
    return result


# --- Profile of one append -------------------------------------------------------------------------------------------


def print_table(rows: list[dict[str, Any]]) -> None:
    width = max(len(r["benchmark"]) for r in rows)
    print(f"{'benchmark':<{width}}  {'value':>10}  {'target':>7}  unit")
    for r in rows:
        if r["value"] is None:
            print(f"{r['benchmark']:<{width}}  {'skipped':>10}  {'-':>7}  {r['unit']}  ({r.get('skipped', '')})")
            continue
        value = f"{r['value']:,.2f}" if r["unit"] == "ratio" else f"{r['value']:,.0f}"
        target = "-" if r["target"] is None else f">={r['target']}"
        met = "" if r["target"] is None else ("  ok" if r["value"] >= r["target"] else "  BELOW TARGET")
        print(f"{r['benchmark']:<{width}}  {value:>10}  {target:>7}  {r['unit']}{met}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=3.0, help="measuring time per point")
    parser.add_argument("--writers", type=int, nargs="*", default=list(WRITERS))
    parser.add_argument(
        "--processes",
        action="store_true",
        help="each writer a process of its own instead of a thread (diagnostic: no GIL shared between writers)",
    )
    parser.add_argument(
        "--sync-off",
        action="store_true",
        help="synchronous_commit=off for every side (diagnostic: statement cost without the WAL flush wait)",
    )
    args = parser.parse_args()
    print(
        f"payload {PAYLOAD_BYTES} bytes of JSON, {args.seconds:g} s per point, "
        + ("processes" if args.processes else "threads")
        + " with one connection each"
        + (", synchronous_commit=off" if args.sync_off else "")
    )
    print_table(run(args.seconds, args.writers, synchronous_commit=not args.sync_off, processes=args.processes))


if __name__ == "__main__":
    main()
