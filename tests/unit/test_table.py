"""The table lifecycle around both games: seats, seeds and commitments, readiness, closing, errors."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain import table as t
from domain.errors import ConflictError, NotYourTurn, OptionError, RuleError
from domain.events import Event
from domain.ledger import net_by_account
from domain.shuffle import commitment
from tests.play import random_action

SEEDS = {n: bytes([n]) * 32 for n in range(1, 12)}


def opened(game: str = "cholek-tiga", seats: int = 2, **options: Any) -> t.TableState:
    return t.evolve(None, t.open_table("table-1", game, seats, options, SEEDS[1]))


def seated(game: str = "cholek-tiga", seats: int = 2) -> tuple[t.TableState, list[Event]]:
    state = opened(game, seats)
    stream: list[Event] = []
    for n in range(seats):
        events, state = t.decide_and_evolve(state, t.Sit(f"p{n}", client_seed=f"seed-{n}"), SEEDS)
        stream += events
    return state, stream


def play_deal(state: t.TableState, rng: random.Random) -> tuple[t.TableState, list[Event]]:
    stream: list[Event] = []
    while (seat := t.to_act(state)) is not None:
        action = random_action(state, seat, rng)
        events = t.decide(state, t.Act(seat, action), SEEDS)
        after = t.fold(state, events)
        _, same = t.decide_and_evolve(state, t.Act(seat, action), SEEDS)
        assert same == after  # decide_and_evolve is decide followed by fold
        state, stream = after, stream + events
    return state, stream


def test_open_table_validates_game_seats_and_options() -> None:
    with pytest.raises(OptionError, match="unknown game 'poker'"):
        t.open_table("x", "poker", 2, {}, SEEDS[1])
    with pytest.raises(OptionError, match="2 to 3 players, not 4"):
        t.open_table("x", "cholek-tiga", 4, {}, SEEDS[1])
    with pytest.raises(OptionError):
        t.open_table("x", "cha-kau-tsz", 3, {"no_such_option": 1}, SEEDS[1])
    state = opened()
    assert state.status == t.OPEN and state.next_commitment == commitment(SEEDS[1])
    assert t.public_view(state)["next_deal"] == {"deal_no": 1, "commitment": commitment(SEEDS[1])}


def test_seating_rules() -> None:
    state = opened(seats=3)
    events, state = t.decide_and_evolve(state, t.Sit("alice"), SEEDS)
    assert events[0].data["seat"] == 0  # the first free seat
    with pytest.raises(ConflictError) as already:
        t.decide(state, t.Sit("alice", seat=2), SEEDS)
    assert already.value.code == "already_seated"
    with pytest.raises(ConflictError) as taken:
        t.decide(state, t.Sit("bob", seat=0), SEEDS)
    assert taken.value.code == "seat_taken"
    with pytest.raises(RuleError, match=r"seat 5 does not exist; this table has seats 0\.\.2"):
        t.decide(state, t.Sit("bob", seat=5), SEEDS)
    with pytest.raises(RuleError, match="65 bytes"):
        t.decide(state, t.Sit("bob", client_seed="x" * 65), SEEDS)
    _, state = t.decide_and_evolve(state, t.Sit("bob", seat=2), SEEDS)
    events, state = t.decide_and_evolve(state, t.Sit("carol"), SEEDS)
    assert [e.type for e in events[:2]] == [t.PLAYER_SEATED, t.DEAL_STARTED]  # the last seat starts deal 1
    assert events[1].data == {
        "deal_no": 1,
        "commitment": commitment(SEEDS[1]),
        "client_seeds": ["", "", ""],
        "players": ["alice", "carol", "bob"],
    }
    with pytest.raises(ConflictError) as full:
        t.decide(state, t.Sit("dave"), SEEDS)
    assert full.value.code == "table_full"


def test_a_seed_that_does_not_match_the_commitment_is_never_used() -> None:
    state = opened()
    _, state = t.decide_and_evolve(state, t.Sit("alice"), SEEDS)
    with pytest.raises(RuntimeError, match="does not match its published commitment"):
        t.decide(state, t.Sit("bob"), {1: SEEDS[2]})


@pytest.mark.parametrize("game", ["cholek-tiga", "cha-kau-tsz"])
def test_acting_out_of_turn_or_phase_is_refused(game: str) -> None:
    state, _ = seated(game)
    mover = t.to_act(state)
    assert mover is not None
    other = 1 - mover
    with pytest.raises(NotYourTurn, match=f"it is seat {mover}'s turn, not seat {other}'s"):
        t.decide(state, t.Act(other, t.legal_actions(state, mover)[0]), SEEDS)
    for action in ({"type": "ready"}, {"type": "close"}):
        with pytest.raises(ConflictError) as phase:
            t.decide(state, t.Act(mover, action), SEEDS)
        assert phase.value.code == "wrong_phase"
    with pytest.raises(RuleError) as malformed:
        t.decide(state, t.Act(mover, ["discard"]), SEEDS)  # type: ignore[arg-type]
    assert malformed.value.code == "malformed_action"
    with pytest.raises(RuleError) as nobody:
        t.decide(state, t.Act(7, {"type": "pass"}), SEEDS)
    assert nobody.value.code == "not_seated"


@pytest.mark.parametrize("game", ["cholek-tiga", "cha-kau-tsz"])
def test_deals_reveal_their_seed_commit_to_the_next_and_start_when_everyone_is_ready(game: str) -> None:
    state, _ = seated(game)
    rng = random.Random(5)
    state, events = play_deal(state, rng)
    ended = events[-1]
    assert ended.type == t.DEAL_ENDED and state.status == t.BETWEEN_DEALS
    assert ended.data["server_seed"] == SEEDS[1].hex()
    assert ended.data["client_seeds"] == ["seed-0", "seed-1"]
    assert ended.data["next_commitment"] == commitment(SEEDS[2])
    net = net_by_account(t.deal_transfers(ended))
    assert [net.get(f"seat:{seat}", 0) for seat in range(2)] == ended.data["result"]["net"]
    assert sum(net.values()) == 0
    assert t.legal_actions(state, 0) == [{"type": "ready"}, {"type": "close"}, {"type": "leave"}]

    ready, state = t.decide_and_evolve(state, t.Act(0, {"type": "ready", "client_seed": "again"}), SEEDS)
    assert [e.type for e in ready] == [t.PLAYER_READY]
    with pytest.raises(ConflictError) as twice:
        t.decide(state, t.Act(0, {"type": "ready"}), SEEDS)
    assert twice.value.code == "already_ready"
    started, state = t.decide_and_evolve(state, t.Act(1, {"type": "ready"}), SEEDS)
    assert started[1].type == t.DEAL_STARTED
    assert started[1].data == {
        "deal_no": 2,
        "commitment": commitment(SEEDS[2]),
        "client_seeds": ["again", ""],
        "players": ["p0", "p1"],
    }
    assert state.status == t.PLAYING and state.deal_no == 2


def test_a_table_closes_between_deals_and_then_refuses_everything() -> None:
    state, _ = seated()
    state, _ = play_deal(state, random.Random(1))
    closed, state = t.decide_and_evolve(state, t.Act(1, {"type": "close"}), SEEDS)
    assert closed == [Event(t.TABLE_CLOSED, {"seat": 1, "deal_no": 1})]
    assert state.status == t.CLOSED and t.legal_actions(state, 0) == []
    with pytest.raises(ConflictError) as refused:
        t.decide(state, t.Act(0, {"type": "ready"}), SEEDS)
    assert refused.value.code == "table_closed"


@pytest.mark.parametrize(("game", "seats"), [("cholek-tiga", 3), ("cha-kau-tsz", 4)])
def test_a_table_folds_the_same_from_its_last_finished_deal_as_from_its_whole_history(game: str, seats: int) -> None:
    """The table loader's shortcut: opening and seatings, the deal_ended before the latest deal, and what follows."""
    state, stream = seated(game, seats)
    rng = random.Random(9)
    for deal in range(3):
        state, events = play_deal(state, rng)
        stream += events
        if deal < 2:
            for seat in range(seats):
                events, state = t.decide_and_evolve(state, t.Act(seat, {"type": "ready"}), SEEDS)
                stream += events
    opening = t.open_table("table-1", game, seats, {}, SEEDS[1])
    head = [opening, *(e for e in stream if e.type == t.PLAYER_SEATED)]
    starts = [i for i, e in enumerate(stream) if e.type == t.DEAL_STARTED]
    previous_end = max(i for i, e in enumerate(stream[: starts[-1]]) if e.type == t.DEAL_ENDED)
    short = t.fold(None, head + stream[previous_end:])
    full = t.fold(None, [opening, *stream])
    assert replace(short, version=full.version) == full
    assert t.public_view(replace(short, version=full.version)) == t.public_view(full)


