"""The immutable state of one Cholek Tiga deal (a game), and multiset helpers on card tuples.

Cards are type codes; identical cards are interchangeable, so hands, the pool
and piles are tuples of codes in which a code may repeat. Hands are kept
sorted; the pool and piles keep the order in which cards arrived.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from domain.cards import CHERKI_DECK

DECK_SIZE = len(CHERKI_DECK)
DRAW_SIZE = 3

Cards = tuple[str, ...]


class DealState(NamedTuple):
    """A NamedTuple, not a frozen dataclass: every game event folds into a new one, and a tuple is made without a
    Python call per field (as `infra.event_store.RecordedEvent`)."""

    players: int
    first_seat: int  # who moved first in this game
    taken: int  # cards taken from the stock so far (drawn or turned up): the stock position
    hands: tuple[Cards, ...]  # by seat, sorted codes
    pool: Cards  # face-up cards available for captures (not the pending turn-up)
    piles: tuple[Cards, ...]  # by seat, captured cards in capture order
    to_act: int | None  # the seat to move; None once the game is over
    pending: str | None  # the turned-up card awaiting its capture decision
    round: int  # 1-based
    bonus_net: tuple[int, ...]  # in-play bonuses received (+) and paid (-) so far, by seat

    @property
    def stock_remaining(self) -> int:
        return DECK_SIZE - self.taken

    @property
    def over(self) -> bool:
        return self.to_act is None


def without(cards: Cards, removed: Iterable[str]) -> Cards:
    """`cards` less one copy of each code in `removed` (each must be present)."""
    remaining = list(cards)
    for card in removed:
        remaining.remove(card)
    return tuple(remaining)


def replaced(values: tuple[Cards, ...], index: int, value: Cards) -> tuple[Cards, ...]:
    return (*values[:index], value, *values[index + 1 :])


def next_to_act(hands: tuple[Cards, ...], seat: int, taken: int) -> int | None:
    """Who moves after `seat`'s turn: the next seat holding cards; with all hands empty,
    the next seat (it draws first in the new round), or None when the stock is empty too."""
    players = len(hands)
    for step in range(1, players + 1):
        candidate = (seat + step) % players
        if hands[candidate]:
            return candidate
    return (seat + 1) % players if taken < DECK_SIZE else None
