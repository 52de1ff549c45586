"""The shuffled decks of the deals this process plays: each deal's deck is shuffled once (an HMAC-SHA256 stream
per deal) and kept for the deal's later plays, in a bounded least-recently-used map.

The bound follows the process's cache of table states (`keep_decks`, called where the application is built), so
a process that keeps the states of N tables in play keeps their N decks too: a fixed bound below the tables in
play would evict each table's deck just before its next play (round-robin access defeats an LRU) and shuffle it
again on every play.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from domain.games import game_named
from domain.shuffle import deal_deck

DEFAULT_DECKS = 256  # a process that never calls `keep_decks` (scripts, tests of the domain)

DeckKey = tuple[str, bytes, str, int, tuple[str, ...]]  # game, server seed, table, deal number, client seeds

_decks: OrderedDict[DeckKey, tuple[str, ...]] = OrderedDict()
_size = DEFAULT_DECKS
_lock = threading.Lock()
shuffles = 0  # decks this process has shuffled (the misses of the map), for tests and benchmarks


def keep_decks(size: int) -> None:
    """Keep at most `size` decks (at least 1) from now on."""
    global _size
    if size < 1:
        raise ValueError(f"the cache of decks holds at least 1 deck, got {size}")
    with _lock:
        _size = size
        while len(_decks) > _size:
            _decks.popitem(last=False)


def kept_decks() -> int:
    return len(_decks)


def deck_of(game: str, seed: bytes, table_id: str, deal_no: int, client_seeds: tuple[str, ...]) -> tuple[str, ...]:
    """The shuffled deck of one deal (index 0 is the top of the stock), as `domain.shuffle.deal_deck` gives it."""
    key = (game, seed, table_id, deal_no, client_seeds)
    with _lock:
        deck = _decks.get(key)
        if deck is not None:
            _decks.move_to_end(key)
            return deck
    deck = deal_deck(game_named(game).canonical_deck, seed, table_id, deal_no, client_seeds)
    global shuffles
    with _lock:
        shuffles += 1
        _decks[key] = deck
        _decks.move_to_end(key)
        while len(_decks) > _size:
            _decks.popitem(last=False)
    return deck
