"""The relay against real PostgreSQL and a private redis-server: order, redaction, restarts, outages, standby."""

from __future__ import annotations

import json
import signal
import threading
import time
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
import redis
from psycopg.rows import dict_row
from rq import Queue

from infra import queueing, redis_bus
from infra.event_store import EventStore, NewEvent
from infra.projections.checkpoint import LOG_CHANNEL, RELAY_ASLEEP_KEY, read_position
from services.relay import RELAY_LOCK_KEY, RELAY_POSITION, Relay
from services.relay.relay import EVENTS_PER_LOOK, MAX_POLL_INTERVAL_S, POLL_INTERVAL_S
from tests.faults.servers import RedisServer, spawn, terminate, wait_until
from tests.horizon import wait_until_readable


@pytest.fixture(scope="module")
def redis_server() -> Iterator[RedisServer]:
    server = RedisServer()
    server.start()
    yield server
    server.stop()


@pytest.fixture
def rclient(redis_server: RedisServer) -> Iterator[redis.Redis]:
    if redis_server.process is None:
        redis_server.start()
    client = redis_server.client()
    client.flushdb()
    yield client
    client.close()


class RelayThread:
    def __init__(self, database_url: str, redis_url: str, **kwargs: Any) -> None:
        self.stop = threading.Event()
        kwargs.setdefault("poll_interval", 0.05)
        self.relay = Relay(database_url, redis_url, self.stop, **kwargs)
        self.thread = threading.Thread(target=self.relay.run, daemon=True)

    def __enter__(self) -> RelayThread:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join(timeout=30)
        assert not self.thread.is_alive(), "relay did not stop"


def secret_event(seat: int, n: int) -> NewEvent:
    return NewEvent("card_drawn", {"seat": seat, "n": n, "private": {"cards": [f"SECRET{n}"]}})


def append_many(store: EventStore, streams: int, per_stream: int) -> None:
    """`per_stream` appends of two events (one with a private part) to each of `streams` streams, interleaved."""
    for _ in range(per_stream):
        for s in range(streams):
            version = store.stream_version(f"table-{s}") or 0
            store.append(f"table-{s}", version, [secret_event(s % 2, version), NewEvent("plain", {"k": version})])


def db_events(store: EventStore) -> list[dict[str, Any]]:
    with store.pool.connection() as conn:
        return conn.execute(
            """SELECT global_position, tx_id::text::bigint AS tx_id, stream_id, version FROM events
               ORDER BY tx_id, global_position"""
        ).fetchall()


def published(client: redis.Redis, key: str = redis_bus.GLOBAL_STREAM) -> list[dict[str, Any]]:
    return [body for _id, body in redis_bus.range_stream(client, key)]


def relay_position(db_url: str) -> int:
    with psycopg.connect(db_url, row_factory=dict_row) as conn:
        return read_position(conn, RELAY_POSITION).global_position


def test_publishes_public_forms_to_both_streams_in_commit_order(
    store: EventStore, db_url: str, redis_server: RedisServer, rclient: redis.Redis
) -> None:
    append_many(store, streams=3, per_stream=20)
    expected = db_events(store)
    with RelayThread(db_url, redis_server.url):
        wait_until(lambda: rclient.xlen(redis_bus.GLOBAL_STREAM) == len(expected), what="all events published")
        wait_until(lambda: relay_position(db_url) == expected[-1]["global_position"], what="relay position stored")
    bodies = published(rclient)
    assert [b["global_position"] for b in bodies] == [e["global_position"] for e in expected]
    for s in range(3):
        mine = published(rclient, redis_bus.table_stream(f"table-{s}"))
        assert [b["version"] for b in mine] == list(range(1, 41))
        assert {b["table_id"] for b in mine} == {f"table-{s}"}
    raw = b"".join(
        value for _id, fields in rclient.xrange(redis_bus.GLOBAL_STREAM) for value in fields.values()
    ) + b"".join(
        value for s in range(3) for _id, f in rclient.xrange(f"cardledger:table:table-{s}") for value in f.values()
    )
    assert b'"private"' not in raw and b"SECRET" not in raw and b"salt" not in raw
    first = bodies[0]
    assert set(first) == {
        "global_position",
        "tx_id",
        "table_id",
        "version",
        "type",
        "deal_no",
        "occurred_at",
        "data",
        "schema_version",
        "hash_version",
        "prev_hash",
        "hash",
    }
    assert set(first["data"]) == {"seat", "n", "private_commitment"}
    assert (first["data"]["seat"], first["data"]["n"]) == (0, 0)
    assert Queue("projections", connection=rclient).count >= 1  # projection jobs enqueued
    # The SSE helper reads a table's stream from an id onwards.
    entries = redis_bus.read_table(rclient, "table-1", after_id="0-0", count=5)
    assert [body["version"] for _id, body in entries] == [1, 2, 3, 4, 5]
    rest = redis_bus.read_table(rclient, "table-1", after_id=entries[-1][0], count=100)
    assert [body["version"] for _id, body in rest] == list(range(6, 41))


