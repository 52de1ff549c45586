"""Contract of the event store, run against each implementation: PostgreSQL and the in-memory store.

Modelled on the recorder contract tests of the `eventsourcing` library, which run one test case per recorder:
every behaviour the rest of cardledger relies on (optimistic appends, atomicity, idempotency records, the hash
chain and a global log in commit order) is checked through the public API (`EventStorage`) of both stores.
Tests marked `postgres_only` check what only PostgreSQL has (connections and their transactions, prepared
statements, the immutability triggers, the stored json texts, a reader behind transactions still open) against
the real database, through plain SQL where it matters.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import psycopg
import pytest
from psycopg import errors as pg_errors
from psycopg.types.json import Json

from domain.hashchain import (
    GENESIS_HASH,
    canonical_text,
    canonical_timestamp,
    chained_hash,
    event_hash,
    hashed_fields,
)
from infra.errors import IdempotencyKeyTaken, VersionConflict
from infra.event_store import (
    START,
    EventStorage,
    EventStore,
    IdempotencyRecord,
    InMemoryEventStore,
    LogPosition,
    NewEvent,
    RecordedEvent,
)
from tests.horizon import wait_until_readable

postgres_only = pytest.mark.postgres_only


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Every test of `store` runs once per implementation, except those marked postgres_only."""
    if "store" in metafunc.fixturenames:
        postgres = metafunc.definition.get_closest_marker("postgres_only") is not None
        metafunc.parametrize("store", ["postgres"] if postgres else ["postgres", "memory"], indirect=True)


@pytest.fixture
def store(request: pytest.FixtureRequest) -> EventStorage:
    if request.param == "memory":
        return InMemoryEventStore()
    return EventStore(request.getfixturevalue("pool"))


def ev(n: int = 0, type_: str = "card_played", **data: Any) -> NewEvent:
    return NewEvent(type_, {"n": n, "seat": n % 4, "card": "AS", **data})


def evs(count: int, start: int = 0) -> list[NewEvent]:
    return [ev(start + i) for i in range(count)]


def idem(key: str, scope: str = "player-1", stream: str = "") -> IdempotencyRecord:
    return IdempotencyRecord(scope, key, f"sha256-of-request-{key}", {"status": 201, "stream": stream})


def count_events(store: EventStorage, stream_id: str | None = None) -> int:
    """The events the store holds (of one stream): in PostgreSQL counted by SQL, behind the store's back."""
    if isinstance(store, EventStore):
        with store.pool.connection() as conn:
            if stream_id is None:
                row = conn.execute("SELECT count(*) AS n FROM events").fetchone()
            else:
                row = conn.execute("SELECT count(*) AS n FROM events WHERE stream_id = %s", (stream_id,)).fetchone()
        assert row is not None
        return int(row["n"])
    if stream_id is not None:
        return len(store.read_stream(stream_id))
    return len(drain_log(store))


def assert_chain(events: Sequence[RecordedEvent], stream_id: str) -> None:
    """Versions 1..n without gaps, each event linked to the previous one, every hash recomputable."""
    assert [e.version for e in events] == list(range(1, len(events) + 1))
    prev = GENESIS_HASH
    for e in events:
        assert e.stream_id == stream_id
        assert e.prev_hash == prev
        assert e.recomputed_hash() == e.hash
        prev = e.hash


def drain_log(store: EventStorage, after: LogPosition = START) -> list[RecordedEvent]:
    return [e for batch in store.iterate_log(after, batch_size=1000) for e in batch]


def all_readable(store: EventStorage) -> None:
    """Until every event committed so far can be read from the log: in PostgreSQL an older transaction of another
    session, anywhere on the server, holds back the commits after it (`tests.horizon`); the memory store's log
    is readable at once."""
    if isinstance(store, EventStore):
        wait_until_readable(store.pool.conninfo)


# --- Appending -----------------------------------------------------------------------------------------------------


def test_append_to_a_new_stream_at_version_zero(store: EventStorage) -> None:
    recorded = store.append("table-1", 0, [ev(1)])

    assert len(recorded) == 1
    first = recorded[0]
    assert (first.stream_id, first.version, first.type) == ("table-1", 1, "card_played")
    assert first.data == {"n": 1, "seat": 1, "card": "AS"}
    assert first.metadata == {}
    assert (first.schema_version, first.deal_no) == (1, 0)
    assert first.prev_hash == GENESIS_HASH
    assert first.global_position >= 1
    assert first.tx_id > 0
    assert store.stream_version("table-1") == 1
    assert store.read_stream("table-1") == recorded


def test_append_returns_what_is_read_back(store: EventStorage) -> None:
    new = NewEvent("deal_started", {"dealer": 2}, deal_no=3, metadata={"request_id": "r-1"}, schema_version=2)
    recorded = store.append("table-1", 0, [new])
    (back,) = store.read_stream("table-1")
    assert back == recorded[0]
    assert (back.deal_no, back.schema_version, back.metadata) == (3, 2, {"request_id": "r-1"})


