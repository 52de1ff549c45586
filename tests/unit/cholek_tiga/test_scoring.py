"""Scoring, settlement, in-play bonuses and the next game's first player (docs/rules.md, "Cholek Tiga")."""

from __future__ import annotations

import pytest

from domain.cholek_tiga.scoring import score_pile, scores
from domain.cholek_tiga.settlement import ang_pow_transfers, next_first_seat, point_transfers
from domain.ledger import Transfer, net_by_account

from .support import GAME, deal_state, deck_with, play, table_with, types


@pytest.mark.parametrize(("copies", "normal", "red"), [(1, 0, 1), (2, 0, 4), (3, 3, 3), (4, 8, 8)])
def test_points_by_copies_held(copies: int, normal: int, red: int) -> None:
    assert score_pile(["5C"] * copies) == normal
    for red_type in ("9S", "RF", "OT"):
        assert score_pile([red_type] * copies) == red
    assert score_pile(["WF"] * copies) == normal  # White Flower is not red-stamped


def test_sets_may_be_completed_over_several_captures() -> None:
    # captured 5C 5S 5M, later 5C 5C 5M: three 5C (3), two 5M (0), one 5S (0)
    assert score_pile(["5C", "5S", "5M", "5C", "5C", "5M"]) == 3
    assert score_pile(["9S", "9C", "9M", "9S", "9S", "9S", "RF", "OT", "OT"]) == 8 + 1 + 4
    assert scores([[], ["1C"] * 4 + ["2C"] * 3]) == [0, 11]


def test_points_go_from_every_lower_player_to_the_top() -> None:
    transfers = point_transfers([12, 5, 0], 10)
    assert transfers == [
        Transfer("seat:1", "seat:0", 70, "points"),
        Transfer("seat:2", "seat:0", 120, "points"),
    ]


def test_tied_top_players_split_each_payment_and_pay_each_other_nothing() -> None:
    assert point_transfers([10, 10, 3], 10) == [
        Transfer("seat:2", "seat:0", 35, "points"),
        Transfer("seat:2", "seat:1", 35, "points"),
    ]


def test_the_split_remainder_goes_to_the_tied_player_earliest_from_seat_zero() -> None:
    # 7 points * 5 cents = 35 cents between seats 1 and 2: 18 and 17.
    assert point_transfers([3, 10, 10], 5) == [
        Transfer("seat:0", "seat:1", 18, "points"),
        Transfer("seat:0", "seat:2", 17, "points"),
    ]
    # 1 cent between two: the whole cent to the earlier seat, nothing (no zero transfer) to the other.
    assert point_transfers([4, 5, 5], 1) == [Transfer("seat:0", "seat:1", 1, "points")]


def test_all_tied_or_zero_point_value_pays_nothing() -> None:
    assert point_transfers([6, 6, 6], 10) == []
    assert point_transfers([6, 0], 0) == []


def test_ang_pow_for_exactly_three_of_a_red_stamped_type() -> None:
    transfers = ang_pow_transfers([["OT", "OT", "OT", "5C", "5C", "5C"], ["9S"], []])
    assert transfers == [
        Transfer("seat:1", "seat:0", 100, "ang_pow"),
        Transfer("seat:2", "seat:0", 100, "ang_pow"),
    ]
    assert ang_pow_transfers([["5C", "5C", "5C", "WF", "WF", "WF"], []]) == []


def test_ang_pow_besar_for_a_red_quadruplet() -> None:
    transfers = ang_pow_transfers([[], ["RF"] * 4 + ["9S"] * 3])
    assert transfers == [
        Transfer("seat:0", "seat:1", 100, "ang_pow"),  # 9S triplet
        Transfer("seat:0", "seat:1", 200, "ang_pow_besar"),  # RF quadruplet
    ]


