"""Append throughput of cardledger's event store beside a raw INSERT and the `eventsourcing` library.

Run: python -m bench.append            (the table of rows; about 1 minute)
     python -m bench.append --profile  (also the time per round trip of one append, and prototypes)

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
- eventsourcing's PostgresApplicationRecorder.insert_events (if the package is
  installed) and the ratio cardledger/eventsourcing (target >= 3.0 at 4 and 16);
- "prototype" rows: the same append done in two round trips with psycopg's
  pipeline mode (see `PipelinedAppend`), to measure the proposal made for
  infra/event_store.py without changing it.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

import psycopg
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict, make_conninfo
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from domain.hashchain import GENESIS_HASH, event_hash, hashed_fields
from infra.db import open_pool
from infra.errors import VersionConflict
from infra.event_store import _COLUMNS, EventStore, NewEvent, RecordedEvent, _recorded
from infra.migrations import migrate

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
EVENT = NewEvent("card_played", PAYLOAD, deal_no=7, metadata={"ip": "203.0.113.7", "ua": "cardledger-web/1.4"})


# --- Databases -------------------------------------------------------------------------------------------------------


@contextmanager
def fresh_database(server_url: str) -> Iterator[str]:
    name = f"cardledger_bench_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield make_conninfo(server_url, dbname=name)
    finally:
        with psycopg.connect(server_url, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


def prepare(url: str, synchronous_commit: bool = True) -> None:
    migrate(url)
    with psycopg.connect(url, autocommit=True) as conn:
        if not synchronous_commit:  # every later session of the bench database, whichever library opens it
            name = conninfo_to_dict(url)["dbname"]
            conn.execute(sql.SQL("ALTER DATABASE {} SET synchronous_commit = off").format(sql.Identifier(name)))
        conn.execute("CREATE TABLE raw_events (id bigserial PRIMARY KEY, stream_id text NOT NULL, data jsonb NOT NULL)")


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


def raw_writers(url: str, writers: int) -> tuple[list[Appender], Callable[[], None]]:
    """A single-row INSERT of the same payload, autocommit (one round trip, one commit)."""
    conns = [psycopg.connect(url, autocommit=True) for _ in range(writers)]
    run = uuid.uuid4().hex[:8]

    def appender(i: int) -> Appender:
        conn, stream = conns[i], f"raw-{run}-{i}"

        def append() -> None:
            conn.execute("INSERT INTO raw_events (stream_id, data) VALUES (%s, %s)", (stream, Jsonb(PAYLOAD)))

        return append

    def close() -> None:
        for conn in conns:
            conn.close()

    return [appender(i) for i in range(writers)], close


class PipelinedAppend:
    """Prototype of EventStore.append_in in two round trips (pipeline mode), same rows and checks.

    Round trip 1: BEGIN, INSERT streams ... ON CONFLICT DO NOTHING (new streams only), SELECT ... FOR UPDATE.
    Round trip 2: one multi-row INSERT ... RETURNING of all the events, UPDATE streams, (idempotency INSERT),
    COMMIT. The hashes need the head's last_hash, so they are computed between the two.
    """

    def __init__(self, conn: psycopg.Connection[dict[str, Any]]) -> None:
        self.conn = conn

    def append(self, stream_id: str, expected_version: int, events: Sequence[NewEvent]) -> list[RecordedEvent]:
        conn = self.conn
        with conn.pipeline() as pipeline:
            conn.execute("BEGIN")
            if expected_version == 0:
                conn.execute(
                    "INSERT INTO streams (stream_id, version, last_hash) VALUES (%s, 0, %s) ON CONFLICT DO NOTHING",
                    (stream_id, GENESIS_HASH),
                )
            head_cur = conn.execute(
                "SELECT version, last_hash FROM streams WHERE stream_id = %s FOR UPDATE", (stream_id,)
            )
            pipeline.sync()
            head = head_cur.fetchone()
            if head is None or head["version"] != expected_version:
                conn.execute("ROLLBACK")
                pipeline.sync()
                raise VersionConflict(stream_id, expected_version, None if head is None else int(head["version"]))
            prev_hash = str(head["last_hash"])
            now = datetime.now(UTC)
            params: list[Any] = []
            values = []
            for offset, new in enumerate(events):
                version = expected_version + offset + 1
                fields = hashed_fields(
                    stream_id, version, new.type, new.schema_version, new.deal_no, new.data, new.metadata, now
                )
                digest = event_hash(prev_hash, fields)
                values.append("(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)")
                params += [
                    stream_id,
                    version,
                    new.type,
                    new.schema_version,
                    new.deal_no,
                    Jsonb(dict(new.data)),
                    Jsonb(dict(new.metadata)),
                    now,
                    prev_hash,
                    digest,
                ]
                prev_hash = digest
            insert_cur = conn.execute(
                f"""INSERT INTO events (stream_id, version, type, schema_version, deal_no, data, metadata,
                                        occurred_at, prev_hash, hash)
                    VALUES {", ".join(values)} RETURNING {_COLUMNS}""",
                params,
            )
            conn.execute(
                "UPDATE streams SET version = %s, last_hash = %s WHERE stream_id = %s",
                (expected_version + len(events), prev_hash, stream_id),
            )
            conn.execute("COMMIT")
            pipeline.sync()
            rows = insert_cur.fetchall()
        return [_recorded(row) for row in rows]


class SingleStatementAppend:
    """Prototype of EventStore.append_in as one read and one atomic write statement, no BEGIN/COMMIT round trips.

    1. Read the head (autocommit, no lock): SELECT version, last_hash FROM streams.
    2. Compute the hashes, then one statement (its own transaction in autocommit mode) that moves the head only
       if it is still where it was read (compare-and-set on version and last_hash) and inserts the events only
       if it did; zero rows back means another writer got there first -> VersionConflict. A new stream uses
       INSERT ... ON CONFLICT DO NOTHING as the compare-and-set. The unique (stream_id, version) stays the last
       line of defence; an idempotency key would be one more CTE (a plain INSERT whose unique violation maps
       to IdempotencyKeyTaken).
    """

    def __init__(self, conn: psycopg.Connection[dict[str, Any]]) -> None:
        self.conn = conn

    def append(self, stream_id: str, expected_version: int, events: Sequence[NewEvent]) -> list[RecordedEvent]:
        conn = self.conn
        if expected_version == 0:
            prev_hash = GENESIS_HASH
        else:
            head = conn.execute("SELECT version, last_hash FROM streams WHERE stream_id = %s", (stream_id,)).fetchone()
            if head is None or head["version"] != expected_version:
                raise VersionConflict(stream_id, expected_version, None if head is None else int(head["version"]))
            prev_hash = str(head["last_hash"])
        first_prev = prev_hash
        now = datetime.now(UTC)
        params: list[Any] = []
        values = []
        for offset, new in enumerate(events):
            version = expected_version + offset + 1
            fields = hashed_fields(
                stream_id, version, new.type, new.schema_version, new.deal_no, new.data, new.metadata, now
            )
            digest = event_hash(prev_hash, fields)
            values.append("(%s::int, %s::text, %s::smallint, %s::int, %s::jsonb, %s::jsonb, %s::text, %s::text)")
            params += [
                version,
                new.type,
                new.schema_version,
                new.deal_no,
                Jsonb(dict(new.data)),
                Jsonb(dict(new.metadata)),
                prev_hash,
                digest,
            ]
            prev_hash = digest
        new_version = expected_version + len(events)
        if expected_version == 0:
            move_head = "INSERT INTO streams (stream_id, version, last_hash) VALUES (%s, %s, %s) ON CONFLICT DO NOTHING"
            head_params: list[Any] = [stream_id, new_version, prev_hash]
        else:
            move_head = (
                "UPDATE streams SET version = %s, last_hash = %s"
                " WHERE stream_id = %s AND version = %s AND last_hash = %s"
            )
            head_params = [new_version, prev_hash, stream_id, expected_version, first_prev]
        rows = conn.execute(
            f"""WITH head AS ({move_head} RETURNING stream_id)
                INSERT INTO events (stream_id, version, type, schema_version, deal_no, data, metadata,
                                    occurred_at, prev_hash, hash)
                SELECT head.stream_id, v.version, v.type, v.schema_version, v.deal_no, v.data, v.metadata,
                       %s::timestamptz, v.prev_hash, v.hash
                FROM head, (VALUES {", ".join(values)})
                     AS v(version, type, schema_version, deal_no, data, metadata, prev_hash, hash)
                ORDER BY v.version
                RETURNING {_COLUMNS}""",
            [*head_params, now, *params],
        ).fetchall()
        if not rows:
            head = conn.execute("SELECT version FROM streams WHERE stream_id = %s", (stream_id,)).fetchone()
            raise VersionConflict(stream_id, expected_version, None if head is None else int(head["version"]))
        return [_recorded(row) for row in rows]


def single_statement_writers(url: str, writers: int) -> tuple[list[Appender], Callable[[], None]]:
    conns = [psycopg.connect(url, autocommit=True, row_factory=dict_row) for _ in range(writers)]
    run = uuid.uuid4().hex[:8]

    def appender(i: int) -> Appender:
        proto, stream, version = SingleStatementAppend(conns[i]), f"ss-{run}-{i}", [0]

        def append() -> None:
            proto.append(stream, version[0], [EVENT])
            version[0] += 1

        return append

    def close() -> None:
        for conn in conns:
            conn.close()

    return [appender(i) for i in range(writers)], close


def pipelined_writers(url: str, writers: int) -> tuple[list[Appender], Callable[[], None]]:
    conns = [psycopg.connect(url, autocommit=True, row_factory=dict_row) for _ in range(writers)]
    run = uuid.uuid4().hex[:8]

    def appender(i: int) -> Appender:
        proto, stream, version = PipelinedAppend(conns[i]), f"pl-{run}-{i}", [0]

        def append() -> None:
            proto.append(stream, version[0], [EVENT])
            version[0] += 1

        return append

    def close() -> None:
        for conn in conns:
            conn.close()

    return [appender(i) for i in range(writers)], close


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


def eventsourcing_available() -> str | None:
    """None when eventsourcing's PostgreSQL recorder can be imported, else the reason it cannot."""
    try:
        import eventsourcing.postgres  # noqa: F401
    except ImportError as exc:
        return f"eventsourcing[postgres] not installed ({exc})"
    return None