def test_appends_continue_at_the_head(store: EventStorage) -> None:
    store.append("table-1", 0, evs(2))
    store.append("table-1", 2, evs(3, start=2))
    assert store.stream_version("table-1") == 5
    assert [e.data["n"] for e in store.read_stream("table-1")] == [0, 1, 2, 3, 4]


def test_empty_append_is_refused(store: EventStorage) -> None:
    with pytest.raises(ValueError):
        store.append("table-1", 0, [])
    assert store.stream_version("table-1") is None


def test_stale_expected_version_conflicts_and_names_the_versions(store: EventStorage) -> None:
    store.append("table-1", 0, evs(2))

    with pytest.raises(VersionConflict) as caught:
        store.append("table-1", 1, [ev(9)])
    assert (caught.value.stream_id, caught.value.expected, caught.value.actual) == ("table-1", 1, 2)
    assert "table-1" in str(caught.value)
    assert "1" in str(caught.value) and "2" in str(caught.value)
    assert caught.value.code == "version_conflict"

    # Expecting a new stream when it exists is stale too.
    with pytest.raises(VersionConflict) as caught:
        store.append("table-1", 0, [ev(9)])
    assert (caught.value.expected, caught.value.actual) == (0, 2)

    assert store.stream_version("table-1") == 2
    assert count_events(store, "table-1") == 2


def test_expected_version_beyond_the_head_conflicts(store: EventStorage) -> None:
    store.append("table-1", 0, evs(2))
    with pytest.raises(VersionConflict) as caught:
        store.append("table-1", 5, [ev(9)])
    assert (caught.value.stream_id, caught.value.expected, caught.value.actual) == ("table-1", 5, 2)
    assert store.stream_version("table-1") == 2
    assert count_events(store) == 2


def test_expected_version_on_a_missing_stream_conflicts(store: EventStorage) -> None:
    with pytest.raises(VersionConflict) as caught:
        store.append("nowhere", 3, [ev(1)])
    assert (caught.value.stream_id, caught.value.expected, caught.value.actual) == ("nowhere", 3, None)
    assert "missing" in str(caught.value)
    assert store.stream_version("nowhere") is None
    assert count_events(store) == 0


@pytest.mark.parametrize("head_hash", [None, GENESIS_HASH])
def test_an_expected_version_below_zero_conflicts_and_writes_nothing(
    store: EventStorage, head_hash: str | None
) -> None:
    # The append statement alone keeps versions >= 1 and every event on a stream with a head row (migration 003
    # dropped the CHECK and the foreign key that proved it again for each event), with or without a known head.
    for stream in ("table-1", "nowhere"):
        with pytest.raises(VersionConflict) as caught:
            store.append(stream, -1, [ev(1)], head_hash=head_hash)
        assert caught.value.expected == -1
    assert count_events(store) == 0
    store.append("table-1", 0, [ev(1)])
    with pytest.raises(VersionConflict):
        store.append("table-1", -1, [ev(2)], head_hash=head_hash)
    assert [e.version for e in store.read_stream("table-1")] == [1]


def test_a_known_head_on_a_stream_without_a_head_row_conflicts(store: EventStorage) -> None:
    with pytest.raises(VersionConflict) as caught:
        store.append("nowhere", 0, [ev(1)], head_hash=GENESIS_HASH)
    assert (caught.value.expected, caught.value.actual) == (0, None)
    assert count_events(store) == 0


@postgres_only
def test_appends_go_on_when_the_pool_replaces_a_connection(store: EventStore) -> None:
    (first,) = store.append("table-1", 0, [ev(1)])
    with store.pool.connection() as held:  # the connection the first append used
        held.close()  # broken while in use: the pool discards it when it comes back
    second = store.append("table-1", 1, [ev(2)], head_hash=first.hash)
    third = store.append("table-1", 2, [ev(3)], head_hash=second[-1].hash)
    assert [e.version for e in store.read_stream("table-1")] == [1, 2, 3]
    assert third[-1].prev_hash == second[-1].hash


