"""Validation of play actions: every malformed or illegal body is a RuleError with a stable code."""

from __future__ import annotations

from typing import Any

import pytest

from domain import table as tbl
from domain.errors import NotYourTurn, RuleError

from .support import Table


@pytest.fixture
def table() -> Table:
    table = Table(3)
    table.rig([["1S", "2S", "3S", "3S", "JC"], ["5D", "5D", "6H", "7H", "KC"], ["9S", "9D", "9H", "1H", "QC"]], 0)
    return table


@pytest.mark.parametrize(
    ("action", "code", "fragment"),
    [
        ({"type": "play"}, "illegal_action", 'a play needs "cards"'),
        ({"type": "play", "cards": []}, "illegal_action", "non-empty list"),
        ({"type": "play", "cards": "1S"}, "illegal_action", "non-empty list"),
        ({"type": "play", "cards": None}, "illegal_action", "non-empty list"),
        ({"type": "play", "cards": {"1S": 1}}, "illegal_action", "non-empty list"),
        ({"type": "play", "cards": [1]}, "illegal_action", "card codes are strings, not 1"),
        ({"type": "play", "cards": [["1S"]]}, "illegal_action", "card codes are strings"),
        ({"type": "play", "cards": [None]}, "illegal_action", "card codes are strings"),
        ({"type": "play", "cards": ["1s"]}, "unknown_card", "'1s' is not a card of the Sampen deck"),
        ({"type": "play", "cards": ["1C"]}, "unknown_card", "'1C'"),
        ({"type": "play", "cards": ["1S"], "count": 1}, "illegal_action", "not 'count'"),
        ({"type": "play", "cards": ["1S"], "seat": 2}, "illegal_action", "not 'seat'"),
        ({"type": "lead", "cards": ["1S"]}, "unknown_action", "unknown action type 'lead'"),
        ({"type": 7}, "unknown_action", "unknown action type 7"),
        ({"cards": ["1S"]}, "unknown_action", "unknown action type None"),
        ({"type": "discard", "card": "1S", "capture": None}, "unknown_action", "discard"),
        ({"type": "play", "cards": ["9S"]}, "card_not_in_hand", "seat 0 does not hold 9S"),
        ({"type": "play", "cards": ["1S", "1S"]}, "card_not_in_hand", "seat 0 holds 1 1S, not 2"),
        ({"type": "play", "cards": ["3S", "3S", "3S"]}, "card_not_in_hand", "seat 0 holds 2 3S, not 3"),
        ({"type": "play", "cards": ["1S", "2S"]}, "illegal_lead", "1S 2S is not a legal lead"),
        ({"type": "play", "cards": ["2S", "3S", "3S"]}, "illegal_lead", "cannot repeat a rank"),
        ({"type": "play", "cards": ["1S", "2S", "3S", "JC"]}, "illegal_lead", "cannot include pictures"),
    ],
)
def test_bad_leads_raise_rule_errors(table: Table, action: dict[str, Any], code: str, fragment: str) -> None:
    before = table.state
    with pytest.raises(RuleError) as error:
        table.act(0, action)
    assert error.value.code == code
    assert fragment in error.value.message
    assert table.state is before


def test_follow_must_play_exactly_the_led_count(table: Table) -> None:
    table.play(0, "1S", "2S", "3S")
    with pytest.raises(RuleError) as error:
        table.play(1, "5D")
    assert error.value.code == "wrong_count"
    assert error.value.message == "seat 1 must play exactly 3 cards to follow this trick, not 1"
    with pytest.raises(RuleError) as error:
        table.play(1, "5D", "5D", "6H", "7H")
    assert error.value.code == "wrong_count"
    with pytest.raises(RuleError) as error:
        table.play(1, "5D", "5D", "5D")
    assert error.value.code == "card_not_in_hand"
    table.play(1, "5D", "KC", "7H")  # any cards: no combination needed to follow
    assert tbl.legal_actions(table.state, 2) == [{"type": "play", "count": 3}]
    assert tbl.legal_actions(table.state, 0) == []


def test_out_of_turn_is_refused_by_the_table(table: Table) -> None:
    with pytest.raises(NotYourTurn):
        table.play(1, "5D")


def test_legal_leads_are_listed_and_each_is_accepted(table: Table) -> None:
    actions = tbl.legal_actions(table.state, 0)
    assert actions == [
        {"type": "play", "cards": ["1S"]},
        {"type": "play", "cards": ["2S"]},
        {"type": "play", "cards": ["3S"]},
        {"type": "play", "cards": ["JC"]},
        {"type": "play", "cards": ["1S", "2S", "3S"]},
    ]
    for action in actions:
        assert tbl.decide(table.state, tbl.Act(0, action), table.seeds)[0].type == "cards_played"


def test_a_tuple_of_cards_is_accepted_from_python_callers(table: Table) -> None:
    events = table.act(0, {"type": "play", "cards": ("JC",)})
    assert events[0].data["cards"] == ["JC"]
