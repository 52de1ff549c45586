"""A backup taken while tables play restores into a fresh database that passes `cardledger verify --all`, and every
receipt issued before the backup began verifies against it (docs/operations.md, "Backups")."""

from __future__ import annotations

import importlib.util
import os
import random
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import psycopg
import pytest
from flask import Flask
from psycopg.rows import dict_row

from infra.receipts import OK, parse_receipts
from services.app.audit.receipts import check_table_receipts
from tests.api.conftest import Api, play_deal, seated_table
from tests.conftest import fresh_database

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]


def tool(name: str, server_url: str) -> str:
    """The client tool `name` of the server's major version or later (pg_dump refuses a newer server): the
    embedded server's own (pgserver ships its binaries), Debian's for that version, or the one on PATH."""
    with psycopg.connect(server_url) as conn:
        major = int(conn.execute("SHOW server_version_num").fetchone()[0]) // 10000  # type: ignore[index]
    candidates = [f"/usr/lib/postgresql/{major}/bin/{name}", shutil.which(name)]
    embedded = importlib.util.find_spec("pgserver")  # found, not imported: importing it warns without XDG_RUNTIME_DIR
    if embedded is not None and embedded.origin is not None:
        candidates.insert(0, str(Path(embedded.origin).parent / "pginstall" / "bin" / name))
    for candidate in candidates:
        if candidate and os.access(candidate, os.X_OK):
            version = subprocess.run([candidate, "--version"], capture_output=True, text=True, check=True).stdout
            if int(version.split()[-1].split(".")[0]) >= major:
                return candidate
    pytest.skip(f"no {name} of PostgreSQL {major} or later: apt-get install postgresql-client-{major}")


def test_a_backup_under_load_restores_verifies_and_keeps_every_earlier_receipt(
    app: Flask, api: Api, api_database_url: str, pg_server_url: str, tmp_path: Path
) -> None:
    pg_dump, pg_restore = tool("pg_dump", pg_server_url), tool("pg_restore", pg_server_url)
    rng = random.Random(5)
    tables = [seated_table(api, name=f"b{n}") for n in range(3)]
    before: list[dict[str, Any]] = []
    for table_id, tokens in tables:
        before += [answer["receipt"] for answer in play_deal(api, table_id, tokens, rng)]

    # The load goes on while the backup is taken: another table plays on its own test client.
    stop = threading.Event()
    played: list[int] = []

    def keep_playing() -> None:
        other = Api(app.test_client())
        table_id, tokens = seated_table(other, name="load")
        local = random.Random(6)
        while not stop.is_set():
            played.append(len(play_deal(other, table_id, tokens, local)))
            for token in tokens:
                other.act(token, table_id, {"type": "ready"})

    load = threading.Thread(target=keep_playing, name="backup-load")
    load.start()
    try:
        while not played:  # one deal done under load before the backup starts
            load.join(0.05)
        dump = tmp_path / "cardledger.dump"
        subprocess.run([pg_dump, "--format=custom", "--file", str(dump), api_database_url], check=True, timeout=300)
    finally:
        stop.set()
        load.join(timeout=120)
    assert played, "the load played no deal"

    with fresh_database(pg_server_url, "cardledger_restored") as restored_url:
        subprocess.run([pg_restore, "--no-owner", "--dbname", restored_url, str(dump)], check=True, timeout=300)
        environ = {**os.environ, "DATABASE_URL": restored_url, "PYTHONPATH": str(ROOT)}
        environ.pop("CARDLEDGER_MIGRATE_DATABASE_URL", None)
        verified = subprocess.run(
            [sys.executable, "-m", "services.cli", "verify", "--all"],
            cwd=ROOT,
            env=environ,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert verified.returncode == 0, verified.stdout[-2000:] + verified.stderr
        receipts = parse_receipts(before)
        with psycopg.connect(restored_url, row_factory=dict_row, autocommit=True) as conn:
            verdicts = []
            for table_id, _ in tables:
                _, checks = check_table_receipts(conn, table_id, [r for r in receipts if r.table_id == table_id])
                verdicts += [check.verdict for check in checks]
        assert len(verdicts) == len(before) and set(verdicts) == {OK}
