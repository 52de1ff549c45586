"""The write path folds the state it decides with the append's time (`decide_and_evolve(..., at)`), and `prepare`
takes that time: the state is the one `stamped(fold(state, events), at)` gives, and the events are those
prepared at `at`, whatever the command, over whole deals of both games."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest

from domain import table as t
from domain.hashchain import GENESIS_HASH, canonical_timestamp
from infra.event_store import NewEvent, RecordedEvent, prepare
from tests.play import random_action
from tests.unit.test_table import SEEDS, opened

CLOCK = datetime(2026, 12, 2, 9, 0, tzinfo=UTC)  # the time of the events the state was folded from


def decided_both_ways(state: t.TableState, command: t.Command, at: datetime) -> t.TableState:
    events, timed = t.decide_and_evolve(state, command, SEEDS, at)
    assert timed == t.stamped(t.fold(state, events), at)
    assert events == t.decide(state, command, SEEDS)
    return timed


@pytest.mark.parametrize(("game", "seats"), [("cholek-tiga", 2), ("cholek-tiga", 3), ("cha-kau-tsz", 4)])
def test_a_state_decided_at_a_time_is_the_stamped_fold(game: str, seats: int) -> None:
    rng = random.Random(seats)
    at = CLOCK
    state = t.stamped(opened(game, seats), CLOCK)
    for n in range(seats):
        at += timedelta(seconds=1)
        state = decided_both_ways(state, t.Sit(f"p{n}", client_seed=f"seed-{n}"), at)
    kinds: set[str] = set()
    for deal in range(3):
        while (seat := t.to_act(state)) is not None:
            action = random_action(state, seat, rng)
            at += timedelta(seconds=1)
            before = state
            state = decided_both_ways(state, t.Act(seat, action), at)
            kinds.add("deal ended" if state.status == t.BETWEEN_DEALS else "played")
            assert state.clock_since == at  # every play starts a decision (or ends the deal)
            assert before.clock_since is not None
        for seat in range(seats) if deal < 2 else ():
            at += timedelta(seconds=1)
            before = state
            state = decided_both_ways(state, t.Act(seat, {"type": "ready"}), at)
            # A ready keeps the clock of the deal's end; the last one starts the next deal, whose clock is `at`.
            assert state.clock_since == (at if state.status == t.PLAYING else before.clock_since)
    assert kinds == {"played", "deal ended"}
    at += timedelta(seconds=1)
    deadline = t.turn_deadline(state)
    assert deadline is not None
    state = decided_both_ways(state, t.Expire(deadline), at)  # the clock's unseating of the seats not ready
    assert state.clock_since == at


def test_a_timed_out_play_decided_at_a_time_is_the_stamped_fold() -> None:
    state = t.stamped(opened("cholek-tiga", 2), CLOCK)
    for n in range(2):
        state = decided_both_ways(state, t.Sit(f"p{n}"), CLOCK)
    deadline = t.turn_deadline(state)
    assert deadline is not None
    state = decided_both_ways(state, t.Expire(deadline), deadline + timedelta(seconds=1))
    assert state.clock_since == deadline + timedelta(seconds=1)


def test_prepare_at_a_time_and_the_events_recorded_from_it() -> None:
    shared = {"actor": "p1", "request_id": "r1"}
    events = [NewEvent("a", {"n": 1}, 3, shared), NewEvent("b", {"n": 2}, 3, shared), NewEvent("c", {}, 3, {"x": 1})]
    at = datetime(2026, 12, 2, 9, 30, 0, 5, tzinfo=UTC)
    pending = prepare("s", 4, events, GENESIS_HASH, at)
    assert pending.occurred_at == at and pending.occurred_at_text == canonical_timestamp(at)
    # Shared metadata is encoded once: the rows are those of events holding equal, separate dicts.
    apart = prepare("s", 4, [NewEvent(e.type, e.data, e.deal_no, dict(e.metadata)) for e in events], GENESIS_HASH, at)
    assert pending.rows == apart.rows and pending.hashes == apart.hashes
    numbers = {5: (50, 9), 6: (51, 9), 7: (52, 9)}
    spelled = [
        RecordedEvent(
            global_position=numbers[5 + n][0],
            stream_id="s",
            version=5 + n,
            type=new.type,
            schema_version=new.schema_version,
            deal_no=new.deal_no,
            data=new.data,
            metadata=new.metadata,
            occurred_at=at,
            prev_hash=pending.hashes[n],
            hash=pending.hashes[n + 1],
            tx_id=9,
            hash_version=2,
        )
        for n, new in enumerate(events)
    ]
    recorded = pending.recorded(numbers)
    assert recorded == spelled and all(type(event) is RecordedEvent for event in recorded)
    assert [event.recomputed_hash() for event in recorded] == pending.hashes[1:]


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ({"actor": "p1", "weight": 0.5}, r"b\.metadata\.weight is the float"),
        ({"actor": "p\x00"}, r"b\.metadata\.actor"),
    ],
)
def test_shared_metadata_is_still_refused(bad: dict[str, object], message: str) -> None:
    """Checked with the first event holding it (the second here: the first has its own)."""
    events = [NewEvent("a", {"n": 1}, 1, {"actor": "p1"}), NewEvent("b", {"n": 2}, 1, bad), NewEvent("c", {}, 1, bad)]
    with pytest.raises(ValueError, match=message):
        prepare("s", 0, events, GENESIS_HASH)