@postgres_only
def test_an_append_on_a_connection_the_server_ended_fails_cleanly_and_the_next_one_goes_on(
    store: EventStore, db_url: str
) -> None:
    (first,) = store.append("table-1", 0, [ev(1)])
    with store.pool.connection() as held:
        pid = held.info.backend_pid
    with psycopg.connect(db_url, autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
    with pytest.raises(psycopg.OperationalError):
        store.append("table-1", 1, [ev(2)], head_hash=first.hash)
    second = store.append("table-1", 1, [ev(2)], head_hash=first.hash)  # on a new connection
    assert [e.version for e in store.read_stream("table-1")] == [1, 2]
    assert second[-1].prev_hash == first.hash


@postgres_only
def test_appends_go_on_after_the_connection_drops_its_prepared_statements(store: EventStore, pool: Any) -> None:
    (first,) = store.append("table-1", 0, [ev(1)])
    (second,) = store.append("table-1", 1, [ev(2)], head_hash=first.hash)
    with pool.connection() as conn:
        # What psycopg itself sends after a ROLLBACK where it had prepared statements of its own.
        conn.execute("DEALLOCATE ALL")
    (third,) = store.append("table-1", 2, [ev(3)], head_hash=second.hash)
    with store.pool.connection() as conn, conn.transaction():
        conn.execute("DEALLOCATE ALL")
        (fourth,) = store.append_in(conn, "table-1", 3, [ev(4)], head_hash=third.hash)
    assert [e.version for e in store.read_stream("table-1")] == [1, 2, 3, 4]
    assert fourth.prev_hash == third.hash


def test_multi_event_append_is_one_transaction(store: EventStorage) -> None:
    recorded = store.append("table-1", 0, evs(4))
    assert [e.version for e in recorded] == [1, 2, 3, 4]
    assert len({e.tx_id for e in recorded}) == 1
    assert len({e.occurred_at for e in recorded}) == 1
    positions = [e.global_position for e in recorded]
    assert positions == sorted(positions)
    assert store.read_stream("table-1") == recorded


@postgres_only
def test_failure_in_the_middle_of_a_multi_event_append_leaves_nothing(store: EventStore, db_url: str) -> None:
    store.append("table-1", 0, evs(2))
    # The second of three events has a deal number past PostgreSQL's integer: the database refuses the append
    # after the store numbered and chained all three.
    bad = [ev(10), NewEvent("card_played", {"card": "AS"}, deal_no=2**31), ev(12)]

    with pytest.raises(psycopg.Error):
        store.append("table-1", 2, bad)
    assert store.stream_version("table-1") == 2
    assert count_events(store) == 2

    with pytest.raises(psycopg.Error):
        store.append("table-2", 0, bad)
    assert store.stream_version("table-2") is None, "the stream row must roll back with the events"
    assert count_events(store) == 2

    # Both streams still accept the append the failed one would have been.
    store.append("table-1", 2, [ev(10)])
    store.append("table-2", 0, [ev(10)])
    assert_chain(store.read_stream("table-1"), "table-1")
    assert_chain(store.read_stream("table-2"), "table-2")


def test_taken_idempotency_key_undoes_the_whole_append(store: EventStorage) -> None:
    store.append("table-1", 0, [ev(1)], idempotency=idem("k-1"))
    store.append("table-2", 0, evs(2))
    all_readable(store)
    log_before = drain_log(store)
    assert len(log_before) == 3

    with pytest.raises(IdempotencyKeyTaken) as caught:
        store.append("table-2", 2, evs(3), idempotency=idem("k-1"))
    assert (caught.value.scope, caught.value.key) == ("player-1", "k-1")
    assert caught.value.code == "idempotency_key_taken"
    assert store.stream_version("table-2") == 2
    assert len(store.read_stream("table-2")) == 2

    with pytest.raises(IdempotencyKeyTaken):
        store.append("table-3", 0, evs(3), idempotency=idem("k-1"))
    assert store.stream_version("table-3") is None
    assert count_events(store) == 3
    assert drain_log(store) == log_before


def test_idempotency_record_is_stored_with_the_events(store: EventStorage) -> None:
    record = IdempotencyRecord("player-7", "key-A", "req-hash", {"status": 201, "body": {"version": 2, "ok": True}})
    store.append("table-1", 0, evs(2), idempotency=record)

    assert store.find_idempotency("player-7", "key-A") == record
    assert store.find_idempotency("player-8", "key-A") is None
    assert store.find_idempotency("player-7", "key-B") is None


@postgres_only
def test_the_idempotency_key_row_is_written_by_the_transaction_that_wrote_the_events(
    store: EventStore, db_url: str
) -> None:
    record = IdempotencyRecord("player-7", "key-A", "req-hash", {"status": 201})
    recorded = store.append("table-1", 0, evs(2), idempotency=record)
    with psycopg.connect(db_url) as conn:
        row = conn.execute(
            """SELECT k.stream_id, k.xmin::text = e.xmin::text
               FROM idempotency_keys k, events e WHERE k.key = 'key-A' AND e.global_position = %s""",
            (recorded[0].global_position,),
        ).fetchone()
    assert row == ("table-1", True), "the key row is written by the transaction that wrote the events"


def test_same_key_in_another_scope_is_not_taken(store: EventStorage) -> None:
    store.append("table-1", 0, [ev(1)], idempotency=idem("k", scope="player-1"))
    store.append("table-1", 1, [ev(2)], idempotency=idem("k", scope="player-2"))
    assert store.stream_version("table-1") == 2


def test_conflicting_append_records_no_idempotency_key(store: EventStorage) -> None:
    store.append("table-1", 0, [ev(1)])
    with pytest.raises(VersionConflict):
        store.append("table-1", 0, [ev(2)], idempotency=idem("k-1"))
    assert store.find_idempotency("player-1", "k-1") is None
    store.append("table-1", 1, [ev(2)], idempotency=idem("k-1"))
    assert store.find_idempotency("player-1", "k-1") is not None


@postgres_only
def test_append_in_commits_and_rolls_back_with_the_callers_transaction(store: EventStore, db_url: str) -> None:
    class Abort(Exception):
        pass

    with pytest.raises(Abort), store.pool.connection() as conn, conn.transaction():
        store.append_in(conn, "table-1", 0, evs(2), idempotency=idem("k-1"))
        conn.execute("INSERT INTO players (id, name, token_hash) VALUES ('p1', 'Ana', 't1')")
        raise Abort
    assert store.stream_version("table-1") is None
    assert store.find_idempotency("player-1", "k-1") is None
    assert count_events(store) == 0

    with store.pool.connection() as conn, conn.transaction():
        store.append_in(conn, "table-1", 0, evs(2), idempotency=idem("k-1"))
        conn.execute("INSERT INTO players (id, name, token_hash) VALUES ('p1', 'Ana', 't1')")
    assert store.stream_version("table-1") == 2
    assert store.find_idempotency("player-1", "k-1") is not None


# --- Immutability and constraints ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE events SET type = 'forged' WHERE version = 1",
        "UPDATE events SET data = '{}'::json",
        "DELETE FROM events WHERE version = 2",
        "DELETE FROM events",
        "TRUNCATE events",
        "TRUNCATE events CASCADE",
    ],
)
@postgres_only
def test_events_cannot_be_changed(store: EventStore, db_url: str, statement: str) -> None:
    recorded = store.append("table-1", 0, evs(2))
    with psycopg.connect(db_url, autocommit=True) as conn:
        with pytest.raises(psycopg.Error) as caught:
            conn.execute(statement)
        assert isinstance(caught.value, pg_errors.RestrictViolation)
        assert "immutable" in str(caught.value)
    assert store.read_stream("table-1") == recorded


