"""The events of a Cholek Tiga deal: their type names and constructors (the data shapes).

- cards_drawn      {"seat", "round", "count", "deck_indexes": [i, ...], "private": {"cards": [c, ...]}}
- card_discarded   {"seat", "card", "capture": [c, c] | null}  (capture: the two pool cards taken with it)
- card_turned_up   {"seat", "card", "cards": [card], "deck_indexes": [i], "can_capture": bool}
                   can_capture true: the card is pending and `seat` must send capture or pass;
                   false: it stays in the pool and the turn passes.
- turn_up_captured {"seat", "card", "capture": [c, c]}
- turn_up_passed   {"seat", "card"}
- bonus_paid       {"seat", "kind": "ayam" | "kandang", "card", "transfers": [transfer, ...]}

When a turn ends (a discard with an empty stock, a turn-up that cannot capture,
a capture or pass of the turn-up) the turn passes to the next seat holding
cards; when every hand is empty the next round's draws follow in the same
batch, beginning with the next seat.
"""

from __future__ import annotations

from collections.abc import Sequence

from domain.events import JSON, Event
from domain.ledger import Transfer

CARDS_DRAWN = "cards_drawn"
CARD_DISCARDED = "card_discarded"
CARD_TURNED_UP = "card_turned_up"
TURN_UP_CAPTURED = "turn_up_captured"
TURN_UP_PASSED = "turn_up_passed"
BONUS_PAID = "bonus_paid"


def cards_drawn(seat: int, round_no: int, first_index: int, cards: Sequence[str]) -> Event:
    return Event(
        CARDS_DRAWN,
        {
            "seat": seat,
            "round": round_no,
            "count": len(cards),
            "deck_indexes": list(range(first_index, first_index + len(cards))),
            "private": {"cards": list(cards)},
        },
    )


def card_discarded(seat: int, card: str, capture: tuple[str, str] | None) -> Event:
    return Event(CARD_DISCARDED, {"seat": seat, "card": card, "capture": None if capture is None else list(capture)})


def card_turned_up(seat: int, card: str, deck_index: int, can_capture: bool) -> Event:
    return Event(
        CARD_TURNED_UP,
        {"seat": seat, "card": card, "cards": [card], "deck_indexes": [deck_index], "can_capture": can_capture},
    )


def turn_up_captured(seat: int, card: str, capture: tuple[str, str]) -> Event:
    return Event(TURN_UP_CAPTURED, {"seat": seat, "card": card, "capture": list(capture)})


def turn_up_passed(seat: int, card: str) -> Event:
    return Event(TURN_UP_PASSED, {"seat": seat, "card": card})


def bonus_paid(seat: int, kind: str, card: str, transfers: Sequence[Transfer]) -> Event:
    data: dict[str, JSON] = {"seat": seat, "kind": kind, "card": card, "transfers": [t.to_json() for t in transfers]}
    return Event(BONUS_PAID, data)