def test_notifies_on_the_channel(
    store: EventStore, db_url: str, redis_server: RedisServer, rclient: redis.Redis
) -> None:
    pubsub = rclient.pubsub()
    pubsub.subscribe(redis_bus.NOTIFY_CHANNEL)
    pubsub.get_message(timeout=1)  # subscribe confirmation
    store.append("table-n", 0, [NewEvent("plain", {"k": 1})])
    with RelayThread(db_url, redis_server.url):
        message = pubsub.get_message(timeout=10)
        while message is not None and redis_bus.notification(message) is None:
            message = pubsub.get_message(timeout=10)
    assert message is not None
    notice = redis_bus.notification(message)
    assert notice is not None and notice["tables"] == ["table-n"]
    pubsub.close()


def test_restarts_from_its_stored_position(
    store: EventStore, db_url: str, redis_server: RedisServer, rclient: redis.Redis
) -> None:
    append_many(store, streams=2, per_stream=5)
    with RelayThread(db_url, redis_server.url):
        wait_until(lambda: rclient.xlen(redis_bus.GLOBAL_STREAM) == 20, what="first events")
        wait_until(lambda: relay_position(db_url) == db_events(store)[-1]["global_position"], what="position")
    rclient.flushdb()  # forget what was published: a restart must not publish it again
    append_many(store, streams=2, per_stream=5)
    with RelayThread(db_url, redis_server.url):
        wait_until(lambda: rclient.xlen(redis_bus.GLOBAL_STREAM) == 20, what="new events")
    assert [b["global_position"] for b in published(rclient)] == [e["global_position"] for e in db_events(store)[20:]]


def test_republishing_a_batch_adds_nothing(store: EventStore, db_url: str, rclient: redis.Redis) -> None:
    append_many(store, streams=2, per_stream=3)
    wait_until_readable(db_url)
    events = store.read_log(limit=100)
    assert len(events) == 12
    assert redis_bus.publish(rclient, events) == 2 * len(events)
    assert redis_bus.publish(rclient, events) == 0
    assert redis_bus.publish(rclient, events[3:]) == 0
    assert rclient.xlen(redis_bus.GLOBAL_STREAM) == len(events)


def test_publishing_loads_its_script_into_a_server_that_forgot_it(
    store: EventStore, db_url: str, rclient: redis.Redis
) -> None:
    append_many(store, streams=1, per_stream=4)
    wait_until_readable(db_url)
    events = store.read_log(limit=100)
    assert redis_bus.publish(rclient, events[:2]) == 4
    rclient.script_flush()
    assert redis_bus.publish(rclient, events) == 2 * (len(events) - 2)
    assert [b["global_position"] for b in published(rclient)] == [e.global_position for e in events]


def test_publishing_stops_at_an_error_other_than_a_published_entry(
    store: EventStore, db_url: str, rclient: redis.Redis
) -> None:
    append_many(store, streams=2, per_stream=2)
    wait_until_readable(db_url)
    events = store.read_log(limit=100)
    broken = events[-1]
    rclient.set(redis_bus.table_stream(broken.stream_id), "not a stream")
    with pytest.raises(redis.ResponseError, match="WRONGTYPE"):
        redis_bus.publish(rclient, events)
    rclient.delete(redis_bus.table_stream(broken.stream_id))
    assert redis_bus.publish(rclient, events) > 0  # published again, the entries that got through are skipped
    assert [b["global_position"] for b in published(rclient)] == [e.global_position for e in events]


