"""Card codes and the canonical (unshuffled) order of both decks (RULES.md section 1)."""

from __future__ import annotations

CHERKI_TYPES: tuple[str, ...] = (
    *(f"{rank}C" for rank in range(1, 10)),
    *(f"{rank}S" for rank in range(1, 10)),
    *(f"{rank}M" for rank in range(1, 10)),
    "OT",
    "WF",
    "RF",
)
CHERKI_COPIES = 4
CHERKI_DECK: tuple[str, ...] = CHERKI_TYPES * CHERKI_COPIES
CHERKI_RED_STAMPED: frozenset[str] = frozenset({"9S", "RF", "OT"})
CHERKI_HONOURS: frozenset[str] = frozenset({"OT", "WF", "RF"})

SAMPEN_SUITS: tuple[str, ...] = ("S", "D", "H")
SAMPEN_PICTURES: tuple[str, ...] = ("JC", "QC", "KC")
SAMPEN_TYPES: tuple[str, ...] = (
    *(f"{rank}{suit}" for suit in SAMPEN_SUITS for rank in range(1, 10)),
    *SAMPEN_PICTURES,
)
SAMPEN_COPIES = 2
SAMPEN_DECK: tuple[str, ...] = SAMPEN_TYPES * SAMPEN_COPIES


def cherki_rank(card: str, honours_rank: str = "own") -> str:
    """Capture rank of a Cherki card: its digit, or "H" for honours ("1" with honours_rank="ace")."""
    if card in CHERKI_HONOURS:
        return "1" if honours_rank == "ace" else "H"
    return card[0]
