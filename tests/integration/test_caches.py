"""The per-process caches of the application service, against the real database.

`FoldedStates` (table states caught up from the store before each use), `KnownSeeds` (server seeds seen
committed), `KnownPlayers` (tokens seen accepted) and the idempotency replay that is looked up only when
a write fails, each through `CardLedger` as the API uses it, and several `CardLedger`s on one database as
several API processes would be.
"""

from __future__ import annotations

import itertools
import json
import random
import threading
import uuid
from collections.abc import Callable, Iterator
from types import SimpleNamespace
from typing import Any

import psycopg
import pytest
from psycopg.types.json import Jsonb
from psycopg_pool import ConnectionPool

import infra.players
import infra.seeds
from domain import table as tables
from domain.events import Event
from domain.shuffle import commitment
from domain.table import TableState
from infra.db import ServiceConnection, open_pool
from infra.event_store import EventStore, fetch_events
from infra.projections.states import ProjectionStates
from infra.seeds import seeds_for
from infra.storage.postgres import PostgresSession, PostgresStorage
from infra.table_loader import (
    EVENTS_AFTER_SQL,
    KnownTable,
    TableEventRows,
    evolve_recorded,
    load_events_after,
    load_table,
)
from services.app import folded_states
from services.app.caches import KnownPlayers, KnownSeeds
from services.app.callers import Caller
from services.app.errors import Conflict, PreconditionFailed, ServiceError, Unprocessable
from services.app.folded_states import FoldedStates
from services.app.ledger import CardLedger
from tests import play
from tests.play import MAX_STEPS, deal_ended, next_move, register_with_token, seated_table
from tests.round_trips import Trace, prepares, round_trips, statements, traced_pool

Pool = ConnectionPool[Any]
Conn = psycopg.Connection[dict[str, Any]]

GAME = "cha-kau-tsz"
SEATS = 3


# --------------------------------------------------------------------------- helpers


@pytest.fixture
def other_pool(db_url: str) -> Iterator[Pool]:
    """A second pool on the same database: what a second API process would have."""
    pool = open_pool(db_url, min_size=1, max_size=5)
    yield pool
    pool.close()


@pytest.fixture
def closed_conn(db_url: str) -> Conn:
    """A connection that fails any statement: a cache that answers with it asked the store nothing."""
    connection: Conn = psycopg.connect(db_url, autocommit=True, row_factory=psycopg.rows.dict_row)
    connection.close()
    return connection


def ledger_on(pool: Pool) -> CardLedger:
    """A CardLedger with caches of its own, as one API process has."""
    return CardLedger(PostgresStorage(pool), None)


def truth(conn: Conn, table_id: str) -> TableState:
    """The table's state folded from the store, bypassing every cache."""
    state = load_table(conn, table_id)
    assert state is not None, f"table {table_id} is not in the store"
    return state


def stream_head(conn: Conn, table_id: str) -> tuple[int, str]:
    row = conn.execute("SELECT version, last_hash FROM streams WHERE stream_id = %s", (table_id,)).fetchone()
    assert row is not None
    return int(row["version"]), str(row["last_hash"])


def known_at(conn: Conn, table_id: str, version: int) -> KnownTable:
    """The table as it was at `version`, with the hash of that event: a cache entry that old."""
    state = load_table(conn, table_id, up_to_version=version)
    row = conn.execute("SELECT hash FROM events WHERE stream_id = %s AND version = %s", (table_id, version)).fetchone()
    assert state is not None and row is not None
    return KnownTable(state, str(row["hash"]))


def stored_seeds(conn: Conn, table_id: str) -> dict[int, bytes]:
    rows = conn.execute("SELECT deal_no, server_seed FROM deal_seeds WHERE stream_id = %s", (table_id,)).fetchall()
    return {int(r["deal_no"]): bytes(r["server_seed"]) for r in rows}


def play_until(
    ledger: CardLedger,
    conn: Conn,
    table_id: str,
    players: list[Caller],
    rng: random.Random,
    done: Callable[[TableState], bool],
) -> list[dict[str, Any]]:
    """Random legal actions through `ledger`, on the store's state (`truth`), until `done(state)`; every event of
    the answers."""

    def act(seat: int, action: dict[str, Any]) -> dict[str, Any]:
        return ledger.act(players[seat], table_id, action, uuid.uuid4().hex, None)

    answers = play.play_until(lambda: truth(conn, table_id), act, rng, done)
    return [event for answer in answers for event in answer["events"]]


def version_at_least(version: int) -> Callable[[TableState], bool]:
    return lambda state: state.version >= version


def spy(monkeypatch: pytest.MonkeyPatch, owner: object, name: str) -> list[tuple[Any, ...]]:
    """Record the calls of `owner.name` (a module's function or an object's method), still calling it."""
    calls: list[tuple[Any, ...]] = []
    real = getattr(owner, name)

    def recording(*args: Any, **kwargs: Any) -> Any:
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, recording)
    return calls


def without_names(view: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in view.items() if key != "players"}


# --------------------------------------------------------------------------- two processes, one table


