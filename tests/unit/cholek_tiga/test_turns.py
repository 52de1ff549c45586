"""A turn, step by step (docs/rules.md, "Cholek Tiga"), on hand-built deal states."""

from __future__ import annotations

import pytest

from domain.errors import RuleError

from .support import GAME, deal_state, deck_with, play, table_with, types


def test_discard_without_capture_goes_to_the_pool_then_the_turn_up_moves_on_by_itself() -> None:
    table = table_with(deal_state([["5C", "7M", "9S"], ["1C", "2C", "3C"]], pool=["2M"], taken=6))
    after, events = play(table, 0, {"type": "discard", "card": "5C", "capture": None}, deck_with({6: "4M"}))
    assert types(events) == ["card_discarded", "card_turned_up"]
    assert events[0].data == {"seat": 0, "card": "5C", "capture": None}
    assert events[1].data == {"seat": 0, "card": "4M", "cards": ["4M"], "deck_indexes": [6], "can_capture": False}
    assert after.deal.pool == ("2M", "5C", "4M")
    assert after.deal.hands[0] == ("7M", "9S")
    assert after.deal.taken == 7
    assert after.deal.to_act == 1 and after.deal.pending is None


def test_capture_is_optional_and_omitting_capture_means_none() -> None:
    table = table_with(deal_state([["5C", "7M"], ["1C", "2C"]], pool=["5S", "5M"]))
    after, events = play(table, 0, {"type": "discard", "card": "5C"}, deck_with({60: "8M"}))
    assert events[0].data["capture"] is None
    assert after.deal.pool == ("5S", "5M", "5C", "8M")
    assert after.deal.piles == ((), ())


def test_discard_captures_two_pool_cards_of_its_rank() -> None:
    table = table_with(deal_state([["5C", "7M"], ["1C", "2C"]], pool=["5S", "2C", "5M"]))
    after, events = play(table, 0, {"type": "discard", "card": "5C", "capture": ["5S", "5M"]}, deck_with({60: "8M"}))
    assert events[0].data["capture"] == ["5M", "5S"]  # recorded sorted
    assert after.deal.piles[0] == ("5C", "5M", "5S")
    assert after.deal.pool == ("2C", "8M")
    assert after.deal.to_act == 1


@pytest.mark.parametrize("pair", [["5C", "5C"], ["5C", "5M"], ["5C", "5S"], ["5M", "5S"]])
def test_three_or_more_same_rank_in_the_pool_the_player_chooses_which_two(pair: list[str]) -> None:
    pool = ["5S", "5C", "5M", "5C"]
    table = table_with(deal_state([["5C", "7M"], ["1C", "2C"]], pool=pool))
    discards = [a for a in GAME.legal_actions(table, 0) if a["card"] == "5C"]
    assert [a["capture"] for a in discards] == [None, ["5C", "5C"], ["5C", "5M"], ["5C", "5S"], ["5M", "5S"]]
    after, _ = play(table, 0, {"type": "discard", "card": "5C", "capture": pair}, deck_with({60: "8M"}))
    assert sorted(after.deal.piles[0]) == sorted(["5C", *pair])
    left = list(pool)
    for card in pair:
        left.remove(card)
    assert sorted(after.deal.pool) == sorted([*left, "8M"])


def test_identical_cards_are_one_choice_in_legal_actions() -> None:
    table = table_with(deal_state([["5C", "5C", "5C"], ["1C"]], pool=["5S", "5S", "5S"]))
    assert GAME.legal_actions(table, 0) == [
        {"type": "discard", "card": "5C", "capture": None},
        {"type": "discard", "card": "5C", "capture": ["5S", "5S"]},
    ]


def test_the_discard_does_not_count_itself_in_the_pool() -> None:
    table = table_with(deal_state([["5C", "7M"], ["1C", "2C"]], pool=["5S"]))
    assert GAME.legal_actions(table, 0) == [
        {"type": "discard", "card": "5C", "capture": None},
        {"type": "discard", "card": "7M", "capture": None},
    ]
    with pytest.raises(RuleError, match="only 1 card of rank 5 besides the discard 5C") as caught:
        play(table, 0, {"type": "discard", "card": "5C", "capture": ["5C", "5S"]}, deck_with({}))
    assert caught.value.code == "invalid_capture"