@postgres_only
def test_stream_version_is_unique_in_the_table(store: EventStore, db_url: str) -> None:
    (first,) = store.append("table-1", 0, [ev(1)])
    with psycopg.connect(db_url, autocommit=True) as conn:
        with pytest.raises(pg_errors.UniqueViolation) as caught:
            conn.execute(
                """INSERT INTO events (stream_id, version, type, data, occurred_at, prev_hash, hash)
                   VALUES ('table-1', 1, 'forged', '{}', now(), %s, %s)""",
                (GENESIS_HASH, "f" * 64),
            )
        assert caught.value.diag.constraint_name == "events_pkey"
    assert store.read_stream("table-1") == [first]


# --- Reading streams -----------------------------------------------------------------------------------------------


def test_read_stream_from_and_to_a_version(store: EventStorage) -> None:
    store.append("table-1", 0, evs(6))
    store.append("table-2", 0, evs(3, start=100))

    def versions(**kwargs: Any) -> list[int]:
        return [e.version for e in store.read_stream("table-1", **kwargs)]

    assert versions() == [1, 2, 3, 4, 5, 6]
    assert versions(from_version=3) == [3, 4, 5, 6]
    assert versions(to_version=2) == [1, 2]
    assert versions(from_version=2, to_version=4) == [2, 3, 4]
    assert versions(from_version=4, to_version=4) == [4]
    assert versions(from_version=5, to_version=3) == []
    assert versions(from_version=7) == []
    assert versions(to_version=0) == []
    assert versions(from_version=2, limit=2) == [2, 3]
    assert versions(from_version=2, to_version=5, limit=10) == [2, 3, 4, 5]
    assert store.read_stream("missing") == []
    assert [e.data["n"] for e in store.read_stream("table-2")] == [100, 101, 102]


# --- Hash chain ----------------------------------------------------------------------------------------------------


def test_hash_chain_links_every_event_of_a_stream(store: EventStorage) -> None:
    store.append("table-1", 0, evs(3))
    store.append("table-1", 3, [ev(3)])
    store.append("table-2", 0, evs(2))
    store.append("table-1", 4, evs(2, start=4))

    events = store.read_stream("table-1")
    assert events[0].prev_hash == GENESIS_HASH == "0" * 64
    assert_chain(events, "table-1")
    assert_chain(store.read_stream("table-2"), "table-2")
    for e in events:
        fields = hashed_fields(
            e.stream_id, e.version, e.type, e.schema_version, e.deal_no, e.data, e.metadata, e.occurred_at, 2
        )
        assert event_hash(e.prev_hash, fields) == e.hash
        assert len(e.hash) == 64 and int(e.hash, 16) >= 0