def test_a_batch_publishes_after_an_error_reply_and_a_forgotten_script(
    store: EventStore, db_url: str, rclient: redis.Redis
) -> None:
    append_many(store, streams=2, per_stream=2)
    wait_until_readable(db_url)
    events = store.read_log(limit=100)
    assert len(events) == 8
    rclient.set(redis_bus.table_stream(events[0].stream_id), "not a stream")
    with pytest.raises(redis.ResponseError, match="WRONGTYPE"):
        queueing.publish_and_enqueue(rclient, events[:2])
    rclient.delete(redis_bus.table_stream(events[0].stream_id))
    rclient.script_flush()
    assert queueing.publish_and_enqueue(rclient, events) == 1
    assert queueing.publish_and_enqueue(rclient, events) == 0  # a job waits
    assert [b["global_position"] for b in published(rclient)] == [e.global_position for e in events]
    for stream_id in {e.stream_id for e in events}:
        mine = [e.global_position for e in events if e.stream_id == stream_id]
        assert [b["global_position"] for b in published(rclient, redis_bus.table_stream(stream_id))] == mine


def test_a_batch_is_published_in_one_round_trip_when_no_job_is_needed(
    store: EventStore, db_url: str, rclient: redis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent: list[int] = []
    send = redis.connection.Connection.send_packed_command

    def counted(connection: Any, command: Any, check_health: bool = True) -> None:
        sent.append(1)
        send(connection, command, check_health)

    append_many(store, streams=2, per_stream=4)
    wait_until_readable(db_url)
    events = store.read_log(limit=100)
    assert len(events) == 16
    rclient.ping()  # connected before counting
    queue = Queue(queueing.PROJECTIONS_QUEUE, connection=rclient)
    monkeypatch.setattr(redis.connection.Connection, "send_packed_command", counted)
    assert queueing.publish_and_enqueue(rclient, events[:2]) == 1  # nothing waiting, nobody looking
    assert queue.count == 1
    sent.clear()
    assert queueing.publish_and_enqueue(rclient, events[2:4]) == 0  # one waiting
    assert len(sent) == 1
    queue.empty()
    assert redis_bus.hold_looking(rclient, "job-a", 2000)
    sent.clear()
    assert queueing.publish_and_enqueue(rclient, events[4:6]) == 0  # a job is looking
    assert len(sent) == 1
    assert queue.count == 0
    assert redis_bus.release_looking(rclient, "job-a")
    rclient.script_flush()  # a server that forgot the script still checks the queue
    assert queueing.publish_and_enqueue(rclient, events[6:]) == 1
    assert queue.count == 1
    assert [b["global_position"] for b in published(rclient)] == [e.global_position for e in events]


def test_the_looking_key_is_held_by_one_job_and_handed_on_only_by_its_holder(rclient: redis.Redis) -> None:
    key = redis_bus.PROJECTIONS_LOOKING_KEY
    assert redis_bus.hold_looking(rclient, "job-a", 2000)
    assert redis_bus.hold_looking(rclient, "job-a", 2000)  # kept
    assert 0 < rclient.pttl(key) <= 2000
    assert not redis_bus.hold_looking(rclient, "job-b", 2000)
    assert not redis_bus.hold_looking(rclient, "job-b", 2000, successor="job-c")
    assert not redis_bus.release_looking(rclient, "job-b")
    assert rclient.get(key) == b"job-a"
    assert redis_bus.hold_looking(rclient, "job-a", 2000, successor="job-c")
    assert rclient.get(key) == b"job-c"
    assert not redis_bus.hold_looking(rclient, "job-a", 2000)  # passed on: no longer a's
    rclient.script_flush()  # the scripts are sent again to a server that forgot them
    assert redis_bus.hold_looking(rclient, "job-c", 2000)
    assert redis_bus.release_looking(rclient, "job-c")
    assert not rclient.exists(key)
    assert not redis_bus.release_looking(rclient, "job-c")
    assert redis_bus.hold_looking(rclient, "job-d", 50)  # a key nobody holds is free to take
    wait_until(lambda: not rclient.exists(key), what="the key expired")
    assert redis_bus.hold_looking(rclient, "job-e", 2000)


@pytest.mark.slow
def test_redis_outage_loses_nothing(store: EventStore, db_url: str, rclient: redis.Redis) -> None:
    server = RedisServer()
    server.start()
    client = server.client()
    try:
        with RelayThread(db_url, server.url, max_backoff=0.5) as relay:
            append_many(store, streams=2, per_stream=3)
            wait_until(lambda: client.xlen(redis_bus.GLOBAL_STREAM) == 12, what="events before the outage")
            wait_until(lambda: relay_position(db_url) == db_events(store)[-1]["global_position"], what="position")
            before = relay_position(db_url)
            server.stop()
            append_many(store, streams=3, per_stream=4)  # appends succeed with Redis down
            threading.Event().wait(1.5)
            assert relay_position(db_url) == before, "the relay moved past events it could not publish"
            assert relay.relay.active.is_set()
            server.start()  # an empty Redis: everything after the stored position is published again
            expected = [e for e in db_events(store) if e["global_position"] > before]
            wait_until(lambda: client.xlen(redis_bus.GLOBAL_STREAM) == len(expected), what="events after the outage")
            wait_until(lambda: relay_position(db_url) == expected[-1]["global_position"], what="position after")
        assert [b["global_position"] for b in published(client)] == [e["global_position"] for e in expected]
    finally:
        client.close()
        server.stop()


def test_two_relays_only_one_active(
    store: EventStore, db_url: str, redis_server: RedisServer, rclient: redis.Redis
) -> None:
    with RelayThread(db_url, redis_server.url) as a, RelayThread(db_url, redis_server.url) as b:
        wait_until(lambda: a.relay.active.is_set() or b.relay.active.is_set(), what="one relay active")
        threading.Event().wait(0.5)
        assert a.relay.active.is_set() != b.relay.active.is_set()
        append_many(store, streams=4, per_stream=10)
        wait_until(lambda: rclient.xlen(redis_bus.GLOBAL_STREAM) == 80, what="all events")
        threading.Event().wait(0.3)
        assert sorted((a.relay.published, b.relay.published)) == [0, 80]
    positions = [b["global_position"] for b in published(rclient)]
    assert positions == [e["global_position"] for e in db_events(store)]
    assert len(set(positions)) == len(positions)


def test_the_relay_s_connections_carry_its_name(db_url: str, redis_server: RedisServer) -> None:
    """Both of the relay's sessions (the lock's and the one it reads and listens on) show as cardledger-relay in
    pg_stat_activity, and nothing else of the database does."""
    with RelayThread(db_url, redis_server.url) as running, psycopg.connect(db_url) as conn:
        wait_until(running.relay.active.is_set, what="the relay active")
        wait_until(lambda: _asleep(db_url), what="the relay asleep (its second session open)")
        rows = conn.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = %s",
            ("cardledger-relay",),
        ).fetchall()
        assert running.relay.session_pid in {row[0] for row in rows}
        assert len(rows) == 2


