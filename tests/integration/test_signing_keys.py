"""The receipt signing key at start (configuration errors, the embedded key file, one key for every worker)
and `cardledger verify --receipts` against the real database."""

from __future__ import annotations

import json
import os
import stat
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from psycopg_pool import ConnectionPool

from infra.config import Settings
from infra.db import connect
from infra.signing import (
    KEY_FILE_NAME,
    SIGNING_KEY_VARIABLE,
    MissingSigningKey,
    ReceiptSigner,
    encode_signing_key,
    load_or_create_key_file,
    new_signing_key,
    parse_signing_key,
    public_keys,
    signing_seed,
)
from infra.storage.postgres import PostgresStorage
from services.app.ledger import CardLedger
from services.cli import main
from services.supervisor import Child, run_stack
from tests.conftest import fresh_database, register_key
from tests.faults.servers import free_port
from tests.play import register

MALFORMED = "this-is-not-a-key!"


@pytest.fixture
def no_exec(monkeypatch: pytest.MonkeyPatch) -> None:
    """`cardledger api` execs gunicorn once its checks pass: here that would replace the test process."""

    def refuse(*args: Any) -> None:
        raise AssertionError("cardledger api got past its checks")

    monkeypatch.setattr(os, "execv", refuse)


@pytest.mark.parametrize("command", [["api"], ["migrate"], ["up"], ["verify", "--all"]])
def test_a_malformed_key_stops_every_command_at_start_naming_the_variable(
    command: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], no_exec: None
) -> None:
    monkeypatch.setenv(SIGNING_KEY_VARIABLE, MALFORMED)
    assert main(command) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"cardledger: error: configuration error: {SIGNING_KEY_VARIABLE} must be"), err
    assert MALFORMED not in err


def test_a_key_of_the_wrong_length_stops_the_start(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], no_exec: None
) -> None:
    short = encode_signing_key(b"k" * 16)
    monkeypatch.setenv(SIGNING_KEY_VARIABLE, short)
    assert main(["api"]) == 2
    err = capsys.readouterr().err
    assert f"{SIGNING_KEY_VARIABLE} must encode a 32-byte Ed25519 seed; the value decodes to 16 bytes" in err
    assert short not in err


def test_the_api_refuses_to_start_with_urls_and_no_key(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], no_exec: None
) -> None:
    monkeypatch.setenv("DATABASE_URL", "postgresql://127.0.0.1:1/cardledger")
    monkeypatch.setenv("REDIS_URL", "redis://cache.example/0")
    monkeypatch.delenv(SIGNING_KEY_VARIABLE)
    assert main(["api"]) == 2
    assert f"configuration error: {SIGNING_KEY_VARIABLE} is not set" in capsys.readouterr().err

    from services.api import create_served_app

    with pytest.raises(MissingSigningKey, match=SIGNING_KEY_VARIABLE):
        create_served_app()  # what each gunicorn worker loads: it refuses too
    monkeypatch.setenv(SIGNING_KEY_VARIABLE, MALFORMED)
    with pytest.raises(ValueError, match=f"^{SIGNING_KEY_VARIABLE} must be"):
        create_served_app()


