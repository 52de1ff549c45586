"""The decks of the deals a process plays (`domain.decks`): shuffled once per deal while the deal's table is among
the tables the process keeps, whatever the number of tables in play."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from domain import decks
from domain.games import game_named
from domain.shuffle import deal_deck
from infra.config import CacheSizes
from services.bootstrap import in_memory_application

SEED = bytes(range(32))


@pytest.fixture(autouse=True)
def default_bound() -> Iterator[None]:
    decks.keep_decks(decks.DEFAULT_DECKS)
    yield
    decks.keep_decks(decks.DEFAULT_DECKS)


def play_round(tables: int, game: str = "cholek-tiga") -> int:
    """One play at each of `tables` tables in turn (their deal 1, the test's own tables); the decks shuffled
    meanwhile."""
    before = decks.shuffles
    for n in range(tables):
        decks.deck_of(game, SEED, f"{os.environ['PYTEST_CURRENT_TEST']}-{n}", 1, ("north", "south"))
    return decks.shuffles - before


def test_a_deck_is_the_shuffle_of_its_deal() -> None:
    for game in ("cholek-tiga", "cha-kau-tsz"):
        expected = deal_deck(game_named(game).canonical_deck, SEED, "table-1", 3, ("a", "b"))
        assert decks.deck_of(game, SEED, "table-1", 3, ("a", "b")) == expected


def test_tables_in_play_within_the_bound_are_shuffled_once_per_deal() -> None:
    decks.keep_decks(600)
    assert play_round(500) == 500
    assert play_round(500) == 0
    assert play_round(500) == 0


def test_round_robin_over_more_tables_than_the_bound_shuffles_every_play() -> None:
    decks.keep_decks(100)
    assert play_round(101) == 101
    assert play_round(101) == 101  # why the bound follows the process's tables
    assert decks.kept_decks() == 100


def test_the_bound_shrinks_what_is_kept_and_is_at_least_one() -> None:
    play_round(50)
    decks.keep_decks(10)
    assert decks.kept_decks() == 10
    with pytest.raises(ValueError):
        decks.keep_decks(0)


def test_the_application_keeps_the_decks_of_the_tables_it_keeps() -> None:
    in_memory_application()
    assert play_round(CacheSizes().tables) == CacheSizes().tables
    assert play_round(CacheSizes().tables) == 0