@pytest.mark.parametrize("catch_up_limit", [folded_states.CATCH_UP_LIMIT, 2], ids=["default-limit", "limit-2"])
def test_two_ledgers_taking_turns_at_one_table_always_see_the_latest_write(
    pool: Pool, other_pool: Pool, conn: Conn, monkeypatch: pytest.MonkeyPatch, catch_up_limit: int
) -> None:
    """Two API processes play one table, one action each in turn, each action pinned with If-Match.

    A write by one ledger finds its cache behind by the other's writes; a read of either shows the
    latest version. Reads of the ledger that did not act happen only every other pair of steps, so
    half of the writes start from a cache the other ledger has moved past, and half of those reads
    from a cache one write behind. With a catch-up limit of 2, a deal's start (many events) is
    further behind than that, and the state is reloaded instead of folded on.
    """
    monkeypatch.setattr(folded_states, "CATCH_UP_LIMIT", catch_up_limit)
    ledgers = (ledger_on(pool), ledger_on(other_pool))
    players = [register_with_token(ledgers[n % 2], f"player-{n}")[0] for n in range(SEATS)]
    opened = ledgers[0].open_table(players[0], GAME, SEATS, {})
    table_id = str(opened["id"])
    version = int(opened["version"])
    assert version == 1

    for seat, player in enumerate(players):
        answer = ledgers[(seat + 1) % 2].sit(player, table_id, seat, f"client-{seat}")
        assert answer["seat"] == seat
        assert isinstance(answer["version"], int) and answer["version"] > version
        version = answer["version"]
        assert stream_head(conn, table_id)[0] == version
        for ledger in ledgers:
            assert ledger.queries.table_view(table_id)["version"] == version

    rng = random.Random(20261129)
    step = 0
    while not deal_ended(2)(state := truth(conn, table_id)):
        assert step < MAX_STEPS
        assert state.version == version
        acting = ledgers[step % 2]
        seat, action = next_move(state, rng)
        answer = acting.act(players[seat], table_id, action, uuid.uuid4().hex, if_match=version)
        positions = [event["position"] for event in answer["events"]]
        assert positions == list(range(version + 1, version + 1 + len(positions)))
        assert answer["version"] == version + len(positions)
        version = int(answer["version"])
        assert stream_head(conn, table_id)[0] == version

        readers = ledgers if step % 4 in (0, 1) else (acting,)
        expected = tables.public_view(truth(conn, table_id))
        for ledger in readers:
            public = ledger.queries.table_view(table_id)
            assert public["version"] == version
            assert without_names(public) == without_names(expected)
            assert public["players"] == [{"id": p.player_id, "name": p.name} for p in players]
            for n, player in enumerate(players):
                mine = ledger.queries.seat_view(player, table_id)
                assert (mine["version"], mine["seat"]) == (version, n)
        step += 1

    assert step > 50  # two whole deals were played
    final = truth(conn, table_id)
    assert final.version == version
    for ledger in ledgers:
        assert ledger.queries.load_state(table_id) == final


def test_a_write_from_a_stale_cache_is_not_lost(pool: Pool, other_pool: Pool, conn: Conn) -> None:
    """Without If-Match, a write starting from a cache the other process moved past is decided on the
    current state (not refused, not appended after a stale version)."""
    first, second = ledger_on(pool), ledger_on(other_pool)
    players = [register_with_token(first, f"p{n}")[0] for n in range(SEATS)]
    table_id = seated_table(first, players, GAME)
    assert second.queries.load_state(table_id) == truth(conn, table_id)  # the second ledger caches it now
    rng = random.Random(3)
    for _ in range(6):
        state = truth(conn, table_id)
        seat, action = next_move(state, rng)
        answer = first.act(players[seat], table_id, action, uuid.uuid4().hex, None)
        assert answer["version"] > state.version
    state = truth(conn, table_id)
    seat, action = next_move(state, rng)
    answer = second.act(players[seat], table_id, action, uuid.uuid4().hex, None)
    first_position = answer["events"][0]["position"]
    assert first_position == state.version + 1
    assert second.queries.load_state(table_id) == first.queries.load_state(table_id) == truth(conn, table_id)


def test_threads_of_two_ledgers_racing_at_one_table_keep_every_cache_consistent(
    pool: Pool, other_pool: Pool, store: EventStore, db_url: str
) -> None:
    """Eight threads, four per ledger, act at one table at once without If-Match. Races are refused (a
    ServiceError: not your turn, a card already played, a lost race retried too often) but never
    corrupt: the stream is gapless and chained, and both ledgers' caches agree with a fresh fold."""
    ledgers = (ledger_on(pool), ledger_on(other_pool))
    players = [register_with_token(ledgers[0], f"p{n}")[0] for n in range(SEATS)]
    table_id = seated_table(ledgers[0], players, GAME)
    applied: list[int] = []
    refused: list[str] = []
    failures: list[BaseException] = []

    def work(worker: int) -> None:
        ledger = ledgers[worker % 2]
        rng = random.Random(worker)
        try:
            with psycopg.connect(db_url, autocommit=True, row_factory=psycopg.rows.dict_row) as own:
                for _ in range(25):
                    state = ledger.queries.load_state(table_id) if worker % 3 else truth(own, table_id)
                    if deal_ended(2)(state):
                        return
                    seat, action = next_move(state, rng)
                    try:
                        answer = ledger.act(players[seat], table_id, action, uuid.uuid4().hex, None)
                    except ServiceError as error:
                        refused.append(error.code)
                        continue
                    applied.append(int(answer["version"]))
        except BaseException as error:  # reported by the test's thread
            failures.append(error)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert failures == []
    assert len(applied) > 20
    assert len(set(applied)) == len(applied)  # no two writes claimed the same version
    events = store.read_stream(table_id)
    assert [e.version for e in events] == list(range(1, len(events) + 1))
    assert all(e.recomputed_hash() == e.hash for e in events)
    assert all(later.prev_hash == earlier.hash for earlier, later in itertools.pairwise(events))
    with psycopg.connect(db_url, autocommit=True, row_factory=psycopg.rows.dict_row) as own:
        final = truth(own, table_id)
    assert final.version == len(events) == max(applied)
    for ledger in ledgers:
        assert ledger.queries.load_state(table_id) == final
        assert ledger.queries.table_view(table_id)["version"] == final.version


# --------------------------------------------------------------------------- FoldedStates


@pytest.fixture
def long_table(pool: Pool, conn: Conn) -> str:
    """A table well into its first deal (at least 30 events)."""
    ledger = ledger_on(pool)
    players = [register_with_token(ledger, f"p{n}")[0] for n in range(SEATS)]
    table_id = seated_table(ledger, players, GAME)
    play_until(ledger, conn, table_id, players, random.Random(11), version_at_least(30))
    return table_id