def test_outcome_of_a_finished_game_with_a_red_quadruplet() -> None:
    piles = [["RF", "RF", "RF", "RF", "2C", "2S", "2M"], ["5C", "5C", "5C", "9S"], ["OT", "OT"]]
    deal = deal_state([[], [], []], pool=["7M", "8M"], piles=piles, taken=120, to_act=None, first_seat=1)
    outcome = GAME.outcome(table_with(deal, point_value_cents=10))
    assert outcome.result["scores"] == [8, 4, 4]
    assert outcome.result["leftover_pool"] == ["7M", "8M"]
    assert outcome.transfers == [
        Transfer("seat:1", "seat:0", 40, "points"),
        Transfer("seat:2", "seat:0", 40, "points"),
        Transfer("seat:1", "seat:0", 200, "ang_pow_besar"),
        Transfer("seat:2", "seat:0", 200, "ang_pow_besar"),
    ]
    assert outcome.result["net"] == [480, -240, -240]
    assert sum(net_by_account(outcome.transfers).values()) == 0
    # lowest score 4 is shared by seats 1 and 2; counting from this game's first seat (1), seat 1 is earlier
    assert outcome.carry == {"first_seat": 1}


@pytest.mark.parametrize(
    ("final", "first", "expected"),
    [
        ([5, 3, 3], 0, 1),
        ([5, 3, 3], 2, 2),
        ([5, 3, 3], 1, 1),
        ([2, 9, 2], 1, 2),
        ([2, 9, 2], 0, 0),
        ([4, 4], 1, 1),
        ([4, 4], 0, 0),
        ([0, 7], 1, 0),
    ],
)
def test_the_lowest_scorer_moves_first_next_game_ties_from_the_previous_first_player(
    final: list[int], first: int, expected: int
) -> None:
    assert next_first_seat(final, first) == expected


def test_in_play_bonus_ayam_for_three_identical_cards_captured_from_the_hand() -> None:
    table = table_with(deal_state([["5C", "7M"], ["1C"], ["2C"]], pool=["5C", "5C", "5S"]), in_play_bonuses=True)
    after, events = play(table, 0, {"type": "discard", "card": "5C", "capture": ["5C", "5C"]}, deck_with({60: "8M"}))
    assert types(events) == ["card_discarded", "bonus_paid", "card_turned_up"]
    assert events[1].data == {
        "seat": 0,
        "kind": "ayam",
        "card": "5C",
        "transfers": [
            {"payer": "seat:1", "payee": "seat:0", "amount": 50, "reason": "ayam"},
            {"payer": "seat:2", "payee": "seat:0", "amount": 50, "reason": "ayam"},
        ],
    }
    assert after.deal.bonus_net == (100, -50, -50)


def test_in_play_bonus_kandang_for_three_identical_cards_captured_by_the_turn_up() -> None:
    table = table_with(
        deal_state([["7M"], ["1C"]], pool=["5C", "5C", "5S"], pending="5C", taken=61), in_play_bonuses=True
    )
    after, events = play(table, 0, {"type": "capture", "cards": ["5C", "5C"]}, deck_with({}))
    assert types(events) == ["turn_up_captured", "bonus_paid"]
    assert events[1].data["kind"] == "kandang"
    assert events[1].data["transfers"] == [{"payer": "seat:1", "payee": "seat:0", "amount": 100, "reason": "kandang"}]
    assert after.deal.bonus_net == (100, -100)


def test_no_bonus_when_the_option_is_off_or_the_three_are_not_identical() -> None:
    off = table_with(deal_state([["5C", "7M"], ["1C"]], pool=["5C", "5C", "5S"]))
    _, events = play(off, 0, {"type": "discard", "card": "5C", "capture": ["5C", "5C"]}, deck_with({60: "8M"}))
    assert "bonus_paid" not in types(events)
    on = table_with(deal_state([["5C", "7M"], ["1C"]], pool=["5C", "5C", "5S"]), in_play_bonuses=True)
    _, events = play(on, 0, {"type": "discard", "card": "5C", "capture": ["5C", "5S"]}, deck_with({60: "8M"}))
    assert "bonus_paid" not in types(events)


def test_bonuses_count_in_the_result_net_but_not_in_the_outcome_transfers() -> None:
    deal = deal_state([[], []], piles=[["5C"] * 3, ["1C"]], taken=120, to_act=None)
    deal = deal._replace(bonus_net=(100, -100))
    outcome = GAME.outcome(table_with(deal, in_play_bonuses=True))
    assert outcome.transfers == [Transfer("seat:1", "seat:0", 30, "points")]
    assert outcome.result["net"] == [130, -130]
