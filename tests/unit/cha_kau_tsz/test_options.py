"""Table options of Cha Kau Tsz: defaults, ranges, and precise errors."""

from __future__ import annotations

from typing import Any

import pytest

from domain import table as tbl
from domain.cha_kau_tsz.rules import CHA_KAU_TSZ
from domain.errors import OptionError

DEFAULT_CHIPS = {"white": 1, "red": 5, "blue": 10}


@pytest.mark.parametrize(("seats", "target"), [(2, 10), (3, 9), (4, 8)])
def test_defaults_are_filled_in(seats: int, target: int) -> None:
    assert CHA_KAU_TSZ.parse_options({}, seats) == {
        "pool_target_tricks": target,
        "chip_values": DEFAULT_CHIPS,
        "chip_value_cents": 10,
    }


def test_given_values_are_kept() -> None:
    raw = {"pool_target_tricks": 15, "chip_values": {"white": 2, "red": 10, "blue": 25}, "chip_value_cents": 0}
    assert CHA_KAU_TSZ.parse_options(raw, 2) == raw
    assert CHA_KAU_TSZ.initial_carry(2, raw) == {
        "balances": [0, 0],
        "pool": 0,
        "pool_paid": [],
        "pool_game": 1,
        "hands_in_pool_game": 0,
        "starting_stack": 20 + 50 + 125,
    }


def test_default_starting_stack_is_85_points() -> None:
    assert CHA_KAU_TSZ.initial_carry(4, CHA_KAU_TSZ.parse_options({}, 4))["starting_stack"] == 85


@pytest.mark.parametrize(
    ("seats", "raw", "fragment"),
    [
        (2, {"pool_target_tricks": 7}, "pool_target_tricks"),  # half of 15 is 7.5: 8 is the least
        (2, {"pool_target_tricks": 16}, "(8 to 15 with 2 players), not 16"),
        (3, {"pool_target_tricks": 7}, "(8 to 14 with 3 players), not 7"),  # exactly half of 14 is not enough
        (4, {"pool_target_tricks": 15}, "not 15"),
        (4, {"pool_target_tricks": True}, "not True"),
        (4, {"pool_target_tricks": 9.0}, "not 9.0"),
        (4, {"pool_target_tricks": "9"}, "not '9'"),
        (4, {"pool_target_tricks": None}, "not None"),
        (4, {"chip_values": {"white": 1, "red": 5}}, "chip_values must be an object with exactly the keys"),
        (4, {"chip_values": {"white": 1, "red": 5, "blue": 10, "green": 25}}, "green"),
        (4, {"chip_values": [1, 5, 10]}, "chip_values"),
        (4, {"chip_values": {"white": 0, "red": 5, "blue": 10}}, "chip_values.white must be an integer from 1"),
        (4, {"chip_values": {"white": 1, "red": -5, "blue": 10}}, "chip_values.red"),
        (4, {"chip_values": {"white": 1, "red": 5, "blue": False}}, "chip_values.blue"),
        (4, {"chip_values": {"white": 1, "red": 5, "blue": 10**9}}, "chip_values.blue"),
        (4, {"chip_value_cents": -1}, "chip_value_cents must be an integer from 0 to 1000000, not -1"),
        (4, {"chip_value_cents": 10**7}, "chip_value_cents"),
        (4, {"chip_value_cents": True}, "chip_value_cents"),
        (4, {"chip_value_cents": 1.5}, "chip_value_cents"),
        (4, {"honours_rank": "ace"}, "unknown option 'honours_rank'"),
    ],
)
def test_invalid_options_are_rejected_naming_the_option_and_value(
    seats: int, raw: dict[str, Any], fragment: str
) -> None:
    with pytest.raises(OptionError) as error:
        CHA_KAU_TSZ.parse_options(raw, seats)
    assert fragment in error.value.message
    assert error.value.code in {"invalid_option", "unknown_option"}


def test_a_non_object_is_rejected() -> None:
    with pytest.raises(OptionError):
        CHA_KAU_TSZ.parse_options([], 4)  # type: ignore[arg-type]


@pytest.mark.parametrize("seats", [1, 5])
def test_seat_counts_outside_two_to_four_are_rejected_by_the_table(seats: int) -> None:
    with pytest.raises(OptionError) as error:
        tbl.open_table("t", "cha-kau-tsz", seats, {}, b"\0" * 32)
    assert error.value.code == "invalid_seats"


def test_the_game_object_describes_itself() -> None:
    assert CHA_KAU_TSZ.name == "cha-kau-tsz"
    assert (CHA_KAU_TSZ.min_seats, CHA_KAU_TSZ.max_seats) == (2, 4)
    assert CHA_KAU_TSZ.money_unit == "points"
    assert len(CHA_KAU_TSZ.canonical_deck) == 60
