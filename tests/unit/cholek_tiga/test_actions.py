"""Malformed action bodies are RuleErrors (never KeyError/TypeError), on the game and through the table."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.errors import RuleError
from domain.table import Act, decide, legal_actions, to_act

from .support import GAME, deal_state, deck_with, play, seated_table, seeds_for, table_with

MALFORMED: list[Any] = [
    {},
    {"type": None},
    {"type": 3},
    {"type": ["discard"]},
    {"type": "fly"},
    {"type": "DISCARD", "card": "5C"},
    {"type": "discard"},
    {"type": "discard", "capture": None},
    {"type": "discard", "card": None},
    {"type": "discard", "card": 5},
    {"type": "discard", "card": ["5C"]},
    {"type": "discard", "card": "XX"},
    {"type": "discard", "card": "5c"},
    {"type": "discard", "card": ""},
    {"type": "discard", "card": "5C", "capture": "5S5M"},
    {"type": "discard", "card": "5C", "capture": ["5S"]},
    {"type": "discard", "card": "5C", "capture": []},
    {"type": "discard", "card": "5C", "capture": ["5S", "5M", "5C"]},
    {"type": "discard", "card": "5C", "capture": [5, 6]},
    {"type": "discard", "card": "5C", "capture": ["5S", None]},
    {"type": "discard", "card": "5C", "capture": {"a": "5S", "b": "5M"}},
    {"type": "discard", "card": "5C", "capture": ["5S", "ZZ"]},
    {"type": "discard", "card": "5C", "capture": None, "extra": 1},
    {"type": "discard", "card": "5C", "cards": ["5S", "5M"]},
    {"type": "discard", "card": "5C", 7: "x"},
    {"type": "capture"},
    {"type": "capture", "cards": None},
    {"type": "capture", "cards": "5S"},
    {"type": "capture", "cards": ["5S"]},
    {"type": "capture", "cards": [["5S"], ["5M"]]},
    {"type": "capture", "cards": ["5S", "5M"], "card": "5C"},
    {"type": "pass", "card": "5C"},
    {"type": "discard", "card": "5C" * 1000},
]


@pytest.mark.parametrize("action", MALFORMED, ids=lambda a: repr(a)[:60])
def test_malformed_bodies_raise_rule_error_on_the_game(action: Any) -> None:
    table = table_with(deal_state([["5C", "7M"], ["1C"]], pool=["5S", "5M"]))
    with pytest.raises(RuleError) as caught:
        play(table, 0, action, deck_with({}))
    assert caught.value.code in ("malformed_action", "unknown_action", "unknown_card")
    assert len(caught.value.message) < 300


@pytest.mark.parametrize("action", [None, [], "discard", 5, ["type", "pass"]], ids=repr)
def test_bodies_that_are_not_objects_raise_rule_error(action: Any) -> None:
    table = table_with(deal_state([["5C"], ["1C"]]))
    with pytest.raises(RuleError) as caught:
        GAME.decide_play(table, 0, action, deck_with({}))
    assert caught.value.code == "malformed_action"


@pytest.mark.parametrize("action", MALFORMED, ids=lambda a: repr(a)[:60])
def test_malformed_bodies_raise_rule_error_through_the_table(action: Any) -> None:
    seeds = seeds_for(1)
    state, _ = seated_table(2, seeds=seeds)
    with pytest.raises(RuleError):
        decide(state, Act(0, action), seeds)


def test_unknown_action_code_and_message() -> None:
    table = table_with(deal_state([["5C"], ["1C"]]))
    with pytest.raises(RuleError, match="unknown action type 'fly'") as caught:
        play(table, 0, {"type": "fly"}, deck_with({}))
    assert caught.value.code == "unknown_action"


def test_extra_fields_are_named() -> None:
    table = table_with(deal_state([["5C"], ["1C"]]))
    with pytest.raises(RuleError, match="unexpected field 'extra' in a discard action"):
        play(table, 0, {"type": "discard", "card": "5C", "capture": None, "extra": True}, deck_with({}))


def test_acting_out_of_turn_is_refused_by_the_table() -> None:
    seeds = seeds_for(1)
    state, _ = seated_table(3, seeds=seeds)
    seat = to_act(state)
    assert seat == 0
    other = legal_actions(state, seat)[0]
    with pytest.raises(RuleError) as caught:
        decide(state, Act(1, other), seeds)
    assert caught.value.code == "not_your_turn"
    assert legal_actions(state, 1) == []


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True)
    | st.text(max_size=4)
    | st.sampled_from(["5C", "5S", "5M", "7M", "1C", "OT"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)
BODIES = st.dictionaries(
    st.sampled_from(["type", "card", "capture", "cards", "extra"]),
    JSON_VALUES | st.sampled_from(["discard", "capture", "pass"]),
    max_size=4,
)


@settings(max_examples=300, deadline=None)
@given(body=BODIES, pending=st.booleans())
def test_any_json_body_is_accepted_or_a_rule_error(body: dict[str, Any], pending: bool) -> None:
    deal = deal_state([["5C", "7M"], ["1C"]], pool=["5S", "5M"], pending="5C" if pending else None)
    table = table_with(deal)
    try:
        play(table, 0, body, deck_with({}))
    except RuleError as error:
        assert error.code and error.message