def _lock_holders(db_url: str) -> list[int]:
    with psycopg.connect(db_url) as conn:
        rows = conn.execute(
            """SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted
               AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
               AND ((classid::bigint << 32) | objid::bigint) = %s""",
            (RELAY_LOCK_KEY,),
        ).fetchall()
    return [int(r[0]) for r in rows]


@pytest.mark.slow
def test_standby_takes_over_when_the_active_relay_is_killed(
    store: EventStore, db_url: str, redis_server: RedisServer, rclient: redis.Redis
) -> None:
    first = spawn("services.relay", db_url, redis_server.url)
    second = None
    try:
        wait_until(lambda: len(_lock_holders(db_url)) == 1, what="first relay active")
        holder = _lock_holders(db_url)
        second = spawn("services.relay", db_url, redis_server.url)
        append_many(store, streams=2, per_stream=10)
        wait_until(lambda: rclient.xlen(redis_bus.GLOBAL_STREAM) == 40, what="first batch")
        assert _lock_holders(db_url) == holder
        first.send_signal(signal.SIGKILL)
        first.wait()
        append_many(store, streams=2, per_stream=10)
        wait_until(lambda: rclient.xlen(redis_bus.GLOBAL_STREAM) == 80, timeout=30, what="standby took over")
        assert len(_lock_holders(db_url)) == 1 and _lock_holders(db_url) != holder
    finally:
        terminate(first)
        if second is not None:
            terminate(second)
    positions = [json.loads(f[b"event"])["global_position"] for _id, f in rclient.xrange(redis_bus.GLOBAL_STREAM)]
    assert positions == [e["global_position"] for e in db_events(store)]