@postgres_only
def test_the_stream_head_row_holds_the_last_version_and_hash(store: EventStore, db_url: str) -> None:
    store.append("table-1", 0, evs(3))
    store.append("table-1", 3, evs(3, start=3))
    events = store.read_stream("table-1")
    with psycopg.connect(db_url) as conn:
        row = conn.execute("SELECT version, last_hash FROM streams WHERE stream_id = 'table-1'").fetchone()
    assert row == (6, events[-1].hash)


def test_the_same_event_in_another_stream_or_place_hashes_differently(store: EventStorage) -> None:
    a = store.append("table-1", 0, [ev(1)])[0]
    b = store.append("table-2", 0, [ev(1)])[0]
    c = store.append("table-1", 1, [ev(1)])[0]
    assert len({a.hash, b.hash, c.hash}) == 3


def tamper(db_url: str, sql: str, params: Sequence[Any] = ()) -> None:
    """Change an event behind the store's back: triggers off, change, triggers on, in one transaction."""
    with psycopg.connect(db_url) as conn, conn.transaction():
        conn.execute("ALTER TABLE events DISABLE TRIGGER USER")
        changed = conn.execute(sql, params).rowcount
        conn.execute("ALTER TABLE events ENABLE TRIGGER USER")
        assert changed == 1


@pytest.mark.parametrize(
    "change",
    [
        'data = (data::jsonb || \'{"card": "KH"}\'::jsonb)::json',
        "type = 'card_discarded'",
        "occurred_at = occurred_at + interval '1 microsecond'",
        'metadata = \'{"by": "admin"}\'',
        "deal_no = 9",
        "schema_version = 2",
        "hash_version = 1",
    ],
)
@postgres_only
def test_a_tampered_event_no_longer_matches_its_hash(store: EventStore, db_url: str, change: str) -> None:
    store.append("table-1", 0, evs(3))
    tamper(db_url, f"UPDATE events SET {change} WHERE stream_id = %s AND version = 2", ("table-1",))

    events = store.read_stream("table-1")
    assert [e.recomputed_hash() == e.hash for e in events] == [True, False, True]
    # The triggers are back: the forgery cannot be covered up by fixing the stored hash.
    with psycopg.connect(db_url, autocommit=True) as conn, pytest.raises(pg_errors.RestrictViolation):
        conn.execute("UPDATE events SET hash = 'x' WHERE stream_id = 'table-1' AND version = 2")


@postgres_only
def test_a_rewritten_hash_breaks_the_link_to_the_next_event(store: EventStore, db_url: str) -> None:
    store.append("table-1", 0, evs(3))
    original = store.read_stream("table-1", 2, 2)[0]
    forged_data = {**original.data, "card": "KH"}
    forged_hash = event_hash(
        original.prev_hash,
        hashed_fields(
            original.stream_id,
            original.version,
            original.type,
            original.schema_version,
            original.deal_no,
            forged_data,
            original.metadata,
            original.occurred_at,
            original.hash_version,
        ),
    )
    tamper(
        db_url,
        "UPDATE events SET data = %s, hash = %s WHERE stream_id = 'table-1' AND version = 2",
        (Json(forged_data), forged_hash),
    )
    events = store.read_stream("table-1")
    assert all(e.recomputed_hash() == e.hash for e in events), "each row is self-consistent ..."
    assert events[2].prev_hash != events[1].hash, "... but the next event still links to the original"
    with pytest.raises(AssertionError):
        assert_chain(events, "table-1")


def test_unicode_data_round_trips_with_its_hash(store: EventStorage) -> None:
    data = {
        "name": "Zoë Łukasiewicz-Nguyễn",
        "suits": "♠♥♦♣",
        "cjk": "車九子 茶九仔",
        "emoji": "🂡🃁👍🏽",
        "combining": "e\u0301 vs \u00e9",
        "separators": 'line\u2028para\u2029tab\tquote"back\\slash',
        "rtl": "مرحبا",
        "nested": {"ключ": ["ä", "ß", {"\U0001d518": "\U0001d52b\U0001d526\U0001d520\U0001d52c\U0001d521\U0001d522"}]},
        "big": 2**62,
        "negative": -17,
        "flags": [True, False, None],
    }
    metadata = {"user_agent": "Mozilla/5.0 (Ελληνικά)", "ip": "::1"}
    (recorded,) = store.append("tâble-①", 0, [NewEvent("note_added", data, metadata=metadata)])
    (back,) = store.read_stream("tâble-①")
    assert back.data == data
    assert back.metadata == metadata
    assert back.stream_id == "tâble-①"
    assert back.hash == recorded.hash
    assert back.recomputed_hash() == back.hash
    assert back.data["combining"] != "\u00e9 vs \u00e9", "no normalisation on the way"


# --- Concurrency ---------------------------------------------------------------------------------------------------


