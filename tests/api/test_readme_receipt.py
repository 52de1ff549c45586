"""The README's walk-through checks a receipt by hand with a few lines of Python: those very lines, run against a
live server, accept the service's receipt and refuse a forged one."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask

from services.cli import main
from tests.api.conftest import Api, seated_table
from tests.api.test_remote_verify import _serve

README = Path(__file__).resolve().parents[2] / "README.md"


def readme_snippet() -> str:
    match = re.search(
        r'\.venv/bin/python - trusted-keys.json "\$RECEIPT" <<\'EOF\'\n(.*?)\nEOF\n', README.read_text(), re.S
    )
    assert match is not None, "the README's receipt check is gone"
    return match.group(1)


@pytest.fixture
def base_url(app: Flask) -> Iterator[str]:
    yield from _serve(app)


def run_snippet(pinned: Path, receipt: dict[str, object]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-", str(pinned), json.dumps(receipt)],
        input=readme_snippet(),
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_the_readme_checks_a_receipt_by_hand(
    api: Api, base_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, tokens = seated_table(api, "cholek-tiga", 2)
    opened = api.client.post(
        "/v1/tables", json={"game": "cha-kau-tsz", "seats": 2}, headers={"Authorization": f"Bearer {tokens[0]}"}
    )
    receipt = opened.get_json()["receipt"]
    assert "keys export --url $API > trusted-keys.json" in README.read_text()
    assert main(["keys", "export", "--url", base_url]) == 0
    pinned = tmp_path / "trusted-keys.json"
    pinned.write_text(capsys.readouterr().out)
    done = run_snippet(pinned, receipt)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"receipt verified: version {receipt['version']} hash {receipt['hash']}"
    forged = {**receipt, "hash": "0" * 64}
    refused = run_snippet(pinned, forged)
    assert refused.returncode != 0 and "InvalidSignature" in refused.stderr
