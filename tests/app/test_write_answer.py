"""An action's answer is built from its pending append (`write_answer`), not from events made for it: the same
answer, key for key, as `events_json` gives of the events as recorded (for every viewer, with hashes withheld
or not), over whole deals of both games."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from domain import table as tables
from domain.hashchain import canonical_timestamp
from domain.redaction import AUDITOR, PUBLIC
from infra.event_store import NewEvent, PendingAppend, RecordedEvent
from services.app.answers import events_json, write_answer
from services.bootstrap import in_memory_application
from tests.play import Table, next_move


def pending_of(table_id: str, events: list[RecordedEvent]) -> PendingAppend:
    """The pending append that recorded `events` (one write: one time)."""
    first = events[0]
    return PendingAppend(
        table_id,
        first.version - 1,
        tuple(NewEvent(e.type, e.data, e.deal_no, e.metadata, e.schema_version) for e in events),
        [first.prev_hash] + [e.hash for e in events],
        first.occurred_at,
        canonical_timestamp(first.occurred_at),
        [],
    )


def answer_from_events(state: Any, events: list[RecordedEvent], viewer: Any, withheld: Any, receipt: Any) -> Any:
    """The answer as it was built before: `events_json` of the recorded events, positions null."""
    shown = events_json(state, events, viewer, withheld)
    for event in shown:
        event["global_position"] = None
    last_hash_shown = bool(shown) and shown[-1]["hash"] is not None
    return {"version": state.version, "events": shown, "receipt": receipt if last_hash_shown else None}


@pytest.mark.parametrize(("game", "seats"), [("cholek-tiga", 2), ("cha-kau-tsz", 3)])
def test_the_answer_from_the_pending_append_is_the_answer_from_the_recorded_events(game: str, seats: int) -> None:
    ledger = in_memory_application()
    table = Table(ledger, game, seats)
    rng = random.Random(f"answers-{game}")
    receipt = {"signed": True}
    writes = 0
    while table.state().deal_no <= 2 and table.state().status != tables.CLOSED:
        answer = table.act(*next_move(table.state(), rng))
        positions = [int(event["position"]) for event in answer["events"]]
        events = list(ledger.store.read_stream(table.table_id, min(positions), max(positions)))
        assert [e.version for e in events] == positions and len({e.occurred_at for e in events}) == 1
        state = table.state()
        pending = pending_of(table.table_id, events)
        for viewer in [*range(seats), PUBLIC, AUDITOR]:
            for withheld in (None, events[-1].deal_no):
                ours = write_answer(state, pending, viewer, withheld, receipt)
                theirs = answer_from_events(state, events, viewer, withheld, receipt)
                assert json.dumps(ours) == json.dumps(theirs)
        writes += 1
    assert writes > 40