@settings(max_examples=12, deadline=None)
@given(
    st.sampled_from([("cholek-tiga", 2), ("cholek-tiga", 3), ("cha-kau-tsz", 3), ("cha-kau-tsz", 4)]),
    st.integers(0, 2**32),
    st.data(),
)
def test_fold_equals_evolving_event_by_event_from_any_point(
    table: tuple[str, int], seed: int, data: st.DataObject
) -> None:
    """`fold` makes one state per run of game events; every state it gives must be the one-by-one state."""
    game, seats = table
    state, stream = seated(game, seats)
    rng = random.Random(seed)
    for deal in range(2):
        state, events = play_deal(state, rng)
        stream += events
        if deal == 0:
            for seat in range(seats):
                events, state = t.decide_and_evolve(state, t.Act(seat, {"type": "ready"}), SEEDS)
                stream += events
    events = [t.open_table("table-1", game, seats, {}, SEEDS[1]), *stream]
    one_by_one: list[t.TableState] = []
    step: t.TableState | None = None
    for event in events:
        step = t.evolve(step, event)
        one_by_one.append(step)
    assert t.fold(None, events) == one_by_one[-1]
    cut = data.draw(st.integers(1, len(events) - 1))
    end = data.draw(st.integers(cut, len(events)))
    assert t.fold(one_by_one[cut - 1], events[cut:end]) == one_by_one[end - 1]