def race(writers: int, attempt: Callable[[int], Any]) -> list[Any]:
    """Run attempt(i) in `writers` threads released together; returns results or exceptions."""
    barrier = threading.Barrier(writers)

    def go(i: int) -> Any:
        barrier.wait()
        try:
            return attempt(i)
        except Exception as exc:
            return exc

    with ThreadPoolExecutor(writers) as executor:
        return list(executor.map(go, range(writers)))


@pytest.mark.parametrize("events_per_append", [1, 3])
def test_concurrent_writers_on_one_stream_never_fork(store: EventStorage, events_per_append: int) -> None:
    writers, rounds = 8, 12
    version = 0
    winners = []
    for round_no in range(rounds):
        results = race(
            writers,
            lambda i, v=version, r=round_no: store.append(
                "table-1", v, [ev(r * 100 + i * 10 + k, writer=i) for k in range(events_per_append)]
            ),
        )
        won = [r for r in results if isinstance(r, list)]
        lost = [r for r in results if isinstance(r, VersionConflict)]
        other = [r for r in results if not isinstance(r, list | VersionConflict)]
        assert other == []
        assert len(won) == 1, f"round {round_no}: {len(won)} winners"
        assert len(lost) == writers - 1
        for conflict in lost:
            assert (conflict.stream_id, conflict.expected, conflict.actual) == (
                "table-1",
                version,
                version + events_per_append,
            )
        winners.append(won[0])
        version += events_per_append

    events = store.read_stream("table-1")
    assert_chain(events, "table-1")
    assert len(events) == rounds * events_per_append == store.stream_version("table-1")
    assert events == [e for batch in winners for e in batch]
    for batch in winners:  # each winner's events are contiguous and written by one writer
        assert len({e.data["writer"] for e in batch}) == 1
    assert count_events(store) == rounds * events_per_append


def test_concurrent_writers_on_a_new_stream(store: EventStorage) -> None:
    for round_no in range(10):
        stream = f"fresh-{round_no}"
        results = race(8, lambda i, s=stream: store.append(s, 0, [ev(i)]))
        assert sum(isinstance(r, list) for r in results) == 1
        conflicts = [r for r in results if isinstance(r, VersionConflict)]
        assert len(conflicts) == 7
        assert all(c.actual == 1 for c in conflicts)
        assert store.stream_version(stream) == 1
        assert_chain(store.read_stream(stream), stream)


def test_concurrent_idempotency_key_is_recorded_once(store: EventStorage) -> None:
    for round_no in range(5):
        key = f"k-{round_no}"
        results = race(8, lambda i, k=key, r=round_no: store.append(f"t-{r}-{i}", 0, [ev(i)], idempotency=idem(k)))
        assert sum(isinstance(r, list) for r in results) == 1
        assert sum(isinstance(r, IdempotencyKeyTaken) for r in results) == 7
        streams_written = [s for s in (f"t-{round_no}-{i}" for i in range(8)) if store.stream_version(s) is not None]
        assert len(streams_written) == 1
        record = store.find_idempotency("player-1", key)
        assert record is not None


