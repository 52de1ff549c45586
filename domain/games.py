"""The registry of games by their API name."""

from __future__ import annotations

from domain.cha_kau_tsz.rules import CHA_KAU_TSZ
from domain.cholek_tiga.rules import CHOLEK_TIGA
from domain.errors import OptionError
from domain.game import Game

GAMES: dict[str, Game] = {CHOLEK_TIGA.name: CHOLEK_TIGA, CHA_KAU_TSZ.name: CHA_KAU_TSZ}
GAME_NAMES = tuple(GAMES)


def game_named(name: str) -> Game:
    try:
        return GAMES[name]
    except KeyError:
        raise OptionError(
            f"unknown game {name!r}; known games are {', '.join(GAME_NAMES)}", code="unknown_game"
        ) from None
