"""Where game knowledge may live: a game sees its deal context, not the table; only domain/ names a game."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from domain.cha_kau_tsz.rules import CHA_KAU_TSZ
from domain.cholek_tiga.rules import CHOLEK_TIGA
from domain.game import Game
from domain.games import GAME_NAMES, GAMES
from tests.unit.source_trees import parse

ROOT = Path(__file__).resolve().parents[2]

# Clients of the public REST API, which know the games by the names the API publishes, as any client does.
API_CLIENTS = ("services/cli/demo.py", "services/cli/simulate/")
# Sample requests and answers shown in the OpenAPI document: data, as a client would send or receive it.
EXAMPLE_DATA = ("services/api/spec/examples.py",)


def imported_modules(path: Path) -> set[str]:
    """Every module `path` imports, at any depth (inside functions and TYPE_CHECKING blocks too)."""
    modules: set[str] = set()
    for node in ast.walk(parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module is not None:
            modules.add(node.module)
            modules.update(f"{node.module}.{alias.name}" for alias in node.names)
    return modules


def game_modules() -> list[Path]:
    return [
        ROOT / "domain" / "game.py",
        *sorted((ROOT / "domain" / "cholek_tiga").glob("*.py")),
        *sorted((ROOT / "domain" / "cha_kau_tsz").glob("*.py")),
    ]


@pytest.mark.parametrize("path", game_modules(), ids=lambda path: str(path.relative_to(ROOT)))
def test_a_game_does_not_import_the_table(path: Path) -> None:
    imports = imported_modules(path)
    assert not {name for name in imports if name == "domain.table" or name.startswith("domain.table.")}, (
        f"{path.relative_to(ROOT)} imports domain.table; a game reads its table through domain.game.DealContext"
    )


def game_name_literals(path: Path) -> list[int]:
    """Lines of `path` holding a string constant that is a game's name."""
    tree = parse(path.read_text(), str(path))
    return sorted(
        {
            node.lineno
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in GAME_NAMES
        }
    )


def test_no_code_outside_the_domain_names_a_game() -> None:
    found = []
    for folder in ("infra", "services"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            if relative.startswith(API_CLIENTS + EXAMPLE_DATA):
                continue
            found += [f"{relative}:{line}" for line in game_name_literals(path)]
    assert not found, f"game names outside domain/ (ask the Game for the fact instead): {found}"


def test_the_name_check_finds_a_name(tmp_path: Path) -> None:
    source = tmp_path / "module.py"
    source.write_text('def pooled(game: str) -> bool:\n    return game == "cha-kau-tsz"\n')
    assert game_name_literals(source) == [2]


@pytest.mark.parametrize(
    ("game", "has_pool", "counts_tricks", "money_unit"),
    [(CHOLEK_TIGA, False, False, "cents"), (CHA_KAU_TSZ, True, True, "points")],
    ids=[CHOLEK_TIGA.name, CHA_KAU_TSZ.name],
)
def test_game_facts_are_attributes(game: Game, has_pool: bool, counts_tricks: bool, money_unit: str) -> None:
    assert GAMES[game.name] is game
    assert (game.has_pool, game.counts_tricks, game.money_unit) == (has_pool, counts_tricks, money_unit)