def test_the_turn_up_can_capture_the_just_discarded_card() -> None:
    table = table_with(deal_state([["5C", "7M"], ["1C", "2C"]], pool=["5S"]))
    waiting, events = play(table, 0, {"type": "discard", "card": "5C", "capture": None}, deck_with({60: "5M"}))
    assert types(events) == ["card_discarded", "card_turned_up"]
    assert events[1].data["can_capture"] is True
    assert waiting.deal.pending == "5M" and waiting.deal.to_act == 0
    assert waiting.deal.pool == ("5S", "5C")
    assert GAME.legal_actions(waiting, 0) == [{"type": "capture", "cards": ["5C", "5S"]}, {"type": "pass"}]
    assert GAME.legal_actions(waiting, 1) == []
    after, events = play(waiting, 0, {"type": "capture", "cards": ["5S", "5C"]}, deck_with({}))
    assert types(events) == ["turn_up_captured"]
    assert events[0].data == {"seat": 0, "card": "5M", "capture": ["5C", "5S"]}
    assert after.deal.piles[0] == ("5M", "5C", "5S")
    assert after.deal.pool == () and after.deal.pending is None and after.deal.to_act == 1


def test_passing_the_turn_up_leaves_it_in_the_pool() -> None:
    table = table_with(deal_state([["7M"], ["1C"]], pool=["5S", "5C"], pending="5M", taken=61))
    after, events = play(table, 0, {"type": "pass"}, deck_with({}))
    assert types(events) == ["turn_up_passed"]
    assert after.deal.pool == ("5S", "5C", "5M")
    assert after.deal.pending is None and after.deal.to_act == 1


def test_both_cards_may_capture_in_one_turn() -> None:
    table = table_with(deal_state([["5C", "7M"], ["1C", "2C"]], pool=["5S", "5M", "8C", "8S"]))
    waiting, _ = play(table, 0, {"type": "discard", "card": "5C", "capture": ["5M", "5S"]}, deck_with({60: "8M"}))
    assert waiting.deal.pending == "8M"
    after, _ = play(waiting, 0, {"type": "capture", "cards": ["8C", "8S"]}, deck_with({}))
    assert after.deal.piles[0] == ("5C", "5M", "5S", "8M", "8C", "8S")
    assert after.deal.pool == ()


def test_while_a_turn_up_is_pending_the_seat_must_capture_or_pass() -> None:
    table = table_with(deal_state([["7M"], ["1C"]], pool=["5S", "5C"], pending="5M", taken=61))
    with pytest.raises(RuleError, match="turned-up 5M") as caught:
        play(table, 0, {"type": "discard", "card": "7M", "capture": None}, deck_with({}))
    assert caught.value.code == "turn_up_pending"
    with pytest.raises(RuleError, match="names 5S twice but the pool holds 1 5S") as caught:
        play(table, 0, {"type": "capture", "cards": ["5S", "5S"]}, deck_with({}))
    assert caught.value.code == "invalid_capture"


@pytest.mark.parametrize("action", [{"type": "pass"}, {"type": "capture", "cards": ["5S", "5C"]}])
def test_capture_or_pass_without_a_pending_turn_up_is_refused(action: dict[str, object]) -> None:
    table = table_with(deal_state([["7M"], ["1C"]], pool=["5S", "5C"]))
    with pytest.raises(RuleError) as caught:
        play(table, 0, action, deck_with({}))
    assert caught.value.code == "no_pending_turn_up"


def test_a_card_not_in_hand_is_refused_with_its_name_and_the_seat() -> None:
    table = table_with(deal_state([["1C"], ["5C", "6C"]], to_act=1))
    with pytest.raises(RuleError, match="card 7M is not in seat 1's hand") as caught:
        play(table, 1, {"type": "discard", "card": "7M", "capture": None}, deck_with({}))
    assert caught.value.code == "card_not_in_hand"


def test_a_capture_of_another_rank_names_the_wrong_card() -> None:
    table = table_with(deal_state([["5C"], ["1C"]], pool=["5S", "6C"]))
    with pytest.raises(RuleError, match="capture must name two pool cards of rank 5 like the discard 5C; 6C is rank 6"):
        play(table, 0, {"type": "discard", "card": "5C", "capture": ["5S", "6C"]}, deck_with({}))


def test_a_capture_naming_an_absent_card_is_refused() -> None:
    table = table_with(deal_state([["5C"], ["1C"]], pool=["5S", "5M"]))
    with pytest.raises(RuleError, match="the pool holds no 5C"):
        play(table, 0, {"type": "discard", "card": "5C", "capture": ["5S", "5C"]}, deck_with({}))
    with pytest.raises(RuleError, match="names 5S twice but the pool holds 1 5S"):
        play(table, 0, {"type": "discard", "card": "5C", "capture": ["5S", "5S"]}, deck_with({}))


