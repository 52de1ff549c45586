"""Commitment, shuffle key and the deterministic shuffle of docs/rules.md, "The shuffle"."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterator, Sequence
from functools import lru_cache

from domain.errors import RuleError

SHUFFLE_DOMAIN = b"cardledger-shuffle-v1"
MAX_CLIENT_SEED_BYTES = 64
_TWO_64 = 1 << 64


def commitment(server_seed: bytes) -> str:
    return hashlib.sha256(server_seed).hexdigest()


def shuffle_key(server_seed: bytes, table_id: str, deal_no: int, client_seeds: Sequence[str]) -> bytes:
    message = bytearray(SHUFFLE_DOMAIN)
    for value in (table_id, str(deal_no), *client_seeds):
        message += b"\x00" + value.encode("utf-8")
    return hmac.new(server_seed, bytes(message), hashlib.sha256).digest()


def random_words(key: bytes) -> Iterator[int]:
    """Consecutive 8-byte big-endian words of HMAC-SHA256(key, block counter)."""
    block = 0
    while True:
        digest = hmac.new(key, block.to_bytes(8, "big"), hashlib.sha256).digest()
        for offset in range(0, len(digest), 8):
            yield int.from_bytes(digest[offset : offset + 8], "big")
        block += 1


def uniform_below(words: Iterator[int], bound: int) -> int:
    limit = _TWO_64 - (_TWO_64 % bound)
    while True:
        word = next(words)
        if word < limit:
            return word % bound


def shuffle_cards(cards: Sequence[str], key: bytes) -> tuple[str, ...]:
    deck = list(cards)
    words = random_words(key)
    for i in range(len(deck) - 1, 0, -1):
        j = uniform_below(words, i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return tuple(deck)


@lru_cache(maxsize=256)
def _cached_deck(
    canonical: tuple[str, ...], server_seed: bytes, table_id: str, deal_no: int, client_seeds: tuple[str, ...]
) -> tuple[str, ...]:
    return shuffle_cards(canonical, shuffle_key(server_seed, table_id, deal_no, client_seeds))


def deal_deck(
    canonical: Sequence[str], server_seed: bytes, table_id: str, deal_no: int, client_seeds: Sequence[str]
) -> tuple[str, ...]:
    """The shuffled deck of one deal; index 0 is the top of the stock."""
    return _cached_deck(tuple(canonical), server_seed, table_id, deal_no, tuple(client_seeds))


def validate_client_seed(seed: str) -> None:
    size = len(seed.encode("utf-8"))
    if size > MAX_CLIENT_SEED_BYTES:
        raise RuleError(
            f"client seed is {size} bytes; at most {MAX_CLIENT_SEED_BYTES} bytes of UTF-8 are allowed",
            code="invalid_client_seed",
        )