def test_up_refuses_to_start_with_urls_and_no_key(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    settings = Settings(
        database_url="postgresql://db.example/x",
        redis_url="redis://cache.example/0",
        port=free_port(),
        data_dir=tmp_path,
    )
    stopped = threading.Event()
    stopped.set()
    assert run_stack(settings, stopped) == 2
    assert f"{SIGNING_KEY_VARIABLE} is not set" in capsys.readouterr().err
    assert not (tmp_path / KEY_FILE_NAME).exists()  # only the embedded default makes a key file


def test_up_registers_its_key_and_hands_it_to_the_api_and_its_workers(
    pg_server_url: str, redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    started: list[tuple[str, dict[str, str]]] = []
    monkeypatch.setattr(Child, "start", lambda self, env: started.append((self.name, {**env, **self.env})))
    seed = os.urandom(32)
    with fresh_database(pg_server_url) as url:
        unsafe = {"unsafe_superuser_database": True}  # one URL, a superuser's: a throwaway test database
        settings = Settings(database_url=url, redis_url=redis_url, port=free_port(), signing_key=seed, **unsafe)
        stopped = threading.Event()
        stopped.set()
        assert run_stack(settings, stopped) == 0
        api_env = dict(started)["api"]
        assert parse_signing_key(api_env[SIGNING_KEY_VARIABLE]) == seed  # gunicorn's workers inherit this environment
        with connect(url) as conn:  # the migrations' step registered it, as the owner, the first of the chain
            assert [key["key_id"] for key in public_keys(conn)] == [ReceiptSigner.from_seed(seed).key_id]
        # Another key on the same database is a rotation's job: `up` refuses it rather than start unverifiable.
        other = Settings(database_url=url, redis_url=redis_url, port=free_port(), signing_key=os.urandom(32), **unsafe)
        assert run_stack(other, stopped) == 2


def test_the_embedded_default_makes_a_key_file_once_and_reuses_it(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data")  # no DATABASE_URL: the embedded default
    first = signing_seed(settings)
    path = tmp_path / "data" / KEY_FILE_NAME
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    written = path.read_text()
    assert parse_signing_key(written) == first and len(first) == 32
    assert signing_seed(settings) == first == load_or_create_key_file(tmp_path / "data")
    assert path.read_text() == written
    assert [p.name for p in path.parent.iterdir()] == [KEY_FILE_NAME]  # no temporary file left behind
    # CARDLEDGER_SIGNING_KEY wins over the file.
    other = os.urandom(32)
    assert signing_seed(Settings(data_dir=tmp_path / "data", signing_key=other)) == other


def test_concurrent_first_starts_agree_on_one_key(tmp_path: Path) -> None:
    with ThreadPoolExecutor(8) as pool:
        seeds = set(pool.map(lambda _: load_or_create_key_file(tmp_path), range(32)))
    assert len(seeds) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == [KEY_FILE_NAME]


def test_a_damaged_key_file_is_named(tmp_path: Path) -> None:
    (tmp_path / KEY_FILE_NAME).write_text("garbage!\n")
    with pytest.raises(ValueError, match=f"the signing key file {tmp_path / KEY_FILE_NAME} must be"):
        load_or_create_key_file(tmp_path)


def test_bootstrap_without_a_key_starts_nothing(tmp_path: Path) -> None:
    from services.bootstrap import bootstrap

    with pytest.raises(MissingSigningKey):
        bootstrap(Settings(database_url="postgresql://db.example/x", redis_url="redis://cache.example/0"))


# --------------------------------------------------------------------------- cardledger verify --receipts


@pytest.fixture
def cli_env(db_url: str, redis_url: str, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("DATABASE_URL", db_url)
    monkeypatch.setenv("REDIS_URL", redis_url)
    return db_url


def _table_with_receipts(pool: ConnectionPool[Any], signer: ReceiptSigner) -> tuple[str, list[dict[str, Any]]]:
    with pool.connection() as conn:
        register_key(conn.info.dsn, signer)
    ledger = CardLedger(PostgresStorage(pool), None, signer)
    ledger.commands.require_signing_key()
    alice, bob = register(ledger, "alice"), register(ledger, "bob")
    opened = ledger.open_table(alice, "cholek-tiga", 2, {})
    table_id = str(opened["id"])
    receipts = [opened["receipt"]]
    receipts.append(ledger.sit(alice, table_id, 0, "a")["receipt"])
    receipts.append(ledger.sit(bob, table_id, 1, "b")["receipt"])
    return table_id, receipts  # type: ignore[return-value]


def test_verify_receipts_passes_receipts_the_log_agrees_with(
    cli_env: str, pool: ConnectionPool[Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table_id, receipts = _table_with_receipts(pool, ReceiptSigner.from_seed(os.urandom(32)))
    path = tmp_path / "receipts.json"
    path.write_text(json.dumps(receipts))
    assert main(["verify", "--table", table_id, "--receipts", str(path)]) == 0
    out = capsys.readouterr().out
    assert "receipts: 3 checked, 0 prove a rewritten history, 0 prove nothing" in out
    assert "keys: trusted as served, not pinned" in out
    assert out.count(": ok: signature valid") == 3

    assert main(["verify", "--table", table_id, "--receipts", str(path), "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert [check["verdict"] for check in shown["receipts"]] == ["ok", "ok", "ok"]


def test_verify_receipts_names_a_receipt_the_log_contradicts_as_a_rewritten_history(
    cli_env: str, pool: ConnectionPool[Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    signer = ReceiptSigner.from_seed(os.urandom(32))
    table_id, receipts = _table_with_receipts(pool, signer)
    # Someone with database access rewrites the event a receipt covers (the service's own signature stays).
    version = receipts[1]["version"]
    with pool.connection() as conn, conn.transaction():
        conn.execute("ALTER TABLE events DISABLE TRIGGER USER")
        conn.execute("UPDATE events SET hash = %s WHERE stream_id = %s AND version = %s", ("0" * 64, table_id, version))
        conn.execute("ALTER TABLE events ENABLE TRIGGER USER")
    path = tmp_path / "receipts.json"
    path.write_text(json.dumps(receipts))
    assert main(["verify", "--table", table_id, "--receipts", str(path)]) == 1
    out = capsys.readouterr().out
    assert f"receipt 1 (version {version}): REWRITTEN HISTORY: PROOF OF A REWRITTEN HISTORY" in out
    assert f"the log now holds {'0' * 64} there" in out
    assert "receipts: 3 checked, 1 prove a rewritten history, 0 prove nothing; the log contradicts" in out


def test_verify_receipts_names_a_forged_receipt(
    cli_env: str, pool: ConnectionPool[Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table_id, receipts = _table_with_receipts(pool, ReceiptSigner.from_seed(os.urandom(32)))
    receipts[2] = {**receipts[2], "signed_at": "2020-01-01T00:00:00.000000Z"}
    receipts.append(ReceiptSigner.ephemeral().sign(table_id, 1, receipts[0]["hash"]))
    path = tmp_path / "receipts.json"
    path.write_text(json.dumps(receipts))
    # A forged or unknown receipt is no evidence against the service: not a failure (exit 1), only reported.
    assert main(["verify", "--table", table_id, "--receipts", str(path)]) == 0
    out = capsys.readouterr().out
    assert "receipt 2 (version" in out and "BAD SIGNATURE" in out and "(proves nothing)" in out
    assert "receipt 3 (version 1): UNKNOWN KEY" in out
    path.write_text(json.dumps(receipts[2:]))  # nothing left that can be checked: exit 2
    assert main(["verify", "--table", table_id, "--receipts", str(path)]) == 2


_ENTRY = {"table_id": "t", "version": 1, "hash": "h", "signed_at": "s", "key_id": "k", "signature": "x"}


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("[{", "the receipts are not JSON: "),
        ('{"receipts": []}', "the receipts must be a JSON list of receipt objects, got an object"),
        (json.dumps([_ENTRY, {k: v for k, v in _ENTRY.items() if k != "hash"}]), "receipt 1: field 'hash' is missing"),
        (json.dumps([{**_ENTRY, "version": "1"}]), "receipt 0: field 'version' must be an integer, got a string"),
        ("[1]", "receipt 0: must be a JSON object, got a number"),
    ],
)
def test_verify_receipts_names_the_entry_and_field_of_a_bad_file(
    content: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "receipts.json"
    path.write_text(content)
    assert main(["verify", "--table", "t", "--receipts", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"cardledger: error: verify: --receipts {path}: ") and message in err, err
    assert "Traceback" not in err


def test_verify_receipts_needs_one_table_and_a_readable_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "receipts.json"
    path.write_text("[]")
    assert main(["verify", "--all", "--receipts", str(path)]) == 2
    assert "--receipts goes with --table" in capsys.readouterr().err
    assert main(["verify", "--table", "t", "--receipts", str(tmp_path / "missing.json")]) == 2
    assert "cannot read the receipts file" in capsys.readouterr().err


def test_a_new_key_is_a_valid_setting() -> None:
    key = new_signing_key()
    assert Settings.from_env({SIGNING_KEY_VARIABLE: key}).signing_key == parse_signing_key(key)


def test_keys_add_rotate_and_export_keep_an_endorsed_chain(
    pg_server_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """As the owner: the first key is added, a second is rotated in with the first's endorsement, and the export
    is a file `verify --trust-key` reads, whose pin reaches the second key through the chain."""
    from infra.key_chain import parse_trust_keys, trusted_keys
    from infra.migrations import migrate

    first, second = new_signing_key(), new_signing_key()
    with fresh_database(pg_server_url) as url:
        migrate(url)
        monkeypatch.setenv("DATABASE_URL", url)
        monkeypatch.setenv(SIGNING_KEY_VARIABLE, first)
        assert main(["keys", "add"]) == 0
        assert "the first of the chain" in capsys.readouterr().out
        monkeypatch.setenv(SIGNING_KEY_VARIABLE, second)
        assert main(["keys", "add"]) == 1  # a new key after the first is a rotation's
        assert "cardledger keys rotate" in capsys.readouterr().err
        assert main(["keys", "rotate"]) == 2  # the old seed is missing
        assert "CARDLEDGER_OLD_SIGNING_KEY is not set" in capsys.readouterr().err
        monkeypatch.setenv("CARDLEDGER_OLD_SIGNING_KEY", first)
        assert main(["keys", "rotate"]) == 0
        new_id = ReceiptSigner.from_seed(parse_signing_key(second)).key_id
        old_id = ReceiptSigner.from_seed(parse_signing_key(first)).key_id
        assert f"signing key {new_id}: registered, endorsed by {old_id}" in capsys.readouterr().out

        assert main(["keys", "export"]) == 0
        served = json.loads(capsys.readouterr().out)["keys"]
        assert [key["key_id"] for key in served] == [old_id, new_id]
        assert main(["keys", "export", "--key-id", old_id]) == 0
        pin = tmp_path / "first.json"
        pin.write_text(capsys.readouterr().out)
        assert set(trusted_keys(served, parse_trust_keys(str(pin))).keys) == {old_id, new_id}
