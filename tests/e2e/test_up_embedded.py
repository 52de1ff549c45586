"""`cardledger up` on a machine with no servers configured: embedded PostgreSQL and Redis."""

from __future__ import annotations

import secrets
import stat
import urllib.request
from pathlib import Path

import pytest

from infra.signing import KEY_FILE_NAME, ReceiptSigner, parse_signing_key
from services.cli.simulate.stack import embedded_stack
from tests.e2e.stack import http
from tests.faults.servers import free_port

pytestmark = pytest.mark.slow


def children_environments(pid: int) -> dict[str, list[dict[str, str]]]:
    """The environment of each process `up` started, by kind: the API (gunicorn), the relay, the workers."""
    import psutil

    found: dict[str, list[dict[str, str]]] = {}
    for child in psutil.Process(pid).children(recursive=True):
        command = " ".join(child.cmdline())
        kind = next((k for k, mark in KINDS.items() if mark in command), None)
        if kind is not None:
            found.setdefault(kind, []).append(child.environ())
    return found


KINDS = {"api": "gunicorn", "relay": "services.cli relay", "worker": "services.cli worker"}


def test_up_with_no_urls_serves_readyz_and_stops_cleanly_on_sigterm(tmp_path: Path) -> None:
    env = {
        "DATABASE_URL": None,
        "REDIS_URL": None,
        "CARDLEDGER_DATA_DIR": str(tmp_path / "data"),
        "CARDLEDGER_WORKERS": "1",
        "CARDLEDGER_API_WORKERS": "1",
        "CARDLEDGER_AUDITOR_TOKEN": "e2e-auditor-token-" + secrets.token_hex(16),
        "CARDLEDGER_SIGNING_KEY": None,  # the embedded default makes its own key file
        "CARDLEDGER_API_METRICS_PORT": str(metrics_port := free_port()),
    }
    log = tmp_path / "up.log"
    with embedded_stack(env, log, timeout=120) as stack:
        base_url = stack.base_url
        status, _, body = http("GET", f"{base_url}/readyz")
        assert status == 200, body
        status, _, player = http("POST", f"{base_url}/v1/players", {"name": "embedded"})
        assert status == 201, player
        status, _, table = http("POST", f"{base_url}/v1/tables", {"game": "cholek-tiga", "seats": 2}, player["token"])
        assert status == 201, table
        environments = children_environments(stack.process.pid)
        # The metrics are the operator's: on a port of their own, not on the public one.
        status, _, _ = http("GET", f"{base_url}/metrics")
        assert status == 404
        with urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=10) as answer:
            scraped = answer.read().decode()
        assert 'cardledger_http_requests_total{method="POST",route="/v1/tables",status="201"}' in scraped
    # Each child holds the secrets it uses and no other (/proc/<pid>/environ is readable by its user).
    assert set(environments) == {"api", "relay", "worker"}, sorted(environments)
    for name, seen in environments.items():
        for environ in seen:
            assert "CARDLEDGER_MIGRATE_DATABASE_URL" not in environ, name
            holds = {v for v in ("CARDLEDGER_SIGNING_KEY", "CARDLEDGER_AUDITOR_TOKEN") if v in environ}
            assert holds == ({"CARDLEDGER_SIGNING_KEY", "CARDLEDGER_AUDITOR_TOKEN"} if name == "api" else set()), name
    assert stack.process.returncode == 0, log.read_text()[-3000:]
    key_file = tmp_path / "data" / KEY_FILE_NAME
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    signer = ReceiptSigner.from_seed(parse_signing_key(key_file.read_text()))
    assert table["receipt"]["key_id"] == signer.key_id
    written = key_file.read_text()

    # The data survives a restart in the same data folder.
    with embedded_stack(env, log, timeout=120) as stack:
        status, _, body = http("GET", f"{stack.base_url}/v1/tables", token=player["token"])
        assert status == 200, body
        # ... and so does the signing key: one key listed, the key file's.
        status, _, keys = http("GET", f"{stack.base_url}/v1/keys")
        assert [key["key_id"] for key in keys["keys"]] == [signer.key_id], keys
    assert key_file.read_text() == written
