"""Card codes and the canonical (unshuffled) order of both decks (docs/rules.md, "Cards and codes")."""

from __future__ import annotations

from typing import NamedTuple


class CardFace(NamedTuple):
    """One card type as a legend shows it: its code, its name, its suit (0..2, 3 for honours and pictures)."""

    code: str
    name: str
    suit: int
    red_stamped: bool


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


CHERKI_SUIT_NAMES: tuple[tuple[str, str], ...] = (("C", "Coins"), ("S", "Strings"), ("M", "Myriads"))
CHERKI_FACES: tuple[CardFace, ...] = (
    *(
        CardFace(f"{rank}{code}", f"{rank} of {name}", suit, f"{rank}{code}" in CHERKI_RED_STAMPED)
        for suit, (code, name) in enumerate(CHERKI_SUIT_NAMES)
        for rank in range(1, 10)
    ),
    *(
        CardFace(code, f"{name} (honour)", 3, code in CHERKI_RED_STAMPED)
        for code, name in (("OT", "Old Thousand"), ("WF", "White Flower"), ("RF", "Red Flower"))
    ),
)
SAMPEN_SUIT_NAMES: tuple[str, ...] = ("Spades", "Diamonds", "Hearts")
SAMPEN_FACES: tuple[CardFace, ...] = (
    *(
        CardFace(f"{rank}{code}", f"{rank} of {name}", suit, False)
        for suit, (code, name) in enumerate(zip(SAMPEN_SUITS, SAMPEN_SUIT_NAMES, strict=True))
        for rank in range(1, 10)
    ),
    *(CardFace(code, f"Picture {code[0]} (no rank, no suit)", 3, False) for code in SAMPEN_PICTURES),
)


def cherki_rank(card: str, honours_rank: str = "own") -> str:
    """Capture rank of a Cherki card: its digit, or "H" for honours ("1" with honours_rank="ace")."""
    if card in CHERKI_HONOURS:
        return "1" if honours_rank == "ace" else "H"
    return card[0]