def _asleep(db_url: str) -> bool:
    """Whether a session holds the relay's "asleep" lock."""
    with psycopg.connect(db_url) as conn:
        row = conn.execute(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND mode = 'ExclusiveLock' AND granted"
            " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
            " AND ((classid::bigint << 32) | objid::bigint) = %s",
            (RELAY_ASLEEP_KEY,),
        ).fetchone()
        return row is not None and row[0] > 0


def test_an_append_wakes_a_sleeping_relay_at_its_commit(
    store: EventStore, db_url: str, redis_server: RedisServer, rclient: redis.Redis
) -> None:
    """With a fallback of a minute, the events reach Redis only if the append woke the relay; it sleeps again
    after each wake-up."""
    with RelayThread(db_url, redis_server.url, idle_interval=60.0) as running:
        for n in range(3):
            wait_until(lambda: _asleep(db_url), what="the relay asleep")
            store.append("woken", n, [NewEvent("plain", {"n": n})])
            wait_until(lambda n=n: rclient.xlen(redis_bus.GLOBAL_STREAM) == n + 1, timeout=10, what="published")
        assert running.relay.wake_ups >= 3


def test_an_append_in_flight_keeps_the_relay_from_sleeping_until_it_commits(
    store: EventStore, db_url: str, redis_server: RedisServer, rclient: redis.Redis
) -> None:
    """An append begun while the relay was awake holds the "asleep" lock in shared mode: the relay looks again
    every poll_interval instead of sleeping, and publishes the events once they commit, however long the
    fallback. One begun while it sleeps wakes it at its commit."""
    with psycopg.connect(db_url, row_factory=dict_row) as held:
        store.append_in(held, "held", 0, [NewEvent("plain", {"n": 0})])
        with RelayThread(db_url, redis_server.url, idle_interval=60.0) as running:
            threading.Event().wait(0.5)
            assert not _asleep(db_url)
            assert rclient.xlen(redis_bus.GLOBAL_STREAM) == 0
            held.commit()
            wait_until(lambda: rclient.xlen(redis_bus.GLOBAL_STREAM) == 1, timeout=10, what="published")
            wait_until(lambda: _asleep(db_url), what="the relay asleep")
            store.append_in(held, "held", 1, [NewEvent("plain", {"n": 1})])
            threading.Event().wait(0.3)
            assert _asleep(db_url) and rclient.xlen(redis_bus.GLOBAL_STREAM) == 1  # notified at the commit only
            held.commit()
            wait_until(lambda: rclient.xlen(redis_bus.GLOBAL_STREAM) == 2, timeout=10, what="published")
            assert running.relay.wake_ups == 1


def test_a_lost_wake_up_delays_the_events_by_the_fallback_at_most(
    store: EventStore, db_url: str, redis_server: RedisServer, rclient: redis.Redis
) -> None:
    """Without the trigger that wakes it, the relay still publishes, after `idle_interval`."""
    with psycopg.connect(db_url, autocommit=True) as owner:
        owner.execute("ALTER TABLE events DISABLE TRIGGER events_wake_relay")
    try:
        with RelayThread(db_url, redis_server.url, idle_interval=0.5) as running:
            wait_until(lambda: _asleep(db_url), what="the relay asleep")
            store.append("unwoken", 0, [NewEvent("plain", {"n": 0})])
            wait_until(lambda: rclient.xlen(redis_bus.GLOBAL_STREAM) == 1, timeout=10, what="published")
            assert running.relay.wake_ups == 0
    finally:
        with psycopg.connect(db_url, autocommit=True) as owner:
            owner.execute("ALTER TABLE events ENABLE TRIGGER events_wake_relay")


