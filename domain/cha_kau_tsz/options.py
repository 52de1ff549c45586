"""Table options of Cha Kau Tsz, hand sizes, and the carry a table starts with."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.errors import OptionError
from domain.events import JSON

CHIP_COLOURS: tuple[str, ...] = ("white", "red", "blue")
CHIP_COUNTS: Mapping[str, int] = {"white": 10, "red": 5, "blue": 5}  # each player's starting chips
DEFAULT_CHIP_VALUES: Mapping[str, int] = {"white": 1, "red": 5, "blue": 10}
DEFAULT_TARGETS: Mapping[int, int] = {2: 10, 3: 9, 4: 8}  # house default of pool_target_tricks
DEFAULT_CHIP_VALUE_CENTS = 10
MAX_CHIP_VALUE = 1_000_000
MAX_CHIP_VALUE_CENTS = 1_000_000
OPTION_NAMES = ("pool_target_tricks", "chip_values", "chip_value_cents")


def hand_size(seats: int) -> int:
    """Cards dealt to each player: 15 with 2 players, 14 with 3 or 4."""
    return 15 if seats == 2 else 14


def packet_size(seats: int) -> int:
    """Cards per packet of the deal: 3 with 2 players, 2 with 3 or 4."""
    return 3 if seats == 2 else 2


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def parse_options(raw: Mapping[str, Any], seats: int) -> dict[str, JSON]:
    if not isinstance(raw, Mapping):
        raise OptionError(f"options must be an object, not {type(raw).__name__}")
    unknown = sorted(str(name) for name in raw if name not in OPTION_NAMES)
    if unknown:
        raise OptionError(
            f"unknown option {unknown[0]!r} for cha-kau-tsz; known options are {', '.join(OPTION_NAMES)}",
            code="unknown_option",
        )
    size = hand_size(seats)
    target = raw.get("pool_target_tricks", DEFAULT_TARGETS.get(seats, 8))
    if not _is_int(target) or not size // 2 < target <= size:
        raise OptionError(
            f"pool_target_tricks must be an integer more than half the hand size and at most the hand size "
            f"({size // 2 + 1} to {size} with {seats} players), not {target!r}"
        )
    chip_values = _parse_chip_values(raw.get("chip_values", DEFAULT_CHIP_VALUES))
    cents = raw.get("chip_value_cents", DEFAULT_CHIP_VALUE_CENTS)
    if not _is_int(cents) or not 0 <= cents <= MAX_CHIP_VALUE_CENTS:
        raise OptionError(f"chip_value_cents must be an integer from 0 to {MAX_CHIP_VALUE_CENTS}, not {cents!r}")
    return {"pool_target_tricks": target, "chip_values": chip_values, "chip_value_cents": cents}


def _parse_chip_values(raw: Any) -> dict[str, JSON]:
    if not isinstance(raw, Mapping) or set(raw) != set(CHIP_COLOURS):
        raise OptionError(f"chip_values must be an object with exactly the keys {', '.join(CHIP_COLOURS)}, not {raw!r}")
    values: dict[str, JSON] = {}
    for colour in CHIP_COLOURS:
        value = raw[colour]
        if not _is_int(value) or not 1 <= value <= MAX_CHIP_VALUE:
            raise OptionError(f"chip_values.{colour} must be an integer from 1 to {MAX_CHIP_VALUE}, not {value!r}")
        values[colour] = value
    return values


def starting_stack(options: Mapping[str, JSON]) -> int:
    """Points each player's starting chips are worth (85 with the default values)."""
    values = options["chip_values"]
    return sum(CHIP_COUNTS[colour] * int(values[colour]) for colour in CHIP_COLOURS)


def initial_carry(seats: int, options: Mapping[str, JSON]) -> dict[str, JSON]:
    """The cross-hand state before hand 1: balances are changes from the starting stack; `pool_paid` lists who
    paid how much into the pool since it was last won (`domain.cha_kau_tsz.scoring.pool_paid_after`)."""
    return {
        "balances": [0] * seats,
        "pool": 0,
        "pool_paid": [],
        "pool_game": 1,
        "hands_in_pool_game": 0,
        "starting_stack": starting_stack(options),
    }