@pytest.mark.parametrize("behind", [0, 1, 2, 3, 4, 5, 12, 29])
def test_current_folds_a_state_a_little_behind_and_reloads_one_far_behind(
    long_table: str, conn: Conn, monkeypatch: pytest.MonkeyPatch, behind: int
) -> None:
    monkeypatch.setattr(folded_states, "CATCH_UP_LIMIT", 3)
    head, last_hash = stream_head(conn, long_table)
    assert head - behind >= 1
    cache = FoldedStates()
    cache.remember(long_table, known_at(conn, long_table, head - behind))
    loads = spy(monkeypatch, TableEventRows, "table_events")
    folds = spy(monkeypatch, folded_states, "evolve_recorded")

    current = cache.current(TableEventRows(conn), long_table)

    assert current is not None
    assert current.state == truth(conn, long_table)
    assert current.state.version == head
    assert current.last_hash == last_hash
    assert len(loads) == (1 if behind > 3 else 0), "a state more than CATCH_UP_LIMIT behind is reloaded"
    assert len(folds) == (1 if 0 < behind <= 3 else 0), "a state a few events behind is folded on"
    # The cache keeps what it caught up to: asked again, it has nothing to fold or load.
    loads.clear()
    folds.clear()
    assert cache.current(TableEventRows(conn), long_table) is current
    assert (loads, folds) == ([], [])


def test_current_loads_a_table_it_does_not_know_and_keeps_it(long_table: str, conn: Conn) -> None:
    cache = FoldedStates()
    assert not cache.is_known(long_table)
    current = cache.current(TableEventRows(conn), long_table)
    assert current is not None
    assert (current.state.version, current.last_hash) == stream_head(conn, long_table)
    assert current.state == truth(conn, long_table)
    assert cache.is_known(long_table)


def test_current_of_an_unknown_table_is_none(conn: Conn) -> None:
    cache = FoldedStates()
    table_id = str(uuid.uuid4())
    assert cache.current(TableEventRows(conn), table_id) is None
    assert not cache.is_known(table_id)
    assert cache.current(TableEventRows(conn), table_id) is None


def test_an_older_state_never_replaces_a_newer_one(pool: Pool, conn: Conn) -> None:
    ledger = ledger_on(pool)
    players = [register_with_token(ledger, f"p{n}")[0] for n in range(SEATS)]
    table_id = seated_table(ledger, players, GAME)
    rng = random.Random(5)
    play_until(ledger, conn, table_id, players, rng, version_at_least(20))
    cache = FoldedStates()
    newer = cache.current(TableEventRows(conn), table_id)
    assert newer is not None
    head = newer.state.version

    for version in (head - 1, head - 5, 1):
        cache.remember(table_id, known_at(conn, table_id, version))
        # Still the newer entry: nothing after it to fold, so the very same object comes back.
        assert cache.current(TableEventRows(conn), table_id) is newer

    play_until(ledger, conn, table_id, players, rng, lambda state: state.version > head)
    newest = known_at(conn, table_id, stream_head(conn, table_id)[0])
    cache.remember(table_id, newest)  # a newer state does replace
    assert cache.current(TableEventRows(conn), table_id) is newest
    cache.remember(table_id, newer)
    assert cache.current(TableEventRows(conn), table_id) is newest


def test_the_cache_is_bounded_and_forgets_the_least_recently_used_table(pool: Pool, conn: Conn) -> None:
    ledger = ledger_on(pool)
    players = [register_with_token(ledger, f"p{n}")[0] for n in range(SEATS)]
    tables = [seated_table(ledger, players, GAME) for _ in range(3)]
    cache = FoldedStates(size=2)
    for table_id in tables:
        assert cache.current(TableEventRows(conn), table_id) is not None
    assert len(cache) == 2
    assert [cache.is_known(table_id) for table_id in tables] == [False, True, True]
    with pytest.raises(ValueError, match="at least 1 state per table"):
        FoldedStates(states_per_table=0)


def test_at_hits_a_kept_version_and_folds_on_from_a_near_older_one(
    long_table: str, conn: Conn, monkeypatch: pytest.MonkeyPatch
) -> None:
    head, _ = stream_head(conn, long_table)
    cache = ProjectionStates(states_per_table=2)
    cache.remember(long_table, known_at(conn, long_table, head - 5))
    loads = spy(monkeypatch, TableEventRows, "table_events")
    reads = spy(monkeypatch, TableEventRows, "events_after")

    assert cache.at(TableEventRows(conn), long_table, head - 5) == load_table(conn, long_table, up_to_version=head - 5)
    assert (loads, reads) == ([], []), "a kept version costs no query"
    folded = cache.at(TableEventRows(conn), long_table, head - 2)
    assert folded == load_table(conn, long_table, up_to_version=head - 2)
    assert (len(loads), len(reads)) == (0, 1), "a near older state is folded on with the events between"
    # Both are kept now (two per table): the older one still hits, and the folded one is the newest.
    assert cache.at(TableEventRows(conn), long_table, head - 5) is not None and len(reads) == 1
    newest = cache.newest(long_table)
    assert newest is not None and newest.state is folded
    cache.remember(long_table, known_at(conn, long_table, head))
    assert cache.at(TableEventRows(conn), long_table, head - 5) is not None and len(loads) == 1, (
        "the oldest kept was dropped"
    )


def test_slices_are_kept_only_when_asked_for_and_bounded(long_table: str, conn: Conn) -> None:
    state = truth(conn, long_table)
    off = ProjectionStates()
    off.remember_slice((long_table, 1, 2), (state,))
    assert off.slice((long_table, 1, 2)) is None
    on = ProjectionStates(slices=1)
    on.remember_slice((long_table, 1, 2), (state,))
    assert on.slice((long_table, 1, 2)) == (state,)
    on.remember_slice((long_table, 3, 4), (state,))
    assert on.slice((long_table, 1, 2)) is None and on.slice((long_table, 3, 4)) == (state,)
    on.clear()
    assert on.slice((long_table, 3, 4)) is None