def wait_until(condition: Callable[[], bool], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        time.sleep(0.01)


class LogFollower:
    """A reader following the global log with a moving position, as the relay and projections do."""

    def __init__(self, store: EventStorage, limit: int = 7) -> None:
        self.store = store
        self.limit = limit
        self.position = START
        self.seen: list[RecordedEvent] = []

    def poll(self) -> int:
        batch = self.store.read_log(self.position, self.limit)
        for e in batch:
            assert e.log_position > self.position, f"log went backwards: {e.log_position} after {self.position}"
            self.position = e.log_position
        self.seen.extend(batch)
        return len(batch)

    def keys(self) -> list[tuple[str, int]]:
        return [(e.stream_id, e.version) for e in self.seen]


@postgres_only
def test_reader_never_skips_a_late_commit_from_an_older_transaction(store: EventStore) -> None:
    store.append("before", 0, evs(3))
    all_readable(store)
    follower = LogFollower(store)
    while follower.poll():
        pass
    assert follower.keys() == [("before", 1), ("before", 2), ("before", 3)]

    with store.pool.connection() as held, held.transaction():
        # The held transaction takes its xid first (append_in writes straight away) ...
        held_events = store.append_in(held, "held", 0, evs(4))
        held_xid = held_events[0].tx_id

        # ... then many writers on other streams commit with later xids and higher global positions.
        def write(i: int) -> None:
            for k in range(5):
                store.append(f"writer-{i}", k * 2, evs(2, start=k * 2))

        with ThreadPoolExecutor(8) as executor:
            list(executor.map(write, range(8)))
        with store.pool.connection() as other:
            row = other.execute(
                """SELECT count(*) AS n, min(tx_id::text::bigint) AS min_tx, min(global_position) AS min_pos
                   FROM events WHERE stream_id LIKE 'writer-%'"""
            ).fetchone()
        assert row is not None and row["n"] == 80, "the other writers have committed"
        assert row["min_tx"] > held_xid
        assert row["min_pos"] > max(e.global_position for e in held_events)

        # While the old transaction is open, the reader must not move past it.
        for _ in range(20):
            follower.poll()
        assert follower.keys()[3:] == [], "the reader passed events while an older transaction was still open"

    # The late commit lands after the reader's position; nothing is skipped or repeated.
    total = 3 + 4 + 8 * 10
    wait_until(lambda: (follower.poll(), len(follower.seen))[1] >= total)
    for _ in range(5):
        assert follower.poll() == 0
    keys = follower.keys()
    assert len(keys) == len(set(keys)) == total
    assert keys[3:7] == [("held", v) for v in range(1, 5)], "the held transaction comes first (smallest xid)"
    positions = [e.log_position for e in follower.seen]
    assert positions == sorted(positions)
    assert sorted(keys) == sorted(
        [("before", v) for v in range(1, 4)]
        + [("held", v) for v in range(1, 5)]
        + [(f"writer-{i}", v) for i in range(8) for v in range(1, 11)]
    )


@postgres_only
def test_reader_following_concurrent_writers_and_held_transactions_sees_each_event_once(store: EventStore) -> None:
    """Writers, transactions held open for a while and a reader all at once; the reader's order never goes back."""
    follower = LogFollower(store, limit=5)
    stop = threading.Event()
    errors: list[BaseException] = []

    def follow() -> None:
        try:
            while not stop.is_set():
                if follower.poll() == 0:
                    time.sleep(0.001)
        except BaseException as exc:
            errors.append(exc)

    def slow_writer(i: int) -> None:
        for k in range(4):
            with store.pool.connection() as conn, conn.transaction():
                store.append_in(conn, f"slow-{i}", k, [ev(k)])
                time.sleep(0.05)  # held open while fast writers commit

    def fast_writer(i: int) -> None:
        for k in range(15):
            store.append(f"fast-{i}", k, [ev(k)])

    reader = threading.Thread(target=follow)
    reader.start()
    try:
        with ThreadPoolExecutor(10) as executor:
            futures = [executor.submit(slow_writer, i) for i in range(3)]
            futures += [executor.submit(fast_writer, i) for i in range(6)]
            for f in futures:
                f.result()
        total = 3 * 4 + 6 * 15
        wait_until(lambda: len(follower.seen) >= total or bool(errors))
    finally:
        stop.set()
        reader.join()
    assert errors == []
    keys = follower.keys()
    assert len(keys) == len(set(keys)) == total
    assert Counter(stream.split("-")[0] for stream, _ in keys) == {"slow": 12, "fast": 90}
    for stream in {s for s, _ in keys}:
        versions = [v for s, v in keys if s == stream]
        assert versions == sorted(versions), f"{stream} out of order in the log"


def test_read_log_orders_by_transaction_then_position(store: EventStorage) -> None:
    store.append("a", 0, evs(2))
    store.append("b", 0, evs(3))
    store.append("a", 2, evs(1))
    all_readable(store)
    log = store.read_log()
    assert [(e.stream_id, e.version) for e in log] == [("a", 1), ("a", 2), ("b", 1), ("b", 2), ("b", 3), ("a", 3)]
    assert [e.log_position for e in log] == sorted(e.log_position for e in log)
    assert store.read_log(log[1].log_position) == log[2:]
    assert store.read_log(log[-1].log_position) == []
    assert store.read_log(limit=2) == log[:2]


def test_iterate_log_yields_everything_once_in_batches(store: EventStorage) -> None:
    expected = []
    for i in range(40):
        expected.extend(store.append(f"s-{i % 7}", store.stream_version(f"s-{i % 7}") or 0, evs(1 + i % 4)))
    assert len(expected) == sum(1 + i % 4 for i in range(40))
    all_readable(store)

    batches = list(store.iterate_log(batch_size=9))
    assert all(1 <= len(b) <= 9 for b in batches)
    assert all(len(b) == 9 for b in batches[:-1])
    flat = [e for b in batches for e in b]
    assert flat == sorted(expected, key=lambda e: e.log_position)
    assert len({e.global_position for e in flat}) == len(flat)
    assert flat == store.read_log(limit=10_000)

    middle = flat[len(flat) // 2].log_position
    assert [e for b in store.iterate_log(middle, batch_size=4) for e in b] == flat[len(flat) // 2 + 1 :]
    assert list(store.iterate_log(flat[-1].log_position)) == []


def test_iterate_log_of_an_empty_store(store: EventStorage) -> None:
    assert list(store.iterate_log()) == []
    assert store.read_log() == []


@postgres_only
def test_payload_is_stored_as_a_json_object_that_casts_to_jsonb(store: EventStore, db_url: str) -> None:
    store.append("table-1", 0, [ev(1)])
    with psycopg.connect(db_url) as conn:
        row = conn.execute("SELECT json_typeof(data), data->>'card', data::jsonb ->> 'card' FROM events").fetchone()
    assert row == ("object", "AS", "AS")


@postgres_only
def test_the_stored_texts_are_the_canonical_json_the_hash_covers(store: EventStore, db_url: str) -> None:
    """An auditor can check an event's hash from the texts the database holds, with no JSON encoder of its own."""
    data = {"seat": 2, "cards": ["9D", "9H"], "note": "caf\u00e9 \u2660", "beats": {"z": 1, "a": [None, True]}}
    metadata = {"actor": "player-1", "ip": "203.0.113.7"}
    (recorded,) = store.append("table-1", 0, [NewEvent("card_played", data, deal_no=3, metadata=metadata)])
    with psycopg.connect(db_url) as conn:
        row = conn.execute(
            "SELECT data::text, metadata::text FROM events WHERE stream_id = 'table-1' AND version = 1"
        ).fetchone()
    assert row is not None
    data_text, metadata_text = row
    assert data_text == canonical_text(data) and metadata_text == canonical_text(metadata)
    stamp = canonical_timestamp(recorded.occurred_at)
    rehashed = chained_hash(GENESIS_HASH, "table-1", 1, "card_played", 1, 3, data_text, metadata_text, stamp, 2)
    assert rehashed == recorded.hash == recorded.recomputed_hash()


@pytest.mark.parametrize(
    ("data", "metadata", "message"),
    [
        ({"name": "a\x00b"}, {}, r"event field note_added\.data\.name holds the NUL character \(at index 1\)"),
        ({"x": [1, {"y": "\x00"}]}, {}, r"event field note_added\.data\.x\[1\]\.y holds the NUL character"),
        ({"x": 1}, {"ua": "\x00"}, r"event field note_added\.metadata\.ua holds the NUL character"),
        ({"a\x00": 1}, {}, r"event field note_added\.data has a key holding the NUL character: 'a\\x00'"),
    ],
)
def test_the_nul_character_is_refused_before_anything_is_written(
    store: EventStorage, data: dict[str, Any], metadata: dict[str, Any], message: str
) -> None:
    """PostgreSQL's `->` and `->>` fail on a json text holding NUL (as a jsonb cast does), so none may be stored."""
    with pytest.raises(ValueError, match=message):
        store.append("table-1", 0, [NewEvent("note_added", data, metadata=metadata)])
    assert store.stream_version("table-1") is None


def test_a_backslash_before_u0000_is_not_a_nul(store: EventStorage) -> None:
    data = {"text": "\\u0000 is how JSON writes NUL"}
    (recorded,) = store.append("table-1", 0, [NewEvent("note_added", data)])
    (read,) = store.read_stream("table-1")
    assert read.data == data and read == recorded


@postgres_only
def test_postgresql_reads_a_backslash_before_u0000_as_text(store: EventStore, db_url: str) -> None:
    data = {"text": "\\u0000 is how JSON writes NUL"}
    store.append("table-1", 0, [NewEvent("note_added", data)])
    with psycopg.connect(db_url) as conn:
        row = conn.execute("SELECT data::jsonb ->> 'text' FROM events").fetchone()
    assert row == (data["text"],)


@pytest.mark.parametrize("value", [1e16, -0.0, 0.5, 1e-7, float("inf"), float("nan")])
def test_floats_are_refused_before_anything_is_written(store: EventStorage, value: float) -> None:
    """jsonb rewrites some floats (1e16 as 10000000000000000, -0.0 as 0.0), which would break the hash chain."""
    with pytest.raises(ValueError, match=r"event field note_added\.data\.x\[1\] is the float"):
        store.append("table-1", 0, [NewEvent("note_added", {"x": [1, value]})])
    assert store.stream_version("table-1") is None


def test_a_float_in_metadata_is_refused_too(store: EventStorage) -> None:
    with pytest.raises(ValueError, match=r"event field note_added\.metadata\.client\.lag is the float 0\.25"):
        store.append("table-1", 0, [NewEvent("note_added", {"x": 1}, metadata={"client": {"lag": 0.25}})])
    assert store.stream_version("table-1") is None


@postgres_only
def test_the_global_log_is_read_through_its_index_not_sorted(store: EventStore, db_url: str) -> None:
    """A reader's cost must not grow with the log: the commit-order index serves the read, with no Sort node."""
    from infra.event_store import READ_LOG_SQL

    for n in range(40):
        store.append(f"table-{n % 4}", n // 4, [ev(n)])
    with psycopg.connect(db_url) as conn:
        conn.execute("ANALYZE events")
        conn.execute("SET enable_seqscan = off")  # a tiny table: ask whether the index *can* serve the order
        plan = "\n".join(row[0] for row in conn.execute("EXPLAIN " + READ_LOG_SQL, ("0", 0, 500)))
    assert "events_commit_order" in plan and "Sort" not in plan, plan