def run(
    seconds: float = 3.0, writers: Sequence[int] = WRITERS, prototypes: bool = True, synchronous_commit: bool = True
) -> list[dict[str, Any]]:
    server_url = os.environ.get("DATABASE_URL", DEFAULT_URL)
    es_missing = eventsourcing_available()
    rows: list[dict[str, Any]] = []
    kinds: dict[str, Kind] = {"cardledger": cardledger_writers, "raw": raw_writers}
    if es_missing is None:
        kinds["eventsourcing"] = eventsourcing_writers
    if prototypes:
        kinds["pipelined"] = pipelined_writers
        kinds["single"] = single_statement_writers
    with fresh_database(server_url) as url:
        prepare(url, synchronous_commit)
        for n in writers:
            rate = measure(kinds, url, n, seconds)
            cardledger, raw = rate["cardledger"], rate["raw"]
            rows += [
                row(f"cardledger EventStore.append, {n} writers", cardledger, None, "events/s"),
                row(f"raw single-row INSERT, {n} writers", raw, None, "events/s"),
                row(f"cardledger / raw, {n} writers", cardledger / raw, RAW_RATIO_TARGET, "ratio"),
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
            if prototypes:
                rows += [
                    row(f"prototype: pipelined 2-round-trip append, {n} writers", rate["pipelined"], None, "events/s"),
                    row(f"prototype pipelined / raw, {n} writers", rate["pipelined"] / raw, None, "ratio"),
                    row(f"prototype: read + 1 atomic statement, {n} writers", rate["single"], None, "events/s"),
                    row(f"prototype single-statement / raw, {n} writers", rate["single"] / raw, None, "ratio"),
                ]
    return rows


def row(
    benchmark: str, value: float | None, target: float | None, unit: str, skipped: str | None = None
) -> dict[str, Any]:
    result: dict[str, Any] = {"benchmark": benchmark, "value": value, "target": target, "unit": unit}
    if skipped is not None:
        result["skipped"] = skipped
    return result


# --- Profile of one append -------------------------------------------------------------------------------------------


def profile(url: str, seconds: float = 2.0) -> list[tuple[str, float]]:
    """Median microseconds per step of EventStore.append_in's work, replayed step by step on one connection."""
    steps: dict[str, list[float]] = {}

    def lap(name: str, began: float) -> float:
        now = time.perf_counter()
        steps.setdefault(name, []).append((now - began) * 1e6)
        return now

    insert = f"""INSERT INTO events (stream_id, version, type, schema_version, deal_no, data, metadata,
                                     occurred_at, prev_hash, hash)
                 VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s) RETURNING {_COLUMNS}"""
    store = EventStore(None)  # type: ignore[arg-type]  # _lock_head only uses the connection it is given
    stream, version = f"prof-{uuid.uuid4().hex[:8]}", 0
    with psycopg.connect(url, row_factory=dict_row) as conn:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            start = t = time.perf_counter()
            conn.execute("BEGIN")
            t = lap("BEGIN", t)
            head = store._head_hash(conn, stream, version)
            t = lap("SELECT streams head (INSERT ON CONFLICT when new)", t)
            now = datetime.now(UTC)
            fields = hashed_fields(stream, version + 1, EVENT.type, 1, EVENT.deal_no, EVENT.data, EVENT.metadata, now)
            digest = event_hash(head, fields)
            t = lap("hash chain in Python", t)
            meta = Jsonb(dict(EVENT.metadata))
            conn.execute(insert, (stream, version + 1, EVENT.type, 1, 7, Jsonb(PAYLOAD), meta, now, head, digest))
            t = lap("INSERT events RETURNING", t)
            conn.execute(
                "UPDATE streams SET version = %s, last_hash = %s WHERE stream_id = %s", (version + 1, digest, stream)
            )
            t = lap("UPDATE streams", t)
            conn.commit()
            lap("COMMIT", t)
            lap("whole append", start)
            version += 1
    with psycopg.connect(url, autocommit=True) as raw:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            t = time.perf_counter()
            raw.execute("INSERT INTO raw_events (stream_id, data) VALUES (%s, %s)", ("p", Jsonb(PAYLOAD)))
            lap("raw INSERT, autocommit (for comparison)", t)
        deadline = time.monotonic() + seconds / 2
        while time.monotonic() < deadline:
            t = time.perf_counter()
            raw.execute("SELECT 1")
            lap("SELECT 1 (one round trip)", t)
    return [(name, statistics.median(times)) for name, times in steps.items()]


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
    parser.add_argument("--no-prototypes", action="store_true", help="skip the pipelined prototype rows")
    parser.add_argument("--profile", action="store_true", help="also time each round trip of one append")
    parser.add_argument(
        "--sync-off",
        action="store_true",
        help="synchronous_commit=off for every side (diagnostic: statement cost without the WAL flush wait)",
    )
    args = parser.parse_args()
    print(
        f"payload {PAYLOAD_BYTES} bytes of JSON, {args.seconds:g} s per point, threads with one connection each"
        + (", synchronous_commit=off" if args.sync_off else "")
    )
    print_table(run(args.seconds, args.writers, not args.no_prototypes, synchronous_commit=not args.sync_off))
    if args.profile:
        with fresh_database(os.environ.get("DATABASE_URL", DEFAULT_URL)) as url:
            prepare(url, synchronous_commit=not args.sync_off)
            print("\nmedian microseconds per step of one append (1 writer):")
            for name, micros in profile(url):
                print(f"  {name:<62} {micros:>9,.0f}")


if __name__ == "__main__":
    main()
