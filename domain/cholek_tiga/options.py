"""Per-table options of Cholek Tiga (docs/rules.md, "Cholek Tiga") and their validation."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from domain.errors import OptionError
from domain.events import JSON

HONOURS_RANKS = ("own", "ace")
MAX_POINT_VALUE_CENTS = 100_000
DEFAULT_OPTIONS: Mapping[str, JSON] = {
    "honours_rank": "own",
    "point_value_cents": 10,
    "currency": "SGD",
    "in_play_bonuses": False,
}
_CURRENCY = re.compile(r"[A-Z]{3}")


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _honours_rank(value: Any) -> JSON:
    if not isinstance(value, str) or value not in HONOURS_RANKS:
        raise OptionError(f"option honours_rank must be 'own' or 'ace', not {_shown(value)}")
    return value


def _point_value(value: Any) -> JSON:
    if isinstance(value, bool) or not isinstance(value, int):
        raise OptionError(f"option point_value_cents must be an integer number of cents, not {_shown(value)}")
    if not 0 <= value <= MAX_POINT_VALUE_CENTS:
        raise OptionError(f"option point_value_cents must be between 0 and {MAX_POINT_VALUE_CENTS}, not {value}")
    return value


def _currency(value: Any) -> JSON:
    if not isinstance(value, str) or _CURRENCY.fullmatch(value) is None:
        raise OptionError(
            f"option currency must be a code of three uppercase letters such as 'SGD', not {_shown(value)}"
        )
    return value


def _in_play_bonuses(value: Any) -> JSON:
    if not isinstance(value, bool):
        raise OptionError(f"option in_play_bonuses must be true or false, not {_shown(value)}")
    return value


_PARSERS = {
    "honours_rank": _honours_rank,
    "point_value_cents": _point_value,
    "currency": _currency,
    "in_play_bonuses": _in_play_bonuses,
}


def parse_options(raw: Mapping[str, Any], seats: int) -> dict[str, JSON]:
    """The validated options with defaults filled in; raises OptionError naming the option and value."""
    del seats  # no option of Cholek Tiga depends on the number of players
    if not isinstance(raw, Mapping):
        raise OptionError(f"options must be a JSON object, not {_shown(raw)}")
    unknown = [name for name in raw if name not in _PARSERS]
    if unknown:
        raise OptionError(
            f"unknown option {_shown(unknown[0])} for cholek-tiga; known options are {', '.join(_PARSERS)}",
            code="unknown_option",
        )
    options = dict(DEFAULT_OPTIONS)
    for name, value in raw.items():
        options[name] = _PARSERS[name](value)
    return options
