"""Commit safety: a transaction that commits after later ones is never skipped by the relay or a projection."""

from __future__ import annotations

import threading

import psycopg
from psycopg.rows import dict_row

from infra import projections, redis_bus
from infra.event_store import EventStore, NewEvent
from infra.projections.checkpoint import checkpoint_name, read_position
from services.relay import RELAY_POSITION, Relay
from tests.faults.servers import RedisServer, wait_until


def write_streams(store: EventStore, prefix: str, writers: int, appends: int) -> None:
    def write(w: int) -> None:
        for n in range(appends):
            store.append(f"{prefix}{w}", n, [NewEvent("plain", {"n": n})])

    threads = [threading.Thread(target=write, args=(w,)) for w in range(writers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def test_a_late_commit_is_never_skipped(store: EventStore, db_url: str, redis_server: RedisServer) -> None:
    client = redis_server.client()
    stop = threading.Event()
    relay = Relay(db_url, redis_server.url, stop, poll_interval=0.05)
    thread = threading.Thread(target=relay.run, daemon=True)
    thread.start()
    try:
        write_streams(store, "early", writers=4, appends=5)  # committed before the held transaction began
        with (
            psycopg.connect(db_url, row_factory=dict_row) as held,
            psycopg.connect(db_url, autocommit=True, row_factory=dict_row) as reader,
        ):
            (late,) = store.append_in(held, "held", 0, [NewEvent("late", {"seat": 0, "private": {"x": 1}})])
            write_streams(store, "later", writers=8, appends=25)  # later transactions, committed first
            wait_until(lambda: client.xlen(redis_bus.GLOBAL_STREAM) == 20, what="events before the held one")
            applied_before = projections.catch_up(reader, "table_views")
            threading.Event().wait(0.5)  # give the relay time to (wrongly) move on
            assert client.xlen(redis_bus.GLOBAL_STREAM) == 20
            assert read_position(reader, RELAY_POSITION).tx_id < late.tx_id
            assert applied_before == 20
            held.commit()
            total = 1 + 20 + 200
            wait_until(lambda: client.xlen(redis_bus.GLOBAL_STREAM) == total, what="every event after the commit")
            assert projections.catch_up(reader, "table_views") == total - 20
            for name in projections.NAMES:
                projections.catch_up(reader, name)
                assert read_position(reader, checkpoint_name(name)) == read_position(reader, RELAY_POSITION)
            in_db = [
                r["global_position"]
                for r in reader.execute("SELECT global_position FROM events ORDER BY tx_id, global_position")
            ]
        bodies = [body for _id, body in redis_bus.range_stream(client, redis_bus.GLOBAL_STREAM)]
        assert [b["global_position"] for b in bodies] == in_db
        assert late.global_position in in_db and late.global_position < max(in_db)
        assert [b["type"] for b in bodies if b["table_id"] == "held"] == ["late"]
        assert all("private" not in b["data"] for b in bodies)
    finally:
        stop.set()
        thread.join(timeout=30)
        client.close()
