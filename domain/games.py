"""The registry of games by their API name."""

from __future__ import annotations

from typing import TYPE_CHECKING

from domain.errors import OptionError

if TYPE_CHECKING:
    from domain.game import Game

GAME_NAMES = ("cholek-tiga", "cha-kau-tsz")


def game_named(name: str) -> Game:
    if name == "cholek-tiga":
        from domain.cholek_tiga.rules import CHOLEK_TIGA

        return CHOLEK_TIGA
    if name == "cha-kau-tsz":
        from domain.cha_kau_tsz.rules import CHA_KAU_TSZ

        return CHA_KAU_TSZ
    raise OptionError(f"unknown game {name!r}; known games are {', '.join(GAME_NAMES)}", code="unknown_game")
