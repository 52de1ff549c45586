"""How fast does the log take events? `EventStore.append` beside a raw single-row INSERT (jsonb, and json as
cardledger keeps it) and the `eventsourcing` library's recorder, at 1, 4 and 16 writers taking turns in slices.

Run: python -m bench.append [--seconds 3] [--writers 1 4 16] [--sync-off]
"""

from __future__ import annotations

import argparse
import json
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from typing import Any

import psycopg
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict
from psycopg.types.json import Json, Jsonb

from bench.harness import Row, fresh_database, print_table, row
from infra.db import open_pool
from infra.event_store import EventStore, NewEvent

WRITERS = (1, 4, 16)
RAW_RATIO_TARGET = 0.6
ES_RATIO_TARGET = 3.0
PAYLOAD: dict[str, Any] = {  # a card played at a Cha Kau Tsz table, as the service records it (~300 bytes of JSON)
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
RAW_TABLES = {"raw_events": ("jsonb", Jsonb), "raw_events_json": ("json", Json)}  # the raw baselines' data types
EVENT = NewEvent("card_played", PAYLOAD, deal_no=7, metadata={"ip": "203.0.113.7", "ua": "cardledger-web/1.4"})
Appender = Callable[[], None]  # appends one event to its writer's own stream
Writers = tuple[list[Appender], Callable[[], None]]  # a kind's appenders, one per writer, and its closing


def prepare(url: str, synchronous_commit: bool = True) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        if not synchronous_commit:  # every later session of the bench database, whichever library opens it
            name = sql.Identifier(conninfo_to_dict(url)["dbname"])
            conn.execute(sql.SQL("ALTER DATABASE {} SET synchronous_commit = off").format(name))
        for table, (data_type, _) in RAW_TABLES.items():
            columns = "(id bigserial PRIMARY KEY, stream_id text NOT NULL, data {} NOT NULL)"
            conn.execute(sql.SQL("CREATE TABLE {} " + columns).format(sql.Identifier(table), sql.SQL(data_type)))


def cardledger_writers(url: str, writers: int) -> Writers:
    """EventStore.append as the service calls it: a shared pool, one connection per writer thread."""
    pool = open_pool(url, min_size=writers, max_size=writers)
    store, run = EventStore(pool), uuid.uuid4().hex[:8]

    def appender(i: int) -> Appender:
        stream, head = f"cl-{run}-{i}", {"version": 0, "hash": ""}

        def append() -> None:  # like the service, the writer knows the head it decided on
            recorded = store.append(stream, head["version"], [EVENT], head_hash=head["hash"] or None)
            head.update(version=head["version"] + 1, hash=recorded[-1].hash)

        return append

    return [appender(i) for i in range(writers)], pool.close


def raw_writers(url: str, writers: int, table: str = "raw_events") -> Writers:
    """A single-row INSERT of the same payload, autocommit (one round trip, one commit)."""
    conns = [psycopg.connect(url, autocommit=True) for _ in range(writers)]
    run, wrap = uuid.uuid4().hex[:8], RAW_TABLES[table][1]
    insert = sql.SQL("INSERT INTO {} (stream_id, data) VALUES (%s, %s)").format(sql.Identifier(table))

    def appender(i: int) -> Appender:
        def append() -> None:
            conns[i].execute(insert, (f"raw-{run}-{i}", wrap(PAYLOAD)))

        return append

    def close() -> None:
        for conn in conns:
            conn.close()

    return [appender(i) for i in range(writers)], close


def eventsourcing_writers(url: str, writers: int) -> Writers:
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
    with psycopg.connect(url) as conn:
        created = conn.execute("SELECT to_regclass('es_stored_events') IS NOT NULL").fetchone()
    if not (created and created[0]):
        recorder.create_table()
    state = json.dumps({"data": PAYLOAD, "metadata": dict(EVENT.metadata)}).encode()

    def appender() -> Appender:
        originator, version = uuid.uuid4(), [1]

        def append() -> None:
            recorder.insert_events([StoredEvent(originator, version[0], "cardledger.bench:CardPlayed", state)])
            version[0] += 1

        return append

    return [appender() for _ in range(writers)], datastore.close


KINDS: dict[str, Callable[[str, int], Writers]] = {
    "cardledger": cardledger_writers,
    "raw": raw_writers,
    "raw_json": lambda url, writers: raw_writers(url, writers, "raw_events_json"),
    "eventsourcing": eventsourcing_writers,
}


def run_slice(appenders: list[Appender], seconds: float, warmup: float) -> tuple[int, float]:
    """All appenders in their own threads for `seconds` after `warmup`: (appends counted, elapsed)."""
    counts, errors = [0] * len(appenders), []
    start_line = threading.Barrier(len(appenders) + 1)
    measuring, stop = threading.Event(), threading.Event()

    def loop(i: int) -> None:
        try:
            start_line.wait()
            while not stop.is_set():
                appenders[i]()
                counts[i] += measuring.is_set()
        except BaseException as exc:
            errors.append(exc)
            stop.set()

    threads = [threading.Thread(target=loop, args=(i,), daemon=True) for i in range(len(appenders))]
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


def measure(kinds: list[str], url: str, writers: int, seconds: float, slices: int = 3) -> dict[str, float]:
    """Events/s of each kind at `writers` threads, about `seconds` each, measured in interleaved slices."""
    setups = {name: KINDS[name](url, writers) for name in kinds}
    totals = dict.fromkeys(kinds, (0, 0.0))
    try:
        for _ in range(slices):
            for name, (appenders, _) in setups.items():
                count, elapsed = run_slice(appenders, seconds / slices, warmup=0.2)
                totals[name] = (totals[name][0] + count, totals[name][1] + elapsed)
    finally:
        for _, close in setups.values():
            close()
    return {name: count / elapsed for name, (count, elapsed) in totals.items()}


def run(seconds: float = 3.0, writers: Sequence[int] = WRITERS, synchronous_commit: bool = True) -> list[Row]:
    try:
        import eventsourcing.postgres  # noqa: F401

        es_missing = None
    except ImportError as exc:
        es_missing = f"eventsourcing[postgres] not installed ({exc})"
    kinds = ["cardledger", "raw", "raw_json"] + ([] if es_missing else ["eventsourcing"])
    rows: list[Row] = []
    with fresh_database() as url:
        prepare(url, synchronous_commit)
        for n in writers:
            rate = measure(kinds, url, n, seconds)
            cardledger = rate["cardledger"]
            rows += [
                row(f"cardledger EventStore.append, {n} writers", cardledger, "events/s"),
                row(f"raw single-row INSERT, {n} writers", rate["raw"], "events/s"),
                row(f"cardledger / raw, {n} writers", cardledger / rate["raw"], "ratio", RAW_RATIO_TARGET),
                row(f"raw INSERT into a json column, {n} writers", rate["raw_json"], "events/s"),
                row(f"cardledger / raw into json, {n} writers", cardledger / rate["raw_json"], "ratio"),
            ]
            es_ratio = f"cardledger / eventsourcing, {n} writers"
            if es_missing:
                rows.append(row(es_ratio, None, "ratio", skipped=es_missing))
                continue
            rows += [
                row(f"eventsourcing PostgresApplicationRecorder, {n} writers", rate["eventsourcing"], "events/s"),
                row(es_ratio, cardledger / rate["eventsourcing"], "ratio", ES_RATIO_TARGET if n >= 4 else None),
            ]
    return rows


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=3.0, help="measuring time per point")
    parser.add_argument("--writers", type=int, nargs="*", default=list(WRITERS))
    parser.add_argument("--sync-off", action="store_true", help="synchronous_commit=off for every side")
    args = parser.parse_args()
    print_table(run(args.seconds, args.writers, synchronous_commit=not args.sync_off))
