"""Classifying plays and enumerating legal leads (docs/rules.md, "Cha Kau Tsz")."""

from __future__ import annotations

import time
from collections import Counter
from itertools import product

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.cards import SAMPEN_DECK, SAMPEN_TYPES
from domain.cha_kau_tsz.plays import GROUP, SEQUENCE, SINGLE, Combo, classify, illegal_lead_reason, legal_leads

from .support import ref_kind


@pytest.mark.parametrize(
    ("cards", "combo"),
    [
        (["7S"], Combo(SINGLE, 7)),
        (["KC"], Combo(SINGLE, 0)),
        (["1S", "2S", "3S"], Combo(SEQUENCE, 3)),
        (["8D", "5D", "7D", "6D"], Combo(SEQUENCE, 8)),  # order within the body does not matter
        (["4D", "4S", "4H"], Combo(GROUP, 4)),
        (["2D", "2D", "2S", "2H"], Combo(GROUP, 2)),  # the seed text's second group
        (["9S", "9S", "9D", "9D", "9H", "9H"], Combo(GROUP, 9)),
        (["1S", "1D", "1H", "JC", "QC", "KC", "KC"], Combo(GROUP, 1)),  # the seed text's seven cards
        (["1S", "1D", "1H", "1H", "KC"], Combo(GROUP, 1)),
    ],
)
def test_legal_leads_are_classified(cards: list[str], combo: Combo) -> None:
    assert classify(cards) == combo


@pytest.mark.parametrize(
    ("cards", "reason"),
    [
        (["7S", "7S", "7H", "7H"], "7S 7S 7H 7H is not a legal lead: a group must include every suit; it lacks D"),
        (["4S", "4D"], "two cards are neither a single card nor a sequence or group"),
        (["1S", "1D", "KC"], "a group must include every suit; it lacks H"),
        (["2S", "2D", "2H", "KC"], "pictures may be added only to a group of aces"),
        (["1S", "2S", "3S", "JC"], "a sequence cannot include pictures"),
        (["1S", "2S", "2S", "3S"], "a sequence cannot repeat a rank (2S appears twice)"),
        (["1S", "2S", "4S"], "a sequence needs consecutive ranks; it lacks 3S"),
        (["8S", "9S", "1S"], "a sequence needs consecutive ranks; it lacks 2S 3S 4S 5S 6S 7S"),  # no wrap-around
        (["1S", "2D", "3H"], "neither a sequence (one suit, consecutive ranks) nor a group (one rank, every suit)"),
        (["JC", "QC", "KC"], "pictures alone form neither a sequence nor a group"),
    ],
)
def test_illegal_leads_are_explained(cards: list[str], reason: str) -> None:
    assert classify(cards) is None
    assert reason in illegal_lead_reason(cards)


def test_group_that_lacks_a_suit_is_rejected_as_a_lead_through_the_table() -> None:
    from domain.errors import RuleError

    from .support import Table

    table = Table(4)
    table.rig([["7S", "7S", "7H", "7H"], ["1S"] * 2 + ["1D"] * 2, ["2S"] * 2 + ["2D"] * 2, ["3S"] * 2 + ["3D"] * 2], 0)
    with pytest.raises(RuleError) as error:
        table.play(0, "7S", "7S", "7H", "7H")
    assert error.value.code == "illegal_lead"
    assert error.value.message == "7S 7S 7H 7H is not a legal lead: a group must include every suit; it lacks D"


def brute_force_leads(hand: list[str]) -> set[tuple[str, ...]]:
    counts = Counter(hand)
    types = sorted(counts, key=SAMPEN_TYPES.index)
    leads = set()
    for taken in product(*(range(counts[card] + 1) for card in types)):
        cards = tuple(card for card, k in zip(types, taken, strict=True) for _ in range(k))
        if cards and ref_kind(cards) is not None:
            leads.add(cards)
    return leads


hands = st.lists(st.sampled_from(SAMPEN_TYPES), min_size=1, max_size=15).filter(
    lambda cards: max(Counter(cards).values()) <= 2
)


@settings(max_examples=150, deadline=None)
@given(hands)
def test_legal_leads_are_exactly_the_distinct_legal_multisets(hand: list[str]) -> None:
    leads = legal_leads(hand)
    assert len(leads) == len(set(leads)), "no duplicates"
    assert all(lead == tuple(sorted(lead, key=SAMPEN_TYPES.index)) for lead in leads), "deck order"
    assert set(leads) == brute_force_leads(hand)
    assert all(classify(lead) is not None for lead in leads)


def test_enumeration_of_a_hand_full_of_copies_is_fast() -> None:
    # 1S 1S 1D 1D 1H 1H JC JC QC QC KC KC 2S 2D 2H: 8 ace groups x 27 picture sets, plus the rest.
    hand = ["1S", "1S", "1D", "1D", "1H", "1H", "JC", "JC", "QC", "QC", "KC", "KC", "2S", "2D", "2H"]
    started = time.perf_counter()
    for _ in range(100):
        leads = legal_leads(hand)
    elapsed = (time.perf_counter() - started) / 100
    assert len(leads) == len(set(leads)) == len(brute_force_leads(hand))
    assert len([lead for lead in leads if lead[0] == "1S" and len(lead) > 1]) == 8 * 27
    assert elapsed < 0.005


def test_every_type_of_the_deck_is_a_single() -> None:
    assert [lead[0] for lead in legal_leads(list(SAMPEN_DECK))[:30]] == list(SAMPEN_TYPES)