def test_honours_form_their_own_rank_by_default() -> None:
    table = table_with(deal_state([["1S"], ["1C"]], pool=["1C", "OT", "WF"]))
    assert [a["capture"] for a in GAME.legal_actions(table, 0)] == [None]
    with pytest.raises(RuleError, match="OT is rank H"):
        play(table, 0, {"type": "discard", "card": "1S", "capture": ["1C", "OT"]}, deck_with({}))
    honours = table_with(deal_state([["RF"], ["1C"]], pool=["1C", "OT", "WF"]))
    assert [a["capture"] for a in GAME.legal_actions(honours, 0)] == [None, ["OT", "WF"]]


def test_honours_rank_ace_makes_honours_rank_one() -> None:
    table = table_with(deal_state([["1S"], ["1C"]], pool=["1C", "OT", "WF"]), honours_rank="ace")
    assert [a["capture"] for a in GAME.legal_actions(table, 0)] == [None, ["1C", "OT"], ["1C", "WF"], ["OT", "WF"]]
    after, _ = play(table, 0, {"type": "discard", "card": "1S", "capture": ["OT", "1C"]}, deck_with({60: "2C"}))
    assert after.deal.piles[0] == ("1S", "1C", "OT")
    waiting, events = play(
        table_with(deal_state([["9C"], ["1C"]], pool=["1M", "RF"]), honours_rank="ace"),
        0,
        {"type": "discard", "card": "9C", "capture": None},
        deck_with({60: "WF"}),
    )
    assert events[-1].data["can_capture"] is True and waiting.deal.pending == "WF"


def test_with_an_empty_stock_the_discard_ends_the_turn_without_a_turn_up() -> None:
    table = table_with(deal_state([["5C", "7M"], ["1C", "2C"], ["3C", "4C"]], pool=["5S"], taken=120))
    after, events = play(table, 0, {"type": "discard", "card": "5C", "capture": None}, deck_with({}))
    assert types(events) == ["card_discarded"]
    assert after.deal.to_act == 1 and after.deal.taken == 120


def test_the_last_discard_ends_the_game() -> None:
    table = table_with(deal_state([["7M"], [], []], pool=["5S"], taken=120))
    after, events = play(table, 0, {"type": "discard", "card": "7M", "capture": None}, deck_with({}))
    assert types(events) == ["card_discarded"]
    assert GAME.is_over(after.deal) and GAME.to_act(after.deal) is None
    assert GAME.legal_actions(after, 0) == []


def test_when_all_hands_empty_the_next_round_is_drawn_from_the_next_seat() -> None:
    deck = deck_with(
        {60: "8M", 61: "1C", 62: "1S", 63: "1M", 64: "2C", 65: "2S", 66: "2M", 67: "3C", 68: "3S", 69: "3M"}
    )
    table = table_with(deal_state([[], ["7M"], []], to_act=1, taken=60, round_no=4))
    after, events = play(table, 1, {"type": "discard", "card": "7M", "capture": None}, deck)
    assert types(events) == ["card_discarded", "card_turned_up", "cards_drawn", "cards_drawn", "cards_drawn"]
    draws = [event.data for event in events[2:]]
    assert [d["seat"] for d in draws] == [2, 0, 1]
    assert [d["deck_indexes"] for d in draws] == [[61, 62, 63], [64, 65, 66], [67, 68, 69]]
    assert draws[0]["private"] == {"cards": ["1C", "1S", "1M"]} and draws[0]["count"] == 3 and draws[0]["round"] == 5
    assert after.deal.round == 5 and after.deal.to_act == 2 and after.deal.taken == 70
    assert after.deal.hands == (("2C", "2M", "2S"), ("3C", "3M", "3S"), ("1C", "1M", "1S"))


def test_a_round_draw_takes_what_is_left_when_fewer_than_three_remain() -> None:
    from domain.cholek_tiga.decide import round_draws

    deck = deck_with({})
    events = round_draws(3, 1, 116, 8, deck)
    assert [(e.data["seat"], e.data["count"], e.data["deck_indexes"]) for e in events] == [
        (1, 3, [116, 117, 118]),
        (2, 1, [119]),
    ]


def test_the_turn_skips_a_seat_with_an_empty_hand() -> None:
    table = table_with(deal_state([["5C", "7M"], [], ["3C"]], taken=120))
    after, _ = play(table, 0, {"type": "discard", "card": "5C", "capture": None}, deck_with({}))
    assert after.deal.to_act == 2
