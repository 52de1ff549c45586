"""Scores from piles (docs/rules.md, "Cholek Tiga", Scoring): by the number of copies of each type held."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from domain.cards import CHERKI_RED_STAMPED

# Points by copies held, index = copies (0..4).
NORMAL_POINTS = (0, 0, 0, 3, 8)
RED_STAMPED_POINTS = (0, 1, 4, 3, 8)


def type_counts(pile: Iterable[str]) -> Counter[str]:
    return Counter(pile)


def type_points(card: str, copies: int) -> int:
    return (RED_STAMPED_POINTS if card in CHERKI_RED_STAMPED else NORMAL_POINTS)[copies]


def score_pile(pile: Iterable[str]) -> int:
    return sum(type_points(card, copies) for card, copies in type_counts(pile).items())


def scores(piles: Sequence[Iterable[str]]) -> list[int]:
    return [score_pile(pile) for pile in piles]