class NotifyCounter:
    """A session of its own listening on the relay's channel: it counts the transactions that sent a NOTIFY."""

    def __init__(self, database_url: str) -> None:
        self.database_url = database_url
        self.count = 0
        self.stop, self.listening = threading.Event(), threading.Event()
        self.thread = threading.Thread(target=self._listen, daemon=True)

    def _listen(self) -> None:
        with psycopg.connect(self.database_url, autocommit=True) as conn:
            conn.execute(f"LISTEN {LOG_CHANNEL}")
            self.listening.set()
            while not self.stop.is_set():
                for _ in conn.notifies(timeout=0.1, stop_after=1):
                    self.count += 1

    def __enter__(self) -> NotifyCounter:
        self.thread.start()
        self.listening.wait(10)
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join(timeout=10)


def test_appends_a_few_ms_apart_find_the_relay_awake_and_send_almost_no_notify(
    store: EventStore, db_url: str, redis_server: RedisServer, rclient: redis.Redis
) -> None:
    """Under a steady stream of appends the relay stays awake between them (its grace period after a batch), so
    they do not wake it: a NOTIFY serializes commits on a lock global to the server, and a relay put to sleep
    between every pair of commits pays a lock, a look and an unlock for each."""
    appends = 300
    with RelayThread(db_url, redis_server.url, poll_interval=POLL_INTERVAL_S) as running:
        wait_until(lambda: _asleep(db_url), what="the relay asleep")
        with NotifyCounter(db_url) as notifies:
            for n in range(appends):
                store.append("steady", n, [NewEvent("plain", {"n": n})])
                threading.Event().wait(0.005)
            wait_until(lambda: rclient.xlen(redis_bus.GLOBAL_STREAM) == appends, timeout=10, what="published")
        # The first append woke it; a pause of the test's process beyond the grace period may cost a few more.
        assert notifies.count <= appends // 20, f"{notifies.count} NOTIFYs for {appends} appends"
        assert running.relay.wake_ups <= appends // 20


def test_a_steady_trickle_over_several_tables_is_read_in_fewer_looks_than_appends(
    store: EventStore, db_url: str, redis_server: RedisServer, rclient: redis.Redis
) -> None:
    """Appends 4 ms apart over 8 tables: the relay waits for `EVENTS_PER_LOOK` events at the recent rate between
    looks (at most `MAX_POLL_INTERVAL_S`), so it reads the log about once per `EVENTS_PER_LOOK` appends, or once
    per `MAX_POLL_INTERVAL_S` if they come slower, not after every batch; every event is published once, in
    order."""
    appends, tables = 400, 8
    with RelayThread(db_url, redis_server.url, poll_interval=POLL_INTERVAL_S) as running:
        wait_until(lambda: _asleep(db_url), what="the relay asleep")
        with NotifyCounter(db_url) as notifies:
            looks_before, started = running.relay.looks, time.monotonic()
            for n in range(appends):
                store.append(f"trickle-{n % tables}", n // tables, [NewEvent("plain", {"n": n})])
                time.sleep(max(0.0, started + (n + 1) * 0.004 - time.monotonic()))
            elapsed = time.monotonic() - started
            wait_until(lambda: rclient.xlen(redis_bus.GLOBAL_STREAM) == appends, timeout=10, what="published")
            looks = running.relay.looks - looks_before
        expected = max(appends / EVENTS_PER_LOOK, elapsed / MAX_POLL_INTERVAL_S)
        assert looks <= expected * 1.3, f"{looks} looks for {appends} appends in {elapsed:.2f} s"
        assert notifies.count <= appends // 20, f"{notifies.count} NOTIFYs for {appends} appends"
    positions = [json.loads(f[b"event"])["global_position"] for _id, f in rclient.xrange(redis_bus.GLOBAL_STREAM)]
    assert positions == sorted(positions) and len(set(positions)) == appends
