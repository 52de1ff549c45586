"""Contract of the application's storage ports (services/app/ports.py), run against each adapter: PostgreSQL
and memory, one test case per adapter as the event store's contract (test_event_store_contract.py) does.

What the application relies on: a table's events read for folding (bounded, and the same selection in SQL as
in memory), the guarded append (a stale version or head refused, the idempotency record stored with the
events and a taken key refused, nothing written on a refusal), seeds made once, signing keys listed once,
players found by their whole token only. The memory case needs no server.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence

import pytest

from domain.events import Event
from domain.hashchain import GENESIS_HASH
from domain.table import (
    BETWEEN_DEALS,
    DEAL_STARTED,
    PLAYING,
    Act,
    Sit,
    TableState,
    decide_and_evolve,
    legal_actions,
    open_table,
    to_act,
)
from infra.errors import IdempotencyKeyTaken, VersionConflict
from infra.event_store import IdempotencyRecord, NewEvent
from infra.signing import ReceiptSigner, UnregisteredSigningKey
from infra.storage.memory import InMemoryStorage
from infra.storage.postgres import PostgresStorage
from infra.table_loader import bounded_table_events, fold_recorded
from services.app.ports import Session, Storage
from tests.conftest import register_signer


@pytest.fixture(params=["postgres", "memory"])
def storage(request: pytest.FixtureRequest) -> Storage:
    if request.param == "memory":
        return InMemoryStorage()
    return PostgresStorage(request.getfixturevalue("pool"))


def tagged(state: TableState | None, events: Sequence[Event]) -> list[NewEvent]:
    deal_no = 0 if state is None else state.deal_no
    new = []
    for event in events:
        if event.type == DEAL_STARTED:
            deal_no = int(event.data["deal_no"])
        new.append(NewEvent(event.type, event.data, deal_no, {"actor": "contract"}))
    return new


class Table:
    """A table driven through a session the way the write path drives it: fold, decide, append prepared."""

    def __init__(self, storage: Storage, game: str = "cholek-tiga", seats: int = 2) -> None:
        self.storage, self.table_id, self.seats = storage, f"table-{uuid.uuid4()}", seats
        with storage.session() as session:
            seed = session.seeds_for(self.table_id, [1])[1]
            session.start_stream(self.table_id, tagged(None, [open_table(self.table_id, game, seats, {}, seed)]))
        for seat in range(seats):
            self.run(Sit(f"player-{seat}", seat, f"client-{seat}"))

    def state(self) -> TableState:
        state = fold_recorded(self.storage.store.read_stream(self.table_id))
        assert state is not None
        return state

    def run(self, command: Act | Sit, idempotency: IdempotencyRecord | None = None) -> TableState:
        state = self.state()
        with self.storage.session() as session:
            seeds = session.seeds_for(self.table_id, [state.deal_no, state.deal_no + 1])
            events, after = decide_and_evolve(state, command, seeds)
            head = self.storage.store.read_stream(self.table_id, from_version=state.version)[-1].hash
            pending = self.storage.store.prepare(self.table_id, state.version, tagged(state, events), head)
            session.append_prepared(pending, idempotency)
        return after

    def play_deals(self, deals: int) -> None:
        """Each seat's first legal action until `deals` deals have ended."""
        while (state := self.state()).deal_no < deals or state.status == PLAYING:
            if state.status == BETWEEN_DEALS:
                for seat in range(self.seats):
                    self.run(Act(seat, {"type": "ready"}))
                continue
            seat = to_act(state)
            assert seat is not None
            self.run(Act(seat, legal_actions(state, seat)[0]))


def prepared_after_head(storage: Storage, table_id: str) -> tuple[int, str]:
    last = storage.store.read_stream(table_id)[-1]
    return last.version, last.hash


def record(key: str, scope: str = "player-0") -> IdempotencyRecord:
    return IdempotencyRecord(scope, key, f"request-{key}", {"version": 7, "events": [], "receipt": None})


# --------------------------------------------------------------------------- TableEvents


def test_table_events_fold_to_the_whole_streams_state_and_stay_bounded(storage: Storage) -> None:
    table = Table(storage)
    table.play_deals(3)
    stream = storage.store.read_stream(table.table_id)
    with storage.session() as session:
        for version in range(1, len(stream) + 1):
            chosen = session.table_events(table.table_id, up_to_version=version)
            # The same selection in SQL (PostgreSQL) as in Python (memory).
            assert [e.version for e in chosen] == [e.version for e in bounded_table_events(stream[:version])]
            assert fold_recorded(chosen) == fold_recorded(stream[:version]), f"at version {version}"
        latest = session.table_events(table.table_id)
        assert fold_recorded(latest) == table.state()
        assert {e.deal_no for e in latest} <= {0, 2, 3}, "deal 1's events are not read for a table at deal 3"
        assert session.table_events(f"table-{uuid.uuid4()}") == []
        assert session.events_after(table.table_id, 10, 5) == stream[10:15]
        assert session.events_after(table.table_id, len(stream), 5) == []


# --------------------------------------------------------------------------- GuardedAppend


def test_the_guarded_append_stores_the_record_with_the_events(storage: Storage) -> None:
    table = Table(storage)
    version, head = prepared_after_head(storage, table.table_id)
    pending = storage.store.prepare(table.table_id, version, [NewEvent("noted", {"n": 1})], head)
    with storage.session() as session:
        recorded = session.append_prepared(pending, record("k1"))
    assert [e.version for e in recorded] == [version + 1]
    assert recorded[0].hash == pending.hashes[-1] and recorded[0].global_position > 0
    assert storage.store.stream_version(table.table_id) == version + 1
    found = storage.store.find_idempotency("player-0", "k1")
    assert found is not None and found.request_hash == "request-k1" and found.response["version"] == 7


