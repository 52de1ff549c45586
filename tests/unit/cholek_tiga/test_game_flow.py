"""Whole games through domain.table: rounds, stock exhaustion, carry, determinism, views."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace

import pytest

from domain.cards import CHERKI_DECK
from domain.errors import RuleError
from domain.events import Event
from domain.table import (
    BETWEEN_DEALS,
    Act,
    TableState,
    decide,
    evolve,
    fold,
    legal_actions,
    public_view,
    revealed_cards,
    seat_view,
    to_act,
)

from .support import act, current_deck, oracle_score, play_deal, ready_all, seated_table, seeds_for


def _game_events(players: int, seed: int) -> tuple[TableState, list[Event], list[Event]]:
    seeds = seeds_for(1, seed)
    state, opening = seated_table(players, seeds=seeds)
    state, played = play_deal(state, random.Random(seed), seeds)
    return state, opening, played


@pytest.mark.parametrize("seed", range(3))
def test_two_players_play_exactly_ten_rounds_with_a_turn_up_every_turn(seed: int) -> None:
    state, opening, played = _game_events(2, seed)
    events = opening + played
    draws = [e.data for e in events if e.type == "cards_drawn"]
    assert len(draws) == 20 and all(d["count"] == 3 for d in draws)
    assert [d["round"] for d in draws] == [r for r in range(1, 11) for _ in range(2)]
    assert [d["seat"] for d in draws] == [0, 1] * 10  # the first player draws first every round
    assert Counter(e.type for e in events)["card_discarded"] == 60
    assert Counter(e.type for e in events)["card_turned_up"] == 60
    assert state.deal.round == 10 and state.deal.stock_remaining == 0
    assert state.status == BETWEEN_DEALS


@pytest.mark.parametrize("seed", range(3))
def test_three_players_run_out_of_stock_in_round_seven_and_play_on_without_turn_ups(seed: int) -> None:
    _, opening, played = _game_events(3, seed)
    events = opening + played
    assert max(e.data["round"] for e in events if e.type == "cards_drawn") == 7
    assert Counter(e.type for e in events)["card_discarded"] == 63
    assert Counter(e.type for e in events)["card_turned_up"] == 120 - 63
    # round 7: 9 cards drawn leave 3 in the stock, so only the first 3 of its 9 turns turn a card up
    last_draw = max(i for i, e in enumerate(events) if e.type == "cards_drawn")
    round_seven = [e.type for e in events[last_draw + 1 :] if e.type in ("card_discarded", "card_turned_up")]
    assert round_seven[:6] == ["card_discarded", "card_turned_up"] * 3
    assert round_seven[6:] == ["card_discarded"] * 6
    discards = [e.data["seat"] for e in events[last_draw + 1 :] if e.type == "card_discarded"]
    assert discards == [0, 1, 2] * 3  # turns keep passing in order without turn-ups


def test_every_card_drawn_or_turned_up_matches_the_deck() -> None:
    seeds = seeds_for(1, 9)
    state, opening, played = _game_events(2, 9)
    deck = current_deck(state, seeds)
    seen = [pair for event in opening + played for pair in revealed_cards(event)]
    assert sorted(index for index, _ in seen) == list(range(120))
    assert all(deck[index] == card for index, card in seen)


def test_the_result_scores_net_and_transfers_agree() -> None:
    for seed in range(4):
        state, _, played = _game_events(2 + seed % 2, seed)
        ended = played[-1]
        assert ended.type == "deal_ended"
        result = ended.data["result"]
        assert result["scores"] == [oracle_score(pile) for pile in state.deal.piles]
        net = [0] * state.seats
        for event in played:
            for raw in event.data.get("transfers", ()):
                net[int(raw["payer"][5:])] -= raw["amount"]
                net[int(raw["payee"][5:])] += raw["amount"]
        assert result["net"] == net and sum(net) == 0
        assert ended.data["unit"] == "cents"


def test_the_lowest_scorer_moves_first_in_the_next_game() -> None:
    seeds = seeds_for(4, 3)
    state, _ = seated_table(3, seeds=seeds)
    rng = random.Random(3)
    for _ in range(3):
        first = state.deal.first_seat
        state, played = play_deal(state, rng, seeds)
        final = played[-1].data["result"]["scores"]
        order = [(first + k) % 3 for k in range(3)]
        expected = min(order, key=lambda seat: final[seat])
        assert state.carry == {"first_seat": expected}
        state, dealt = ready_all(state, seeds)
        draws = [e.data["seat"] for e in dealt if e.type == "cards_drawn"]
        assert draws == [(expected + k) % 3 for k in range(3)]
        assert state.deal.first_seat == expected == to_act(state)


def _scripted_run(seed: int) -> list[Event]:
    seeds = seeds_for(3, seed)
    state, events = seated_table(2, {"in_play_bonuses": True}, seeds=seeds)
    rng = random.Random(seed)
    for game in range(2):
        state, played = play_deal(state, rng, seeds)
        events += played
        if game == 0:
            state, readied = ready_all(state, seeds)
            events += readied
    return events


def test_same_seeds_and_actions_give_identical_events() -> None:
    assert [e.to_json() for e in _scripted_run(5)] == [e.to_json() for e in _scripted_run(5)]
    assert [e.to_json() for e in _scripted_run(5)] != [e.to_json() for e in _scripted_run(6)]


def test_a_table_rebuilds_from_its_opening_seatings_and_last_deal_ended() -> None:
    seeds = seeds_for(4, 11)
    state, events = seated_table(3, seeds=seeds)
    rng = random.Random(11)
    for _ in range(3):
        state, played = play_deal(state, rng, seeds)
        events += played
        state, readied = ready_all(state, seeds)
        events += readied
    for _ in range(20):  # stop in the middle of game 4
        seat = to_act(state)
        assert seat is not None
        state, new = act(state, seat, rng.choice(legal_actions(state, seat)), seeds)
        events += new
    head = [e for e in events if e.type in ("table_opened", "player_seated")]
    ends = [i for i, e in enumerate(events) if e.type == "deal_ended"]
    assert len(ends) == 3
    full = fold(None, events)
    for end in ends:
        partial = fold(None, [*head, *events[end:]])
        assert replace(partial, version=0) == replace(full, version=0)
        # and at every step after the cut
        step = fold(None, [*head, events[end]])
        whole = fold(None, events[: end + 1])
        for event in events[end + 1 :]:
            step, whole = evolve(step, event), evolve(whole, event)
            if step.status == BETWEEN_DEALS:
                # Between deals the full fold still holds the finished deal's state; the rebuild has none
                # (domain.table keeps `deal` after deal_ended). Everything else must agree.
                assert replace(step, version=0, deal=None) == replace(whole, version=0, deal=None)
            else:
                assert replace(step, version=0) == replace(whole, version=0)


def test_every_legal_action_is_accepted_and_others_are_refused() -> None:
    seeds = seeds_for(1, 21)
    state, _ = seated_table(2, seeds=seeds)
    rng = random.Random(21)
    checked_pending = 0
    while (seat := to_act(state)) is not None:
        actions = legal_actions(state, seat)
        assert actions and len({repr(a) for a in actions}) == len(actions)
        for action in actions:
            decide(state, Act(seat, action), seeds)
        deal = state.deal
        refused: list[dict[str, object]] = []
        missing = sorted(set(CHERKI_DECK) - set(deal.hands[seat]))
        if deal.pending is None:
            refused.append({"type": "discard", "card": missing[0], "capture": None})
            refused.append({"type": "pass"})
            card = deal.hands[seat][0]
            absent = sorted(set(CHERKI_DECK) - set(deal.pool))[0]
            refused.append({"type": "discard", "card": card, "capture": [absent, absent]})
        else:
            checked_pending += 1
            refused.append({"type": "discard", "card": (deal.hands[seat] or ("5C",))[0], "capture": None})
            allowed = [sorted(a["cards"]) for a in actions if a["type"] == "capture"]
            for first in sorted(set(deal.pool)):
                for second in sorted(set(deal.pool)):
                    if sorted([first, second]) not in allowed and first <= second:
                        refused.append({"type": "capture", "cards": [first, second]})
        for action in refused:
            assert action not in actions
            with pytest.raises(RuleError):
                decide(state, Act(seat, action), seeds)
        state, _ = act(state, seat, rng.choice(actions), seeds)
    assert checked_pending > 0


def test_public_and_seat_views_show_no_other_hand() -> None:
    seeds = seeds_for(1, 2)
    state, _ = seated_table(3, seeds=seeds)
    view = public_view(state)
    assert {"pool", "piles", "hand_sizes", "stock_remaining", "pending", "scores", "round", "first_seat"} <= set(view)
    assert view["hand_sizes"] == [3, 3, 3] and view["stock_remaining"] == 111 and view["scores"] is None
    assert "hand" not in view and "hands" not in view
    for seat in range(3):
        mine = seat_view(state, seat)
        assert mine["hand"] == sorted(state.deal.hands[seat])
        assert "hands" not in mine
    state, _ = play_deal(state, random.Random(2), seeds)
    assert public_view(state)["scores"] == [oracle_score(p) for p in state.deal.piles]
