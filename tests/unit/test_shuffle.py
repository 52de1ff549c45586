import json
from pathlib import Path

import pytest

from domain.cards import CHERKI_DECK, SAMPEN_DECK
from domain.errors import RuleError
from domain.shuffle import commitment, deal_deck, shuffle_key, uniform_below, validate_client_seed

VECTORS = json.loads((Path(__file__).parent / "vectors" / "shuffle.json").read_text())["cases"]
CANONICAL = {"cholek-tiga": CHERKI_DECK, "cha-kau-tsz": SAMPEN_DECK}


@pytest.mark.parametrize("case", VECTORS, ids=lambda c: f"{c['game']}-{c['table_id']}-{c['deal_no']}")
def test_conformance_vectors(case: dict) -> None:
    seed = bytes.fromhex(case["server_seed_hex"])
    assert commitment(seed) == case["commitment"]
    assert shuffle_key(seed, case["table_id"], case["deal_no"], case["client_seeds"]).hex() == case["shuffle_key_hex"]
    deck = deal_deck(CANONICAL[case["game"]], seed, case["table_id"], case["deal_no"], case["client_seeds"])
    assert list(deck) == case["deck"]


def test_decks_have_the_documented_sizes_and_copies() -> None:
    assert len(CHERKI_DECK) == 120 and all(CHERKI_DECK.count(c) == 4 for c in set(CHERKI_DECK))
    assert len(SAMPEN_DECK) == 60 and all(SAMPEN_DECK.count(c) == 2 for c in set(SAMPEN_DECK))
    assert CHERKI_DECK[:3] == ("1C", "2C", "3C") and CHERKI_DECK[27:30] == ("OT", "WF", "RF")
    assert SAMPEN_DECK[27:30] == ("JC", "QC", "KC")


def test_a_different_client_seed_changes_the_deck() -> None:
    seed = bytes(32)
    assert deal_deck(CHERKI_DECK, seed, "t", 1, ["", ""]) != deal_deck(CHERKI_DECK, seed, "t", 1, ["a", ""])


def test_uniform_below_rejects_words_in_the_biased_tail() -> None:
    bound = 3
    limit = 2**64 - (2**64 % bound)
    words = iter([limit, limit + 1, 7])
    assert uniform_below(words, bound) == 7 % bound


def test_client_seed_longer_than_64_bytes_is_refused() -> None:
    validate_client_seed("x" * 64)
    validate_client_seed("红" * 21)  # 63 bytes
    with pytest.raises(RuleError, match="65 bytes"):
        validate_client_seed("x" * 65)
