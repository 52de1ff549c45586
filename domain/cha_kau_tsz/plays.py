"""What a set of Sampen cards is as a play, and which leads a hand allows (docs/rules.md, "Cha Kau Tsz").

A lead is a single card (number or picture); a sequence (3 or more number
cards of one suit, consecutive ranks, no repeated rank, no pictures); or a
group (3 or more number cards of one rank with at least one card of every
suit; a group of aces may also carry any number of pictures). Cards are
compared as codes; copies of a type are identical.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from itertools import product
from typing import NamedTuple

from domain.cards import SAMPEN_PICTURES, SAMPEN_SUITS, SAMPEN_TYPES

SINGLE, SEQUENCE, GROUP = "single", "sequence", "group"

ORDER: dict[str, int] = {code: index for index, code in enumerate(SAMPEN_TYPES)}
PICTURES: frozenset[str] = frozenset(SAMPEN_PICTURES)
RANK: dict[str, int] = {code: int(code[0]) for code in SAMPEN_TYPES if code not in PICTURES}
SUIT: dict[str, str] = {code: code[1] for code in SAMPEN_TYPES if code not in PICTURES}
CODE: dict[tuple[int, str], str] = {(RANK[code], SUIT[code]): code for code in RANK}


class Combo(NamedTuple):
    """A play's kind and its strength: a single's rank (0 for a picture), a sequence's top, a group's rank."""

    kind: str
    key: int


def in_deck_order(cards: Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted(cards, key=ORDER.__getitem__))


def classify(cards: Sequence[str]) -> Combo | None:
    """The combination `cards` (known card codes) form, or None when they form none."""
    size = len(cards)
    if size == 1:
        return Combo(SINGLE, RANK.get(cards[0], 0))
    if size < 3:
        return None
    numbers = [card for card in cards if card not in PICTURES]
    if len(numbers) < 3:
        return None
    ranks = {RANK[card] for card in numbers}
    suits = {SUIT[card] for card in numbers}
    if len(ranks) == 1:
        rank = next(iter(ranks))
        if len(suits) == 3 and (len(numbers) == size or rank == 1):
            return Combo(GROUP, rank)
        return None
    if len(numbers) == size and len(suits) == 1 and len(ranks) == size and max(ranks) - min(ranks) == size - 1:
        return Combo(SEQUENCE, max(ranks))
    return None


def illegal_lead_reason(cards: Sequence[str]) -> str:
    """Why `cards` (known card codes that `classify` rejects) are not a legal lead."""
    text = " ".join(cards)
    if not cards:
        return "a lead needs at least one card"
    prefix = f"{text} is not a legal lead: "
    if len(cards) == 2:
        return prefix + "two cards are neither a single card nor a sequence or group (those need 3 or more cards)"
    pictures = [card for card in cards if card in PICTURES]
    numbers = [card for card in cards if card not in PICTURES]
    if not numbers:
        return prefix + "pictures alone form neither a sequence nor a group"
    ranks = sorted({RANK[card] for card in numbers})
    suits = {SUIT[card] for card in numbers}
    if len(ranks) == 1:
        if pictures and ranks[0] != 1:
            return prefix + "pictures may be added only to a group of aces"
        missing = [suit for suit in SAMPEN_SUITS if suit not in suits]
        return prefix + f"a group must include every suit; it lacks {' and '.join(missing)}"
    if len(suits) == 1:
        if pictures:
            return prefix + "a sequence cannot include pictures"
        repeated = sorted((card for card, count in Counter(numbers).items() if count > 1), key=ORDER.__getitem__)
        if repeated:
            return prefix + f"a sequence cannot repeat a rank ({repeated[0]} appears twice)"
        suit = next(iter(suits))
        gaps = [CODE[rank, suit] for rank in range(ranks[0], ranks[-1] + 1) if rank not in ranks]
        return prefix + f"a sequence needs consecutive ranks; it lacks {' '.join(gaps)}"
    return prefix + (
        "the cards are neither a sequence (one suit, consecutive ranks) nor a group (one rank, every suit)"
    )


def legal_leads(hand: Sequence[str]) -> list[tuple[str, ...]]:
    """Every distinct lead (as a multiset of codes, in deck order) that `hand` allows.

    Singles in deck order, then sequences by suit and top card, then groups by
    rank; a group of aces is listed with every sub-multiset of the pictures held.
    """
    counts: dict[str, int] = {}
    for card in hand:
        counts[card] = counts.get(card, 0) + 1
    leads: list[tuple[str, ...]] = [(card,) for card in sorted(counts, key=ORDER.__getitem__)]
    for codes in _SUIT_CODES:
        run = 0  # present consecutive ranks ending at the current one
        for top, code in enumerate(codes):
            if code not in counts:
                run = 0
                continue
            run += 1
            for length in range(3, run + 1):
                leads.append(codes[top + 1 - length : top + 1])
    for rank, codes in enumerate(_RANK_CODES, start=1):
        spade, diamond, heart = codes
        if spade not in counts or diamond not in counts or heart not in counts:
            continue
        held = [counts[spade], counts[diamond], counts[heart]]
        if held == [1, 1, 1]:
            groups = [codes]
        else:
            groups = [_repeat(codes, taken) for taken in product(*(range(1, count + 1) for count in held))]
        if rank == 1:
            pictures = [counts.get(picture, 0) for picture in SAMPEN_PICTURES]
            extras = [_repeat(SAMPEN_PICTURES, taken) for taken in product(*(range(count + 1) for count in pictures))]
            leads.extend(group + extra for group in groups for extra in extras)
        else:
            leads.extend(groups)
    return leads


_SUIT_CODES: tuple[tuple[str, ...], ...] = tuple(
    tuple(CODE[rank, suit] for rank in range(1, 10)) for suit in SAMPEN_SUITS
)
_RANK_CODES: tuple[tuple[str, ...], ...] = tuple(
    tuple(CODE[rank, suit] for suit in SAMPEN_SUITS) for rank in range(1, 10)
)


def _repeat(codes: Sequence[str], counts: Sequence[int]) -> tuple[str, ...]:
    return tuple(code for code, count in zip(codes, counts, strict=True) for _ in range(count))
