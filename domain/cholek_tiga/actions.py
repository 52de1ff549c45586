"""Parsing of Cholek Tiga action bodies into typed actions; any malformed body is a RuleError."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from domain.cholek_tiga.ranks import CARD_TYPES
from domain.errors import RuleError

MALFORMED = "malformed_action"


@dataclass(frozen=True, slots=True)
class Discard:
    card: str
    capture: tuple[str, str] | None  # sorted


@dataclass(frozen=True, slots=True)
class CaptureTurnUp:
    cards: tuple[str, str]  # sorted


@dataclass(frozen=True, slots=True)
class Pass:
    pass


Action = Discard | CaptureTurnUp | Pass

_FIELDS: Mapping[str, frozenset[str]] = {
    "discard": frozenset({"type", "card", "capture"}),
    "capture": frozenset({"type", "cards"}),
    "pass": frozenset({"type"}),
}


def shown(value: Any) -> str:
    """A short repr of a client-supplied value for error messages."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _card(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise RuleError(f"{where} must be a card code string such as '5C', not {shown(value)}", code=MALFORMED)
    if value not in CARD_TYPES:
        raise RuleError(f"{where} names {shown(value)}, which is not a Cherki card code", code="unknown_card")
    return value


def _pair(value: Any, where: str) -> tuple[str, str]:
    if not isinstance(value, list | tuple):
        raise RuleError(f"{where} must be a list of two card codes, not {shown(value)}", code=MALFORMED)
    if len(value) != 2:
        raise RuleError(f"{where} must name exactly two pool cards, not {len(value)}", code=MALFORMED)
    first, second = sorted((_card(value[0], where), _card(value[1], where)))
    return first, second


def parse_action(action: Any) -> Action:
    if type(action) is not dict and not isinstance(action, Mapping):  # the exact-type test is the fast path
        raise RuleError(f"an action must be a JSON object, not {shown(action)}", code=MALFORMED)
    kind = action.get("type")
    if not isinstance(kind, str):
        raise RuleError(f"action type must be a string, not {shown(kind)}", code=MALFORMED)
    allowed = _FIELDS.get(kind)
    if allowed is None:
        raise RuleError(
            f"unknown action type {shown(kind)} for cholek-tiga; expected discard, capture or pass",
            code="unknown_action",
        )
    extra = sorted(shown(name) for name in action if name not in allowed)
    if extra:
        raise RuleError(f"unexpected field {', '.join(extra)} in a {kind} action", code=MALFORMED)
    if kind == "discard":
        if "card" not in action:
            raise RuleError("a discard action needs a 'card'", code=MALFORMED)
        card = _card(action["card"], "discard card")
        capture = action.get("capture")
        return Discard(card, None if capture is None else _pair(capture, "discard capture"))
    if kind == "capture":
        if "cards" not in action:
            raise RuleError("a capture action needs 'cards', the two pool cards to take", code=MALFORMED)
        return CaptureTurnUp(_pair(action["cards"], "capture cards"))
    return Pass()
