"""Captures: a card takes itself plus exactly two pool cards of its rank
(docs/rules.md, "Cholek Tiga", turn steps 2 and 4)."""

from __future__ import annotations

from collections.abc import Iterable

from domain.cholek_tiga.ranks import RankTable, rank_label
from domain.cholek_tiga.state import Cards
from domain.errors import RuleError

INVALID = "invalid_capture"


def can_capture(pool: Cards, card: str, ranks: RankTable) -> bool:
    rank = ranks[card]
    found = 0
    for other in pool:
        if ranks[other] == rank:
            found += 1
            if found == 2:
                return True
    return False


def rank_groups(pool: Cards, ranks: RankTable, wanted: Iterable[str]) -> dict[str, dict[str, int]]:
    """The pool cards of the `wanted` ranks, grouped by rank: rank -> {code: copies}."""
    groups: dict[str, dict[str, int]] = {rank: {} for rank in wanted}
    for card in pool:
        counts = groups.get(ranks[card])
        if counts is not None:
            counts[card] = counts.get(card, 0) + 1
    return groups


def pairs_of(counts: dict[str, int]) -> list[tuple[str, str]]:
    """Every distinct pair from a multiset of same-rank codes, each pair sorted, in sorted order."""
    codes = sorted(counts)
    pairs: list[tuple[str, str]] = []
    for i, first in enumerate(codes):
        if counts[first] >= 2:
            pairs.append((first, first))
        pairs.extend((first, second) for second in codes[i + 1 :])
    return pairs


def capture_choices(pool: Cards, card: str, ranks: RankTable) -> list[tuple[str, str]]:
    """Every distinct pair of pool cards `card` may capture with, each pair sorted, in sorted order."""
    rank = ranks[card]
    return pairs_of(rank_groups(pool, ranks, (rank,))[rank])


def check_capture(pool: Cards, card: str, pair: tuple[str, str], ranks: RankTable, source: str) -> None:
    """Raise RuleError unless `card` (described by `source`) may capture `pair` from `pool`."""
    rank = ranks[card]
    for named in pair:
        if ranks[named] != rank:
            raise RuleError(
                f"capture must name two pool cards of {rank_label(rank)} like {source} {card}; "
                f"{named} is {rank_label(ranks[named])}",
                code=INVALID,
            )
    same_rank = sum(1 for other in pool if ranks[other] == rank)
    if same_rank < 2:
        raise RuleError(
            f"the pool holds only {same_rank} card{'s' if same_rank != 1 else ''} of {rank_label(rank)} "
            f"besides {source} {card}; a capture needs two",
            code=INVALID,
        )
    first, second = pair
    if first == second:
        held = pool.count(first)
        if held < 2:
            raise RuleError(f"the capture names {first} twice but the pool holds {held} {first}", code=INVALID)
        return
    for named in pair:
        if named not in pool:
            raise RuleError(f"the pool holds no {named} to capture", code=INVALID)