def test_a_ledger_serves_its_cached_table_without_a_reload(
    pool: Pool, conn: Conn, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each write and read of a table the ledger knows costs one query for the events after its version."""
    ledger = ledger_on(pool)
    players = [register_with_token(ledger, f"p{n}")[0] for n in range(SEATS)]
    table_id = seated_table(ledger, players, GAME)
    loads = spy(monkeypatch, TableEventRows, "table_events")
    play_until(ledger, conn, table_id, players, random.Random(8), version_at_least(25))
    assert ledger.queries.table_view(table_id)["version"] == truth(conn, table_id).version
    assert loads == []


def test_bounded_loads_equal_a_fold_of_the_whole_stream_at_every_version(
    pool: Pool, store: EventStore, conn: Conn
) -> None:
    """`load_table_events` (both statements: the latest state, and the state at a version) against a fold of
    every event, at every version of a table three deals long, next to another table being played."""
    ledger = ledger_on(pool)
    players = [register_with_token(ledger, f"p{n}")[0] for n in range(SEATS)]
    table_id = seated_table(ledger, players, GAME)
    other_id = seated_table(ledger, players, GAME)
    rng = random.Random(37)
    for deal_no in (1, 2):
        half = truth(conn, table_id).version // 2 + 1  # the other table's events interleave with this one's
        play_until(ledger, conn, other_id, players, rng, version_at_least(half))
        play_until(ledger, conn, table_id, players, rng, deal_ended(deal_no))
    play_until(ledger, conn, table_id, players, rng, lambda s: s.deal_no == 3 and s.status == tables.PLAYING)
    play_until(ledger, conn, table_id, players, rng, version_at_least(truth(conn, table_id).version + 4))

    events = store.read_stream(table_id)
    assert [e.version for e in events] == list(range(1, len(events) + 1))
    assert {e.deal_no for e in events} == {0, 1, 2, 3}
    state: TableState | None = None
    for event in events:
        state = tables.evolve(state, Event(event.type, event.data, event.occurred_at))
        assert load_table(conn, table_id, up_to_version=event.version) == state, f"at version {event.version}"
    assert state is not None and state.version == len(events)
    assert load_table(conn, table_id) == state
    assert load_table(conn, table_id, up_to_version=len(events) + 10) == state
    assert load_table(conn, table_id, up_to_version=0) is None
    assert load_table(conn, str(uuid.uuid4())) is None


def test_the_events_after_a_version_are_read_on_the_connections_kept_cursor(long_table: str, conn: Conn) -> None:
    """A service connection reads a table's newest events on one cursor of its own, made once: the rows are a
    cursor's of their own (`fetch_events`), and a failed read on it (a transaction rolled back) leaves it usable."""
    assert isinstance(conn, ServiceConnection) and conn.events_cursor is None
    first = load_events_after(conn, long_table, 10, 5)
    kept = conn.events_cursor
    assert kept is not None
    assert load_events_after(conn, long_table, 3, 4) == fetch_events(conn, EVENTS_AFTER_SQL, (long_table, 3, 4))
    assert load_events_after(conn, long_table, 10, 5) == first and conn.events_cursor is kept
    with pytest.raises(psycopg.errors.InvalidTextRepresentation), conn.transaction():
        load_events_after(conn, long_table, "ten", 5)  # type: ignore[arg-type]
    assert load_events_after(conn, long_table, 10, 5) == first and conn.events_cursor is kept
    kept.close()
    assert load_events_after(conn, long_table, 10, 5) == first and conn.events_cursor is not kept
    with psycopg.connect(conn.info.dsn) as plain:  # not a service connection: a cursor per read
        assert load_events_after(plain, long_table, 10, 5) == first  # type: ignore[arg-type]


def test_load_events_after_and_evolve_recorded(long_table: str, conn: Conn) -> None:
    head = stream_head(conn, long_table)[0]
    after = load_events_after(conn, long_table, 10, 5)
    assert [e.version for e in after] == [11, 12, 13, 14, 15]
    assert [e.version for e in load_events_after(conn, long_table, head - 2, 5)] == [head - 1, head]
    assert load_events_after(conn, long_table, head, 5) == []
    at_10 = known_at(conn, long_table, 10).state
    assert evolve_recorded(at_10, after) == load_table(conn, long_table, up_to_version=15)
    assert evolve_recorded(at_10, []) is at_10
    with pytest.raises(ValueError, match="event version 12 does not follow state version 10"):
        evolve_recorded(at_10, after[1:])  # a gap
    with pytest.raises(ValueError, match="does not follow"):
        evolve_recorded(known_at(conn, long_table, 11).state, after)  # already folded


# --------------------------------------------------------------------------- KnownSeeds


def session_on(conn: Conn, pool: Pool) -> PostgresSession:
    """The PostgreSQL session of the write path on `conn`: KnownSeeds asks it for seeds it does not know."""
    return PostgresSession(conn, EventStore(pool))


def test_known_seeds_remember_nothing_by_themselves(pool: Pool, conn: Conn, closed_conn: Conn) -> None:
    """A seed made in a transaction that rolls back is gone, and a later call makes (and stores) another."""
    seeds = KnownSeeds()
    on, closed = session_on(conn, pool), session_on(closed_conn, pool)
    table_id = f"seed-test-{uuid.uuid4()}"
    with conn.transaction():
        made = seeds.seeds_for(on, table_id, [0, 1, 2])
        assert sorted(made) == [1, 2]
        raise psycopg.Rollback()
    assert stored_seeds(conn, table_id) == {}
    with pytest.raises(psycopg.OperationalError):
        seeds.seeds_for(closed, table_id, [1])  # not known: it asks the store

    later = seeds.seeds_for(on, table_id, [1, 2])
    assert later == stored_seeds(conn, table_id)
    assert later[1] != made[1] and later[2] != made[2]


def test_known_seeds_are_served_without_a_query(pool: Pool, conn: Conn, closed_conn: Conn) -> None:
    seeds = KnownSeeds()
    on, closed = session_on(conn, pool), session_on(closed_conn, pool)
    table_id = f"seed-test-{uuid.uuid4()}"
    stored = seeds_for(conn, table_id, [1, 2])  # committed (autocommit)
    seeds.remember(table_id, stored)

    assert seeds.seeds_for(closed, table_id, [0, 1, 2]) == stored
    assert seeds.seeds_for(closed, table_id, [2]) == {2: stored[2]}
    with pytest.raises(psycopg.OperationalError):
        seeds.seeds_for(closed, table_id, [2, 3])  # one not known: the store is asked
    with pytest.raises(psycopg.OperationalError):
        seeds.seeds_for(closed, f"seed-test-{uuid.uuid4()}", [1])  # known seeds are per table
    both = seeds.seeds_for(on, table_id, [2, 3])
    assert both[2] == stored[2] and both == {2: stored[2], 3: stored_seeds(conn, table_id)[3]}


def test_known_seeds_lookup_tells_what_the_store_gave(pool: Pool, conn: Conn, closed_conn: Conn) -> None:
    """The write path remembers only the seeds the store gave (`lookup`'s second part) once its append commits."""
    seeds = KnownSeeds()
    on, closed = session_on(conn, pool), session_on(closed_conn, pool)
    table_id = f"seed-test-{uuid.uuid4()}"
    first, read = seeds.lookup(on, table_id, (0, 1, 2))
    assert first == read == stored_seeds(conn, table_id) and sorted(first) == [1, 2]
    seeds.remember(table_id, {1: first[1]})
    again, read = seeds.lookup(on, table_id, (1, 2))
    assert again == first and read == {2: first[2]}
    seeds.remember(table_id, read)
    assert seeds.lookup(closed, table_id, (1, 2)) == (first, {})  # all known: no statement, nothing to remember


def known_seed(seeds: KnownSeeds, closed: PostgresSession, table_id: str, deal_no: int) -> bytes | None:
    """The seed `seeds` knows without asking the store (`closed` fails any statement), or None."""
    try:
        return seeds.seeds_for(closed, table_id, [deal_no])[deal_no]
    except psycopg.OperationalError:
        return None


def test_a_seed_made_in_a_refused_write_is_never_used(
    pool: Pool, other_pool: Pool, conn: Conn, closed_conn: Conn, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first write of a deal makes the next deal's seed. When that write is refused, its seed is not
    remembered, and the seed the table commits to and later reveals is the one stored.

    `CardLedger._write` runs without a transaction, so the seed is stored before the refusal and kept, and
    that stored seed is the one used. (Were the seed made inside the write's transaction, the refusal would
    roll it back and the next write would make and use another: the test allows that too.)
    """
    ledger = ledger_on(pool)
    players = [register_with_token(ledger, f"p{n}")[0] for n in range(SEATS)]
    table_id = seated_table(ledger, players, GAME)
    assert sorted(stored_seeds(conn, table_id)) == [1]

    made: list[bytes] = []

    def token_bytes(size: int) -> bytes:
        made.append(bytes([len(made) + 1]) * size)
        return made[-1]

    monkeypatch.setattr(infra.seeds, "secrets", SimpleNamespace(token_bytes=token_bytes))

    state = truth(conn, table_id)
    to_act = tables.to_act(state)
    assert to_act is not None
    wrong_seat = (to_act + 1) % SEATS
    with pytest.raises(Conflict) as refused:
        ledger.act(players[wrong_seat], table_id, {"type": "play", "cards": []}, uuid.uuid4().hex, None)
    assert refused.value.code == "not_your_turn"
    drawn = len(made)
    assert drawn >= 1  # the refused write drew a seed for deal 2 (and one for each other deal it asked for)
    stored_then = stored_seeds(conn, table_id).get(2)
    rolled_back = stored_then is None
    assert stored_then is None or stored_then in made
    closed = session_on(closed_conn, pool)
    assert known_seed(ledger.seeds, closed, table_id, 2) in (None, stored_then)  # never one not stored
    assert known_seed(ledger.seeds, closed, table_id, 2) is None  # nor one from a refused write

    rng = random.Random(17)
    seat, action = next_move(state, rng)
    ledger.act(players[seat], table_id, action, uuid.uuid4().hex, None)
    stored = stored_seeds(conn, table_id)
    used = stored[2]
    assert used in made[drawn:] if rolled_back else used == stored_then
    assert ledger.seeds.seeds_for(closed, table_id, [1, 2]) == {1: stored[1], 2: used}

    events = play_until(ledger, conn, table_id, players, rng, deal_ended(1))
    ended = [e for e in events if e["type"] == tables.DEAL_ENDED]
    assert [e["data"]["next_commitment"] for e in ended] == [commitment(used)]
    assert truth(conn, table_id).next_commitment == commitment(used)

    # Deal 2 is started by another process (it reads the stored seed) and played to its end, which reveals it.
    events = play_until(ledger_on(other_pool), conn, table_id, players, rng, lambda s: s.status == tables.PLAYING)
    started = [e for e in events if e["type"] == tables.DEAL_STARTED]
    assert [e["data"]["commitment"] for e in started] == [commitment(used)]
    events = play_until(ledger, conn, table_id, players, rng, deal_ended(2))
    ended = [e for e in events if e["type"] == tables.DEAL_ENDED]
    assert [e["data"]["server_seed"] for e in ended] == [used.hex()]
    assert stored_seeds(conn, table_id)[2] == used


def test_a_ledger_reads_each_seed_once(pool: Pool, conn: Conn, monkeypatch: pytest.MonkeyPatch) -> None:
    ledger = ledger_on(pool)
    players = [register_with_token(ledger, f"p{n}")[0] for n in range(SEATS)]
    table_id = seated_table(ledger, players, GAME)
    reads = spy(monkeypatch, infra.seeds, "seeds_for")
    play_until(ledger, conn, table_id, players, random.Random(2), version_at_least(25))
    state = truth(conn, table_id)
    assert (state.deal_no, state.status) == (1, tables.PLAYING)
    assert len(reads) == 1  # the first action of deal 1 made deal 2's seed; every later one knew both


# --------------------------------------------------------------------------- KnownPlayers / authenticate


def test_authenticate_caches_a_valid_token_and_still_refuses_wrong_ones(
    pool: Pool, other_pool: Pool, monkeypatch: pytest.MonkeyPatch
) -> None:
    registering = ledger_on(pool)
    caller, token = register_with_token(registering, "alice")
    player_id, _, secret = token.partition(".")
    assert player_id == caller.player_id and secret

    cold = ledger_on(other_pool)
    lookups = spy(monkeypatch, infra.players, "player_for_token")

    assert cold.identity.authenticate(token) == caller
    assert len(lookups) == 1
    assert cold.identity.authenticate(token) == caller  # from the cache
    assert len(lookups) == 1
    assert registering.identity.authenticate(token) == caller  # registering it was seeing it accepted
    assert len(lookups) == 1

    wrong_secret = f"{player_id}.{secret[::-1]}"
    assert wrong_secret != token
    for wrong in (wrong_secret, f"{player_id}.", f"{player_id}.{secret}x", player_id, f"{player_id}.{secret[:-1]}"):
        assert cold.identity.authenticate(wrong) is None, wrong
        assert registering.identity.authenticate(wrong) is None, wrong
    unknown = f"{uuid.uuid4()}.{secret}"
    assert cold.identity.authenticate(unknown) is None
    assert cold.identity.authenticate(unknown) is None  # a refusal is not cached as an acceptance
    assert cold.identity.authenticate(f"{uuid.uuid4()}") is None

    # The refusals left the right token cached, and nothing else.
    lookups.clear()
    assert cold.identity.authenticate(token) == caller
    assert lookups == []
    other, other_token = register_with_token(registering, "bob")
    assert cold.identity.authenticate(other_token) == other
    assert len(lookups) == 1
    bob_with_alices_secret = f"{other.player_id}.{secret}"
    assert cold.identity.authenticate(bob_with_alices_secret) is None


def test_known_players_need_the_whole_token(pool: Pool) -> None:
    players = KnownPlayers()
    with pool.connection() as conn:
        player, token = infra.players.register(conn, "carol")
    assert players.for_token(token) is None
    players.remember_token(player, token)
    assert players.for_token(token) == player
    player_id, _, secret = token.partition(".")
    assert players.for_token(f"{player_id}.{secret[:-1]}") is None
    assert players.for_token(f"{player_id}.") is None
    assert players.for_token(player_id) is None
    assert players.for_token(f"{uuid.uuid4()}.{secret}") is None


# --------------------------------------------------------------------------- idempotency


def test_a_retried_action_replays_its_response_in_any_process(
    pool: Pool, other_pool: Pool, conn: Conn, monkeypatch: pytest.MonkeyPatch
) -> None:
    ledger = ledger_on(pool)
    players = [register_with_token(ledger, f"p{n}")[0] for n in range(SEATS)]
    table_id = seated_table(ledger, players, GAME)
    rng = random.Random(23)
    finds = spy(monkeypatch, ledger.store, "find_idempotency")

    state = truth(conn, table_id)
    seat, action = next_move(state, rng)
    key = uuid.uuid4().hex
    first = ledger.act(players[seat], table_id, action, key, if_match=state.version)
    assert finds == []  # a first attempt does not look the key up
    # The record keeps what the log does not: no event's hash (the receipt's is the last event's).
    record = conn.execute("SELECT answer::text AS text FROM idempotency_keys WHERE key = %s", (key,)).fetchone()
    assert record is not None
    assert all(str(event["hash"]) not in record["text"] for event in first["events"])

    # The table moves on: the next seat plays, and the action would now be refused.
    later = truth(conn, table_id)
    next_seat, next_action = next_move(later, rng)
    assert next_seat != seat
    ledger.act(players[next_seat], table_id, next_action, uuid.uuid4().hex, None)
    head = stream_head(conn, table_id)
    with pytest.raises(ServiceError):
        ledger.act(players[seat], table_id, action, uuid.uuid4().hex, None)

    assert ledger.act(players[seat], table_id, action, key, if_match=state.version) == first
    assert ledger.act(players[seat], table_id, dict(action), key, None) == first
    assert stream_head(conn, table_id) == head  # a replay appends nothing

    cold = ledger_on(other_pool)
    assert cold.act(players[seat], table_id, action, key, None) == first
    # The same JSON text, keys in the same order: the answer is served as it is.
    assert json.dumps(cold.act(players[seat], table_id, action, key, None)) == json.dumps(first)
    assert cold.act(players[seat], table_id, action, key, if_match=state.version) == first
    assert stream_head(conn, table_id) == head

    for reuser in (ledger, cold):
        with pytest.raises(Unprocessable) as reused:
            reuser.act(players[seat], table_id, {"type": "ready"}, key, None)
        assert reused.value.code == "idempotency_key_reused"
        with pytest.raises(Unprocessable) as elsewhere:
            reuser.act(players[seat], str(uuid.uuid4()), action, key, None)
        assert elsewhere.value.code == "idempotency_key_reused"
    # The key is the player's own: another player may use the same key.
    after = truth(conn, table_id)
    other_seat, other_action = next_move(after, rng)
    assert other_seat != seat
    answer = cold.act(players[other_seat], table_id, other_action, key, None)
    assert answer != first and answer["version"] > after.version


def test_a_key_reused_for_a_legal_action_is_refused_and_changes_nothing(
    pool: Pool, other_pool: Pool, conn: Conn
) -> None:
    """The reused key is noticed only when its record is written: that write must roll back entirely, and
    neither the table's cached state nor the seeds may keep anything of it."""
    ledger = ledger_on(pool)
    players = [register_with_token(ledger, f"p{n}")[0] for n in range(SEATS)]
    table_id = seated_table(ledger, players, GAME)
    rng = random.Random(29)
    state = truth(conn, table_id)
    seat, action = next_move(state, rng)
    key = uuid.uuid4().hex
    first = ledger.act(players[seat], table_id, action, key, None)
    # Play on until the same seat may act again.
    after_first = int(first["version"])
    play_until(ledger, conn, table_id, players, rng, lambda s: s.version > after_first and tables.to_act(s) == seat)
    before = truth(conn, table_id)
    head = stream_head(conn, table_id)
    legal = next(a for a in (next_move(before, rng)[1] for _ in range(100)) if a != action)

    for reuser in (ledger, ledger_on(other_pool)):
        with pytest.raises(Unprocessable) as reused:
            reuser.act(players[seat], table_id, legal, key, None)
        assert reused.value.code == "idempotency_key_reused"
        assert stream_head(conn, table_id) == head
        assert reuser.queries.load_state(table_id) == before
        assert reuser.act(players[seat], table_id, action, key, None) == first

    answer = ledger.act(players[seat], table_id, legal, uuid.uuid4().hex, if_match=before.version)
    assert answer["version"] > before.version
    assert ledger.queries.load_state(table_id) == truth(conn, table_id)


# --------------------------------------------------------------------------- reads and the projections


def project(conn: Conn, table_id: str, version: int, players: list[Caller]) -> None:
    """Write projected rows for the table at `version`, each marked so a test can tell them from a fold."""
    state = load_table(conn, table_id, up_to_version=version)
    assert state is not None
    public = {**tables.public_view(state), "projected": True}
    parts = {player.player_id: tables.seat_private(state, seat) for seat, player in enumerate(players)}
    conn.execute(
        """INSERT INTO table_views (table_id, game, status, seats, version, created_seq, view, seat_parts,
                                    seat_parts_version)
           VALUES (%s, %s, %s, %s, %s, 1, %s, %s, %s)
           ON CONFLICT (table_id) DO UPDATE SET version = EXCLUDED.version, view = EXCLUDED.view,
             seat_parts = EXCLUDED.seat_parts, seat_parts_version = EXCLUDED.seat_parts_version""",
        (table_id, state.game, state.status, state.seats, version, Jsonb(public), Jsonb(parts), version),
    )


def test_reads_use_a_projection_only_when_current_and_the_table_is_not_cached(
    pool: Pool, other_pool: Pool, conn: Conn
) -> None:
    writer = ledger_on(pool)
    players = [register_with_token(writer, f"p{n}")[0] for n in range(SEATS)]
    table_id = seated_table(writer, players, GAME)
    rng = random.Random(31)
    play_until(writer, conn, table_id, players, rng, version_at_least(15))
    head = stream_head(conn, table_id)[0]

    project(conn, table_id, head, players)
    current = ledger_on(other_pool)  # has never seen the table: the current projection is served
    assert current.queries.table_view(table_id).get("projected") is True
    assert current.queries.seat_view(players[1], table_id).get("projected") is True

    play_until(writer, conn, table_id, players, rng, lambda state: state.version > head)
    new_head = stream_head(conn, table_id)[0]
    behind = ledger_on(other_pool)  # the projection is behind the stream: the state is folded instead
    view = behind.queries.table_view(table_id)
    assert (view["version"], view.get("projected")) == (new_head, None)
    mine = behind.queries.seat_view(players[2], table_id)
    assert (mine["version"], mine.get("projected")) == (new_head, None)

    project(conn, table_id, new_head, players)
    for ledger in (writer, behind):  # both cache the table: they fold on rather than read the projection
        view = ledger.queries.table_view(table_id)
        assert (view["version"], view.get("projected")) == (new_head, None)
        mine = ledger.queries.seat_view(players[0], table_id)
        assert (mine["version"], mine.get("projected")) == (new_head, None)


def test_a_seat_view_is_not_served_from_seat_parts_older_than_the_table_view(
    pool: Pool, other_pool: Pool, conn: Conn
) -> None:
    """A worker of a release before migration 015 moves a table view without its seat parts (during a
    rolling upgrade): the public view is current, the seat parts are not, so a seat's view is folded."""
    writer = ledger_on(pool)
    players = [register_with_token(writer, f"p{n}")[0] for n in range(SEATS)]
    table_id = seated_table(writer, players, GAME)
    rng = random.Random(37)
    play_until(writer, conn, table_id, players, rng, version_at_least(12))
    project(conn, table_id, stream_head(conn, table_id)[0], players)
    play_until(writer, conn, table_id, players, rng, lambda state: state.version > 14)
    head = stream_head(conn, table_id)[0]
    state = load_table(conn, table_id, up_to_version=head)
    assert state is not None
    conn.execute(  # the previous release's upsert: it knows no seat parts
        "UPDATE table_views SET version = %s, view = %s WHERE table_id = %s",
        (head, Jsonb({**tables.public_view(state), "projected": True}), table_id),
    )
    reader = ledger_on(other_pool)
    assert reader.queries.table_view(table_id).get("projected") is True
    for seat, player in enumerate(players):
        mine = reader.queries.seat_view(player, table_id)
        assert (mine.get("projected"), without_names(mine)) == (None, without_names(tables.seat_view(state, seat)))
    assert ledger_on(other_pool).queries.seat_view(players[0], table_id).get("projected") is None
    conn.execute(  # a row written before migration 015, at the stream's head: no seat parts at all
        "UPDATE table_views SET seat_parts = NULL, seat_parts_version = NULL WHERE table_id = %s", (table_id,)
    )
    assert ledger_on(other_pool).queries.table_view(table_id).get("projected") is True
    mine = ledger_on(other_pool).queries.seat_view(players[1], table_id)
    assert (mine.get("projected"), without_names(mine)) == (None, without_names(tables.seat_view(state, 1)))


def test_a_projected_seat_view_is_one_round_trip(pool: Pool, db_url: str, conn: Conn) -> None:
    """The seat view is put together from the table view's row by the read's one statement, as it was read
    from its own row before migration 015 (the players' names aside: this process knows them)."""
    writer = ledger_on(pool)
    players = [register_with_token(writer, f"p{n}")[0] for n in range(SEATS)]
    table_id = seated_table(writer, players, GAME)
    play_until(writer, conn, table_id, players, random.Random(41), version_at_least(10))
    head = stream_head(conn, table_id)[0]
    project(conn, table_id, head, players)
    state = load_table(conn, table_id, up_to_version=head)
    assert state is not None
    reader_pool = open_pool(db_url, min_size=1, max_size=1)
    trace = traced_pool(reader_pool, 1)
    try:
        reader = ledger_on(reader_pool)
        for player in players:
            reader.queries.players.remember(infra.players.Player(player.player_id, player.name))
        for seat, player in enumerate(players):
            start = trace.mark()
            mine = reader.queries.seat_view(player, table_id)
            lines = trace.since(start)
            assert round_trips(lines) - prepares(lines) == 1, statements(lines)  # one read, of the table view's row
            assert without_names(mine) == {**without_names(tables.seat_view(state, seat)), "projected": True}
    finally:
        trace.close()
        reader_pool.close()


# --------------------------------------------------------------------------- writes decided on a kept state


@pytest.fixture
def traced_ledger(db_url: str) -> Iterator[tuple[CardLedger, Trace]]:
    """A ledger on a pool of two connections, both traced: every SQL round trip it makes is counted."""
    pool = open_pool(db_url, min_size=2, max_size=2)
    trace = traced_pool(pool, 2)
    yield ledger_on(pool), trace
    trace.close()
    pool.close()


def test_an_action_where_this_process_wrote_last_is_one_round_trip(
    traced_ledger: tuple[CardLedger, Trace], conn: Conn
) -> None:
    """The state kept from this process's own write is decided on with no read: one action, one statement
    (the guarded append with its idempotency record). A deal's start also reads and makes the next deal's
    seed and asks whether the deal holds an old private block, each once per deal."""
    ledger, trace = traced_ledger
    players = [register_with_token(ledger, f"p{n}")[0] for n in range(SEATS)]
    table_id = seated_table(ledger, players, GAME)
    rng = random.Random(41)
    trips: list[int] = []
    while not deal_ended(1)(state := truth(conn, table_id)):
        seat, action = next_move(state, rng)
        start = trace.mark()
        ledger.act(players[seat], table_id, action, uuid.uuid4().hex, if_match=state.version)
        lines = trace.since(start)
        trips.append(round_trips(lines) - prepares(lines))  # a statement's first use on a connection prepares it
        if state.version > 10 and not deal_ended(1)(truth(conn, table_id)):
            assert trips[-1] == 1, statements(lines)  # the guarded append alone (docs/performance.md)
    assert len(trips) > 20
    assert sum(trips) <= len(trips) + 4, trips


def test_two_ledgers_taking_turns_read_before_deciding_and_never_decide_twice(
    traced_ledger: tuple[CardLedger, Trace], other_pool: Pool, conn: Conn
) -> None:
    """Where another process wrote last, a write decided on the kept state is refused and made again on the
    store's state; after that the process reads first (two round trips, as before kept states were trusted),
    and trusts its kept state again once a read finds it current."""
    ledger, trace = traced_ledger
    other = ledger_on(other_pool)
    players = [register_with_token(ledger, f"p{n}")[0] for n in range(SEATS)]
    table_id = seated_table(ledger, players, GAME)
    rng = random.Random(43)
    trips: list[int] = []
    for step in range(12):
        state = truth(conn, table_id)
        if state.status != tables.PLAYING:
            break
        seat, action = next_move(state, rng)
        if step % 2:
            other.act(players[seat], table_id, action, uuid.uuid4().hex, None)
            continue
        start = trace.mark()
        answer = ledger.act(players[seat], table_id, action, uuid.uuid4().hex, None)
        assert answer["events"][0]["position"] == state.version + 1
        lines = trace.since(start)
        trips.append(round_trips(lines) - prepares(lines))
    # The first action (the ledger wrote last: the sitting) is decided on the kept state; it also reads deal
    # 2's seed, made and stored in one statement.
    assert trips[0] == 2, trips
    # Refused on the kept state by the rules (not that seat's turn there: 2 round trips, the events after and the
    # append) or by the append (4: the refused append, the stream's version, the events after, the append).
    assert trips[1] in (2, 4), trips
    assert all(n == 2 for n in trips[2:]), trips
    # Alone again (the other ledger wrote last): the first write reads and finds the stream ahead, the second
    # reads and finds its kept state current, and the third trusts it.
    for expected in (2, 2, 1):
        state = truth(conn, table_id)
        seat, action = next_move(state, rng)
        start = trace.mark()
        ledger.act(players[seat], table_id, action, uuid.uuid4().hex, None)
        lines = trace.since(start)
        assert round_trips(lines) - prepares(lines) == expected
    assert ledger.queries.load_state(table_id) == other.queries.load_state(table_id) == truth(conn, table_id)


def test_if_match_against_a_kept_state_behind_the_stream(pool: Pool, other_pool: Pool, conn: Conn) -> None:
    """A caller that has seen a newer version than this process keeps is served from the store's state (not
    answered 412 from the kept one); an If-Match of the kept, outdated version is a 412 and appends nothing."""
    ledger, other = ledger_on(pool), ledger_on(other_pool)
    players = [register_with_token(ledger, f"p{n}")[0] for n in range(SEATS)]
    table_id = seated_table(ledger, players, GAME)
    rng = random.Random(47)
    kept = ledger.queries.load_state(table_id)
    for _ in range(2):
        state = truth(conn, table_id)
        seat, action = next_move(state, rng)
        other.act(players[seat], table_id, action, uuid.uuid4().hex, None)
    state = truth(conn, table_id)
    assert state.version > kept.version
    seat, action = next_move(state, rng)

    with pytest.raises(PreconditionFailed):
        ledger.act(players[seat], table_id, action, uuid.uuid4().hex, if_match=kept.version)
    assert truth(conn, table_id) == state
    answer = ledger.act(players[seat], table_id, action, uuid.uuid4().hex, if_match=state.version)
    assert answer["events"][0]["position"] == state.version + 1


def test_an_action_refused_on_a_kept_state_is_decided_again_on_the_stores(
    pool: Pool, other_pool: Pool, conn: Conn
) -> None:
    """The seat to act in the kept state has acted through another process: its next action is decided on the
    store's state (where it may be its turn, or not), never refused or applied on the outdated one."""
    ledger, other = ledger_on(pool), ledger_on(other_pool)
    players = [register_with_token(ledger, f"p{n}")[0] for n in range(SEATS)]
    table_id = seated_table(ledger, players, GAME)
    rng = random.Random(53)
    kept = ledger.queries.load_state(table_id)
    kept_seat = tables.to_act(kept)
    assert kept_seat is not None
    # Another process plays on until a seat other than the kept one is to act, and the kept seat has acted.
    while True:
        state = truth(conn, table_id)
        seat, action = next_move(state, rng)
        other.act(players[seat], table_id, action, uuid.uuid4().hex, None)
        now = truth(conn, table_id)
        if now.status == tables.PLAYING and tables.to_act(now) not in (None, kept_seat):
            break
    mover = tables.to_act(now)
    assert mover is not None
    # Legal for the mover in the store's state; in the kept state it is not the mover's turn (a 409 there).
    _, action = next_move(now, rng)
    answer = ledger.act(players[mover], table_id, action, uuid.uuid4().hex, None)
    assert answer["events"][0]["position"] == now.version + 1
    # The kept seat is not to act now; the kept state thought it was: refused by the store's state.
    after = truth(conn, table_id)
    if tables.to_act(after) != kept_seat and after.status == tables.PLAYING:
        with pytest.raises(Conflict) as refused:
            ledger.act(players[kept_seat], table_id, {"type": "pass"}, uuid.uuid4().hex, None)
        assert refused.value.code == "not_your_turn"
        assert truth(conn, table_id) == after
