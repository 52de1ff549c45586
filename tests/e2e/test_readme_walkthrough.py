"""The README's first session with curl, run as written against a running stack with the rate limits as shipped:
it finishes a deal, so every later step shows real figures (a ledger, a settlement, a dispute report of an ended
deal, a verification that holds). Only the address changes, and the live streams at its end are left out (they
never end by themselves)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.conftest import running_stack

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
WALKTHROUGH_AUDITOR = "walkthrough-auditor-secret-0123456789"


def walkthrough() -> str:
    text = README.read_text(encoding="utf-8")
    section = text[text.index("## A first session with curl") :]
    match = re.search(r"```bash\n(.*?)\n```", section, re.S)
    assert match is not None, "the README's curl walk-through is gone"
    script = match.group(1)
    assert "API=http://127.0.0.1:8000" in script and "# Live events" in script
    return script[: script.index("# Live events")]


@pytest.fixture(scope="module")
def readme_stack(migrated_database_url: str, redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    yield from running_stack(migrated_database_url, redis_url, tmp_path_factory, "on", WALKTHROUGH_AUDITOR)


def test_the_readme_walkthrough_finishes_a_deal_and_every_later_step_shows_figures(
    readme_stack: str, tmp_path: Path
) -> None:
    if shutil.which("jq") is None or shutil.which("curl") is None:
        pytest.skip("the walk-through needs curl and jq: apt-get install curl jq")
    (tmp_path / ".venv").symlink_to(ROOT / ".venv")  # the README runs from the project's folder
    script = walkthrough().replace("API=http://127.0.0.1:8000", f"API={readme_stack}", 1)
    script += '\necho "TABLE=$T"\n'
    run = subprocess.run(
        ["bash", "-c", script], cwd=tmp_path, env=dict(os.environ), capture_output=True, text=True, timeout=600
    )
    out = run.stdout
    assert "TABLE=" in out, run.stderr[-3000:]
    assert '"status": "between_deals"' in out, out[-3000:]
    assert "receipt verified: version" in out
    assert '"server_seed": null' not in out  # the deal record of an ended deal reveals its seed
    assert re.search(r'"balanced": true', out), out[-3000:]
    csv_lines = [line for line in out.splitlines() if line.startswith(("player_id,", "TOTAL"))]
    assert csv_lines, out[-3000:]
    rows = [line.split(",") for line in out.splitlines() if re.match(r"^[0-9a-f-]{36},", line)]
    assert rows and all(int(row[8]) >= 1 for row in rows), rows  # deals: the ended deal is in Alice's settlement
    dispute = (tmp_path / "dispute.html").read_text(encoding="utf-8")
    assert "The deal is still being played" not in dispute and "deal 1" in dispute.lower()
    assert "OK: every check holds" in out, out[-3000:]
    assert "keys: pinned" in out