@pytest.mark.parametrize("stale", ["version", "head"])
def test_a_stale_head_is_refused_and_writes_nothing(storage: Storage, stale: str) -> None:
    table = Table(storage)
    version, head = prepared_after_head(storage, table.table_id)
    expected, hash_ = (version - 1, head) if stale == "version" else (version, GENESIS_HASH)
    pending = storage.store.prepare(table.table_id, expected, [NewEvent("noted", {"n": 1})], hash_)
    with storage.session() as session, pytest.raises(VersionConflict):
        session.append_prepared(pending, record("k1"))
    assert storage.store.stream_version(table.table_id) == version
    assert storage.store.find_idempotency("player-0", "k1") is None, "the record went with the refused events"


def test_of_two_appends_from_one_head_the_second_is_refused(storage: Storage) -> None:
    table = Table(storage)
    version, head = prepared_after_head(storage, table.table_id)
    first, second = (
        storage.store.prepare(table.table_id, version, [NewEvent("noted", {"n": n})], head) for n in (1, 2)
    )
    with storage.session() as session:
        session.append_prepared(first)
        with pytest.raises(VersionConflict):
            session.append_prepared(second)
    assert [e.data for e in storage.store.read_stream(table.table_id, from_version=version + 1)] == [{"n": 1}]


def test_a_taken_key_is_refused_and_writes_nothing(storage: Storage) -> None:
    table = Table(storage)
    version, head = prepared_after_head(storage, table.table_id)
    with storage.session() as session:
        session.append_prepared(
            storage.store.prepare(table.table_id, version, [NewEvent("noted", {"n": 1})], head), record("k1")
        )
        version, head = prepared_after_head(storage, table.table_id)
        again = storage.store.prepare(table.table_id, version, [NewEvent("noted", {"n": 2})], head)
        with pytest.raises(IdempotencyKeyTaken):
            session.append_prepared(again, IdempotencyRecord("player-0", "k1", "another request", {"version": 0}))
        assert storage.store.stream_version(table.table_id) == version
        found = storage.store.find_idempotency("player-0", "k1")
        assert found is not None and found.request_hash == "request-k1"
        # The same key in another scope is another key.
        session.append_prepared(again, record("k1", scope="player-1"))
    assert storage.store.stream_version(table.table_id) == version + 1


def test_a_stream_is_started_once_and_a_missing_one_has_no_head(storage: Storage) -> None:
    table_id = f"table-{uuid.uuid4()}"
    with storage.session() as session:
        pending = storage.store.prepare(table_id, 0, [NewEvent("noted", {"n": 0})], GENESIS_HASH)
        with pytest.raises(VersionConflict):
            session.append_prepared(pending)  # a guarded append needs a stream
        assert [e.version for e in session.start_stream(table_id, [NewEvent("noted", {"n": 1})])] == [1]
        with pytest.raises(VersionConflict):
            session.start_stream(table_id, [NewEvent("noted", {"n": 2})])
    assert storage.store.stream_version(table_id) == 1


# --------------------------------------------------------------------------- Seeds, SigningKeys, Players


def test_seeds_are_made_once_per_deal_and_table(storage: Storage) -> None:
    table_id, other = f"table-{uuid.uuid4()}", f"table-{uuid.uuid4()}"
    with storage.session() as session:
        made = session.seeds_for(table_id, [0, 1, 2])
        assert sorted(made) == [1, 2] and all(len(seed) == 32 for seed in made.values())
    with storage.session() as session:
        assert session.seeds_for(table_id, [2, 1]) == made
        assert session.seeds_for(table_id, [3])[3] not in made.values()
        assert session.seeds_for(other, [1])[1] != made[1]


def test_only_a_registered_signing_key_is_accepted_and_listed(storage: Storage) -> None:
    signer, stranger = ReceiptSigner.ephemeral(), ReceiptSigner.ephemeral()
    with storage.session() as session, pytest.raises(UnregisteredSigningKey, match=signer.key_id):
        session.require_signing_key(signer)
    register_signer(storage, signer)
    with storage.session() as session:
        session.require_signing_key(signer)
        with pytest.raises(UnregisteredSigningKey, match=stranger.key_id):
            session.require_signing_key(stranger)
        keys = {key["key_id"]: key for key in session.signing_keys()}
    assert stranger.key_id not in keys
    assert keys[signer.key_id]["public_key"] == signer.public_key and keys[signer.key_id]["algorithm"] == "Ed25519"
    assert keys[signer.key_id]["endorsed_by"] is None and keys[signer.key_id]["endorsement"] is None


def test_a_player_is_found_by_the_whole_token_only(storage: Storage) -> None:
    with storage.session() as session:
        alice, token = session.register_player("alice")
        bob, _ = session.register_player("bob")
    player_id, _, secret = token.partition(".")
    assert player_id == alice.id
    with storage.session() as session:
        assert session.player_for_token(token) == alice
        for wrong in (f"{player_id}.{secret[:-1]}", f"{player_id}.", player_id, f"{bob.id}.{secret}", "x.y"):
            assert session.player_for_token(wrong) is None, wrong
        assert session.players_by_id([alice.id, bob.id, str(uuid.uuid4())]) == {alice.id: alice, bob.id: bob}


def test_every_session_offers_every_port(storage: Storage) -> None:
    """What mypy holds the adapters to, checked at run time too: a session has every port's methods."""
    with storage.session() as session:
        missing = [name for name in dir(Session) if not name.startswith("_") and not hasattr(session, name)]
    assert missing == []
