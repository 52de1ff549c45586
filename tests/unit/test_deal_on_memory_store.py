"""Whole deals decided by the domain and recorded in the in-memory event store: no server, the same contract.

These tests drive the table with the domain and the store alone, the way the application service does: fold
the stream, decide, append at the version folded, with each event tagged by its deal. The application service
itself runs on the in-memory storage in tests/app/.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import replace

import pytest

from domain.events import Event
from domain.games import game_named
from domain.hashchain import GENESIS_HASH
from domain.shuffle import commitment
from domain.table import (
    BETWEEN_DEALS,
    DEAL_ENDED,
    DEAL_STARTED,
    Act,
    Command,
    Sit,
    TableState,
    deal_transfers,
    decide_and_evolve,
    open_table,
    to_act,
)
from infra.errors import IdempotencyKeyTaken, VersionConflict
from infra.event_store import IdempotencyRecord, InMemoryEventStore, NewEvent, RecordedEvent
from infra.table_loader import fold_recorded

SEEDS = {deal_no: hashlib.sha256(b"memory-store-seed-%d" % deal_no).digest() for deal_no in range(1, 4)}


def tagged(state: TableState | None, events: Sequence[Event]) -> list[NewEvent]:
    """Store-ready events, each tagged with its deal number (a deal's events from its `deal_started` on)."""
    deal_no = 0 if state is None else state.deal_no
    new = []
    for event in events:
        if event.type == DEAL_STARTED:
            deal_no = int(event.data["deal_no"])
        new.append(NewEvent(event.type, event.data, deal_no, {"actor": "test"}))
    return new


class Table:
    def __init__(self, store: InMemoryEventStore, table_id: str, game: str, seats: int) -> None:
        self.store, self.table_id = store, table_id
        store.append(table_id, 0, tagged(None, [open_table(table_id, game, seats, {}, SEEDS[1])]))

    def state(self) -> TableState:
        state = fold_recorded(self.store.read_stream(self.table_id))
        assert state is not None
        return state

    def run(self, command: Command, idempotency: IdempotencyRecord | None = None) -> TableState:
        state = self.state()
        events, after = decide_and_evolve(state, command, SEEDS)
        self.store.append(self.table_id, state.version, tagged(state, events), idempotency)
        return after


def assert_chained(events: Sequence[RecordedEvent]) -> None:
    previous = GENESIS_HASH
    for version, event in enumerate(events, start=1):
        assert (event.version, event.prev_hash) == (version, previous)
        assert event.recomputed_hash() == event.hash
        previous = event.hash


@pytest.mark.parametrize(("game", "seats"), [("cholek-tiga", 2), ("cha-kau-tsz", 3)])
def test_a_whole_deal_recorded_in_memory_folds_back_to_the_state_decided(game: str, seats: int) -> None:
    store = InMemoryEventStore()
    table = Table(store, "t-1", game, seats)
    for seat in range(seats):
        decided = table.run(Sit(f"p{seat}", seat))
    actions = 0
    while decided.status != BETWEEN_DEALS:
        state = table.state()
        seat = to_act(state)
        assert seat is not None
        decided = table.run(Act(seat, game_named(game).timeout_action(state, seat)))  # always a legal play
        actions += 1
        assert actions < 1000, "the deal does not end"

    folded = table.state()
    assert replace(folded, clock_since=None) == replace(decided, clock_since=None)
    recorded = store.read_stream("t-1")
    assert_chained(recorded)
    assert [event.deal_no for event in recorded if event.type == DEAL_ENDED] == [1]
    started = next(index for index, event in enumerate(recorded) if event.type == DEAL_STARTED)
    assert [event.deal_no for event in recorded] == [0] * started + [1] * (len(recorded) - started)
    ended = recorded[-1]
    assert ended.type == DEAL_ENDED
    assert commitment(bytes.fromhex(str(ended.data["server_seed"]))) == ended.data["commitment"]
    transfers = [t for event in recorded for t in deal_transfers(Event(event.type, event.data))]
    balances: dict[str, int] = {}
    for transfer in transfers:
        for account, amount in transfer.entries():
            balances[account] = balances.get(account, 0) + amount
    assert sum(balances.values()) == 0
    assert store.read_log(limit=10_000) == recorded


def test_a_decision_on_a_stale_state_conflicts_and_records_nothing() -> None:
    store = InMemoryEventStore()
    table = Table(store, "t-1", "cholek-tiga", 2)
    stale = table.state()
    table.run(Sit("p0", 0))
    events, _ = decide_and_evolve(stale, Sit("p1", 0), SEEDS)
    before = store.read_stream("t-1")
    with pytest.raises(VersionConflict) as caught:
        store.append("t-1", stale.version, tagged(stale, events))
    assert (caught.value.expected, caught.value.actual) == (1, 2)
    assert store.read_stream("t-1") == before


def test_a_retried_request_finds_its_first_answer_and_appends_nothing_more() -> None:
    store = InMemoryEventStore()
    table = Table(store, "t-1", "cholek-tiga", 2)
    record = IdempotencyRecord("p0", "key-1", "request-hash", {"status": 201, "body": {"seat": 0}})
    table.run(Sit("p0", 0), record)
    with pytest.raises(IdempotencyKeyTaken):
        table.run(Sit("p1", 1), record)
    assert store.find_idempotency("p0", "key-1") == record
    assert table.state().players == ("p0", None)
