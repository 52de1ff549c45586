"""examples/bot.py plays a whole deal at the running stack through the generated client, as its docstring says."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.client.conftest import CLIENT_PATH

pytestmark = pytest.mark.slow

BOT = Path(__file__).resolve().parents[2] / "examples" / "bot.py"


@pytest.mark.parametrize(("game", "seats"), [("cholek-tiga", 2), ("cha-kau-tsz", 3)])
def test_the_example_bot_plays_a_deal_within_the_rate_limits_as_shipped(
    shipped_stack: str, game: str, seats: int
) -> None:
    """The bot waits as Retry-After says (it once failed every Cholek Tiga deal with 429 rate_limited)."""
    env = {**os.environ, "PYTHONPATH": str(CLIENT_PATH)}  # as `pip install ./clients/python` would provide
    command = [sys.executable, str(BOT), "--url", shipped_stack, "--game", game, "--seats", str(seats), "--seed", "21"]
    run = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600, check=False)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "the deal ended after" in run.stdout
    assert "the service's verification: ok" in run.stdout
    assert "deal_ended 1" in run.stdout
    assert re.search(r"^ledger: [1-9]\d* lines, balanced$", run.stdout, re.M), run.stdout


def test_the_bot_says_what_went_wrong_in_one_line(stack: str) -> None:
    env = {**os.environ, "PYTHONPATH": str(CLIENT_PATH)}
    command = [sys.executable, str(BOT), "--url", stack, "--game", "cholek-tiga", "--seats", "4"]
    run = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120, check=False)
    assert run.returncode == 1
    assert run.stderr.strip().startswith("bot: 422 validation_error"), run.stderr
    assert len(run.stderr.strip().splitlines()) == 1
