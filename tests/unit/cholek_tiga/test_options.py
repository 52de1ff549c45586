"""Table options of Cholek Tiga: defaults, accepted values and errors naming the option and value."""

from __future__ import annotations

from typing import Any

import pytest

from domain.errors import OptionError
from domain.table import evolve, open_table

from .support import GAME

DEFAULTS = {"honours_rank": "own", "point_value_cents": 10, "currency": "SGD", "in_play_bonuses": False}


def test_defaults_are_filled_in() -> None:
    assert GAME.parse_options({}, 2) == DEFAULTS
    assert GAME.parse_options({"honours_rank": "ace"}, 3) == {**DEFAULTS, "honours_rank": "ace"}


def test_every_option_may_be_set_and_parsing_is_idempotent() -> None:
    raw = {"honours_rank": "ace", "point_value_cents": 0, "currency": "MYR", "in_play_bonuses": True}
    parsed = GAME.parse_options(raw, 2)
    assert parsed == raw
    assert GAME.parse_options(parsed, 2) == parsed


def test_the_table_stores_the_parsed_options() -> None:
    state = evolve(None, open_table("t", "cholek-tiga", 3, {"in_play_bonuses": True}, bytes(32)))
    assert state.options == {**DEFAULTS, "in_play_bonuses": True, "turn_seconds": 60}


@pytest.mark.parametrize(
    ("raw", "named"),
    [
        ({"honour_rank": "own"}, "'honour_rank'"),
        ({"honours_rank": "high"}, "honours_rank"),
        ({"honours_rank": 1}, "honours_rank"),
        ({"point_value_cents": "10"}, "point_value_cents"),
        ({"point_value_cents": 10.0}, "point_value_cents"),
        ({"point_value_cents": True}, "point_value_cents"),
        ({"point_value_cents": -1}, "point_value_cents"),
        ({"point_value_cents": 100_001}, "point_value_cents"),
        ({"currency": "sgd"}, "currency"),
        ({"currency": "SGDX"}, "currency"),
        ({"currency": None}, "currency"),
        ({"in_play_bonuses": 1}, "in_play_bonuses"),
        ({"in_play_bonuses": "true"}, "in_play_bonuses"),
    ],
)
def test_bad_options_raise_option_error_naming_option_and_value(raw: dict[str, Any], named: str) -> None:
    with pytest.raises(OptionError) as caught:
        GAME.parse_options(raw, 2)
    assert named in caught.value.message
    value = next(iter(raw.values()))
    if "unknown" not in caught.value.message:
        assert repr(value) in caught.value.message or str(value) in caught.value.message
    assert caught.value.code in ("invalid_option", "unknown_option")


def test_options_that_are_not_an_object_are_refused() -> None:
    with pytest.raises(OptionError):
        GAME.parse_options(["honours_rank"], 2)  # type: ignore[arg-type]


def test_seat_count_outside_two_to_three_is_refused_by_the_table() -> None:
    for seats in (1, 4):
        with pytest.raises(OptionError):
            open_table("t", "cholek-tiga", seats, {}, bytes(32))
