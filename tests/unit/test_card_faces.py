"""Each game's card faces (its legend) name every card type of its deck once, in the deck's canonical order."""

from __future__ import annotations

import pytest

from domain.cards import CHERKI_RED_STAMPED
from domain.game import Game
from domain.games import GAMES


@pytest.mark.parametrize("game", GAMES.values(), ids=lambda game: game.name)
def test_the_faces_are_the_decks_card_types_in_canonical_order(game: Game) -> None:
    types = tuple(dict.fromkeys(game.canonical_deck))
    assert tuple(face.code for face in game.card_faces) == types
    assert all(face.name and 0 <= face.suit <= 3 for face in game.card_faces)


def test_only_the_cherki_red_stamped_cards_are_marked() -> None:
    marked = {face.code for game in GAMES.values() for face in game.card_faces if face.red_stamped}
    assert marked == CHERKI_RED_STAMPED
