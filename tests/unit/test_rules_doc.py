"""docs/rules.md against the code: its card tables are the canonical orders, its shuffle example is what
`cardledger deck` prints, and its option defaults are the games' defaults."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from domain.cards import CHERKI_DECK, CHERKI_RED_STAMPED, CHERKI_TYPES, SAMPEN_DECK, SAMPEN_TYPES
from domain.cha_kau_tsz.options import DEFAULT_CHIP_VALUE_CENTS, DEFAULT_CHIP_VALUES, DEFAULT_TARGETS
from domain.cholek_tiga.options import DEFAULT_OPTIONS
from domain.shuffle import commitment, deal_deck
from domain.table import DEFAULT_TURN_SECONDS, MAX_TURN_SECONDS, MIN_TURN_SECONDS
from services.cli import main

DOC = (Path(__file__).resolve().parents[2] / "docs" / "rules.md").read_text(encoding="utf-8")


def _table_codes(first_column: tuple[str, ...]) -> list[str]:
    """The codes of the card table whose rows start with `first_column`, in the order written."""
    codes: list[str] = []
    for name in first_column:
        row = re.search(rf"^\| {name} \| (.+?) \|", DOC, re.MULTILINE)
        assert row is not None, name
        codes += re.findall(r"`([0-9A-Z]{2})`", row.group(1)) or row.group(1).strip("`").split()
    return codes


def test_the_card_tables_are_the_canonical_orders() -> None:
    cherki = _table_codes(("Coins", "Strings", "Myriads", "Honours"))
    assert cherki == list(CHERKI_TYPES)
    assert _table_codes(("Spades", "Diamonds", "Hearts", "Pictures")) == list(SAMPEN_TYPES)
    assert (len(CHERKI_DECK), len(SAMPEN_DECK)) == (120, 60)
    assert "`9S`, `OT` and `RF`" in DOC
    assert sorted(CHERKI_RED_STAMPED) == ["9S", "OT", "RF"]


def test_the_shuffle_example(capsys: pytest.CaptureFixture[str]) -> None:
    command = re.search(r"```sh\n(cardledger deck .+?)\n```", DOC, re.DOTALL)
    assert command is not None
    args = command.group(1).replace("\\\n", " ").split()[1:]
    args = ["" if arg == '""' else arg for arg in args]
    assert main(args) == 0
    printed = json.loads(capsys.readouterr().out)
    shown = re.search(r"begins\n\n    (\[.+?), \.\.\.", DOC)
    assert shown is not None
    assert printed[: len(json.loads(shown.group(1) + "]"))] == json.loads(shown.group(1) + "]")
    seed = bytes.fromhex(args[args.index("--seed") + 1])
    assert f"`{commitment(seed)}`" in DOC
    assert printed == list(deal_deck(CHERKI_DECK, seed, args[args.index("--table-id") + 1], 1, ["alice-luck", ""]))


def test_the_option_defaults() -> None:
    def row(game: str, option: str) -> str:
        found = re.search(rf"^\| {game} \| `{option}` \| (.+?) \| (.+?) \|$", DOC, re.MULTILINE)
        assert found is not None, option
        return found.group(1)

    assert row("both", "turn_seconds") == f"`{DEFAULT_TURN_SECONDS}`"
    assert f"from {MIN_TURN_SECONDS} to {MAX_TURN_SECONDS}" in DOC
    for option, value in DEFAULT_OPTIONS.items():
        assert row("Cholek Tiga", option) == f"`{json.dumps(value)}`"
    assert row("Cha Kau Tsz", "chip_value_cents") == f"`{DEFAULT_CHIP_VALUE_CENTS}`"
    assert row("Cha Kau Tsz", "chip_values") == f"`{json.dumps(dict(DEFAULT_CHIP_VALUES))}`"
    targets = ", ".join(f"{target} with {seats}" for seats, target in sorted(DEFAULT_TARGETS.items()))
    assert row("Cha Kau Tsz", "pool_target_tricks") == targets.replace("with 2,", "with 2 players,")
