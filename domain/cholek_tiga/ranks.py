"""Capture ranks of the Cherki card types, under either `honours_rank` option."""

from __future__ import annotations

from collections.abc import Mapping

from domain.cards import CHERKI_TYPES, cherki_rank
from domain.cholek_tiga.options import HONOURS_RANKS

RankTable = Mapping[str, str]

RANK_TABLES: Mapping[str, RankTable] = {
    mode: {card: cherki_rank(card, mode) for card in CHERKI_TYPES} for mode in HONOURS_RANKS
}
CARD_TYPES: frozenset[str] = frozenset(CHERKI_TYPES)


def rank_table(options: Mapping[str, object]) -> RankTable:
    """Card code -> capture rank ("1".."9" or "H") for a table's options."""
    return RANK_TABLES[str(options.get("honours_rank", "own"))]


def rank_label(rank: str) -> str:
    return "rank H (honours)" if rank == "H" else f"rank {rank}"
