"""`cardledger demo` without --url: it starts `cardledger up` itself (as `cardledger simulate` does), plays one
deal against the real processes (API, relay, projection workers), verifies it, and stops the stack."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from services.cli import main

pytestmark = pytest.mark.slow


def test_the_demo_starts_its_own_stack(
    migrated_database_url: str,
    redis_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    for name, value in {
        "DATABASE_URL": migrated_database_url,
        "REDIS_URL": redis_url,
        "CARDLEDGER_DATA_DIR": str(tmp_path),
        "CARDLEDGER_RATE_LIMITS": "on",  # the demo waits out short 429s as a newcomer's `make run` gives them
        "CARDLEDGER_PORT": "8123",  # where the developer's own `make run` would serve
    }.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("CARDLEDGER_MIGRATE_DATABASE_URL", raising=False)
    assert os.environ.get("CARDLEDGER_SIGNING_KEY"), "the session's signing key (tests/conftest.py)"

    code = main(["demo", "--game", "cha-kau-tsz", "--json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    facts = json.loads(captured.out)
    assert facts["ok"] is True and facts["stack_stopped"] is True
    assert facts["verification"]["ok"] is True and facts["ledger"]["balanced"] is True
    seed, commitment = facts["reveal"]["server_seed"], facts["before_the_deal"]["commitment"]
    assert hashlib.sha256(bytes.fromhex(seed)).hexdigest() == commitment
    assert "starting `cardledger up`" in captured.err and "stack up on http://127.0.0.1:" in captured.err
    # A stack of its own, in a temporary folder: nothing in the developer's data folder; the hint names their port.
    assert list(tmp_path.iterdir()) == []
    assert facts["your_stack_url"] == "http://127.0.0.1:8123"
