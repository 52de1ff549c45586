"""Every error of the `cardledger` command is one line, `cardledger: error: ...`, and a non-zero exit; and the
audit commands' `--json`. Against the real database (and, for `verify --url`, a real HTTP server)."""

from __future__ import annotations

import http.server
import json
import os
import random
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from psycopg_pool import ConnectionPool

from infra.event_store import EventStore
from services.cli import main
from services.cli.simulate.stack import free_port
from tests.conftest import fresh_database
from tests.horizon import wait_until_readable
from tests.integration.test_audit_support import play_table, services
from tests.play import register

ROOT = Path(__file__).parents[2]
UNKNOWN_TABLE = "0b6b7d5e-8c1f-4a55-9f3e-2d1c0a9b8e7f"


@pytest.fixture
def cli_env(db_url: str, redis_url: str, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("DATABASE_URL", db_url)
    monkeypatch.setenv("REDIS_URL", redis_url)
    monkeypatch.delenv("CARDLEDGER_MIGRATE_DATABASE_URL", raising=False)
    monkeypatch.delenv("CARDLEDGER_TOKEN", raising=False)
    return db_url


def one_error_line(capsys: pytest.CaptureFixture[str], *argv: str, status: int = 2) -> str:
    """Run the command; it must exit `status`, print nothing on stdout and one error line on stderr."""
    assert main(list(argv)) == status
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("cardledger: error: ") and captured.err.count("\n") == 1, captured.err
    assert "Traceback" not in captured.err
    return captured.err.removeprefix("cardledger: error: ").rstrip("\n")


def closed_database_url() -> str:
    return f"postgresql://postgres@127.0.0.1:{free_port()}/postgres"


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["report", "settlement", "--from", "2026-13-01"], "argument --from: '2026-13-01' is not an ISO date"),
        (["report", "settlement", "--to", "yesterday"], "argument --to: 'yesterday' is not an ISO date"),
        (["report", "settlement", "--bogus"], "unrecognized arguments: --bogus"),
        (["report", "settlement", "--format", "xml"], "argument --format: invalid choice: 'xml'"),
        (["report", "settlement", "--json", "--format", "csv"], "--json and --format csv ask for two formats"),
        (["report", "settlement", "--player", "bob"], "--player 'bob' is not a player id"),
        (
            ["report", "settlement", "--from", "2026-12-02", "--to", "2026-12-01"],
            "the period from 2026-12-02T00:00:00+00:00 to 2026-12-02T00:00:00+00:00 is empty",
        ),
        (["report"], "report: the following arguments are required: REPORT"),
        ([], "the following arguments are required: COMMAND"),
        (["verify"], "one of the arguments --table --all is required"),
        (["verify", "--table", "not-a-table"], "--table 'not-a-table' is not a table id"),
        (["verify", "--all", "--token", "t"], "--token goes with --url"),
        (["deck", "--game", "cholek-tiga", "--table-id", "t", "--deal-no", "x", "--seed", "00"], "--deal-no"),
        (["projections", "rebuild", "nope"], "projections rebuild: unknown projection 'nope'; known projections are"),
        (["deck", "--game", "cholek-tiga", "--table-id", "t", "--deal-no", "1", "--seed", "zz"], "hex digits"),
    ],
)
def test_bad_arguments(cli_env: str, capsys: pytest.CaptureFixture[str], argv: list[str], said: str) -> None:
    assert said in one_error_line(capsys, *argv)


@pytest.mark.parametrize(
    "argv",
    [["verify", "--all"], ["verify", "--table", UNKNOWN_TABLE], ["report", "settlement", "--json"], ["migrate"]],
)
def test_an_unreachable_database(
    cli_env: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, argv: list[str]
) -> None:
    url = closed_database_url()
    monkeypatch.setenv("DATABASE_URL", url)
    port = url.split(":")[2].split("/")[0]
    said = one_error_line(capsys, *argv)
    assert said.startswith(f"cannot reach the database at 127.0.0.1:{port}/postgres (DATABASE_URL): "), said


def test_a_database_url_that_is_no_url(
    cli_env: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DATABASE_URL", "mysql://db.example/cardledger")
    said = one_error_line(capsys, "report", "settlement")
    assert said.startswith("configuration error: DATABASE_URL must be a URL starting with"), said


def test_a_database_not_migrated(
    cli_env: str, pg_server_url: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    with fresh_database(pg_server_url) as empty:
        monkeypatch.setenv("DATABASE_URL", empty)
        said = one_error_line(capsys, "verify", "--all", status=1)
    assert said.startswith("the database is not migrated (relation "), said
    assert said.endswith("run `cardledger migrate` first")


def test_an_unknown_table(cli_env: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert one_error_line(capsys, "verify", "--table", UNKNOWN_TABLE) == f"verify: table {UNKNOWN_TABLE} does not exist"
    assert one_error_line(capsys, "verify", "--table", UNKNOWN_TABLE, "--json").endswith("does not exist")


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("ftp://example.org", "verify: --url must be an http:// or https:// address, not 'ftp://example.org'"),
        ("http://", "verify: --url must be an http:// or https:// address, not 'http://'"),
        ("example.org:8000", "verify: --url must be an http:// or https:// address, not 'example.org:8000'"),
    ],
)
def test_a_bad_url(cli_env: str, capsys: pytest.CaptureFixture[str], url: str, said: str) -> None:
    assert one_error_line(capsys, "verify", "--url", url, "--table", UNKNOWN_TABLE, "--token", "t") == said


def test_a_missing_token(cli_env: str, capsys: pytest.CaptureFixture[str]) -> None:
    said = one_error_line(capsys, "verify", "--url", "http://127.0.0.1:9", "--table", UNKNOWN_TABLE)
    assert said == "verify: --url needs --table ID and --token TOKEN (or $CARDLEDGER_TOKEN)"


class _Answers(http.server.BaseHTTPRequestHandler):
    """Every GET answered with the status and body of its path: /404/..., /500/..., /302/..."""

    def do_GET(self) -> None:
        status = int(self.path.split("/")[1])
        if status == 302:
            self.send_response(302)
            self.send_header("Location", "http://elsewhere.example/")
            self.end_headers()
            return
        body, kind = (
            (json.dumps({"code": "table_not_found", "detail": "no such table;\nsecond line"}), "application/json")
            if status == 404
            else ("<html>\n<h1>Internal Server Error</h1>\n</html>", "text/html")
        )
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.end_headers()
        self.wfile.write(body.encode())

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def answering() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Answers)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        thread.join(timeout=10)


@pytest.mark.parametrize(
    ("status", "said"),
    [
        (404, "404 table_not_found: no such table; second line"),
        (500, "500 Internal Server Error"),
        (302, "redirected (302) to http://elsewhere.example/"),
    ],
)
def test_http_errors_of_verify_url(
    cli_env: str, capsys: pytest.CaptureFixture[str], answering: str, status: int, said: str
) -> None:
    url = f"{answering}/{status}"
    error = one_error_line(capsys, "verify", "--url", url, "--table", UNKNOWN_TABLE, "--token", "t")
    assert error.startswith("verify: GET /v1/tables/") and said in error, error

    assert main(["verify", "--url", url, "--table", UNKNOWN_TABLE, "--token", "t", "--json"]) == 2
    captured = capsys.readouterr()
    assert json.loads(captured.out)["error"]["status"] == status  # --json: the error as JSON on stdout too
    assert captured.err.count("\n") == 1


def test_nothing_listens_at_the_url(cli_env: str, capsys: pytest.CaptureFixture[str]) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    error = one_error_line(capsys, "verify", "--url", url, "--table", UNKNOWN_TABLE, "--token", "t")
    assert error.startswith(f"verify: cannot reach {url}: "), error


def test_settlement_and_verify_print_json(
    cli_env: str, pool: ConnectionPool[Any], store: EventStore, capsys: pytest.CaptureFixture[str]
) -> None:
    ledger, _ = services(pool, store)
    played = play_table(ledger, "cha-kau-tsz", [register(ledger, f"j{n}") for n in range(2)], 1, random.Random(5))
    wait_until_readable(cli_env)  # the report reads the log up to its commit-safe horizon

    assert main(["report", "settlement", "--json"]) == 0
    by_flag = json.loads(capsys.readouterr().out)
    assert main(["report", "settlement", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out) == by_flag
    player = played.callers[0].player_id
    assert main(["report", "settlement", "--json", "--player", str(player), "--from", "2000-01-01"]) == 0
    mine = json.loads(capsys.readouterr().out)
    assert mine["player_id"] == player
    assert [row["net_amount"] for row in mine["rows"] if row["player_id"] == player] == [
        played.deals[0]["result"]["net"][0]
    ]

    assert main(["verify", "--table", played.table_id, "--json"]) == 0
    verdict = json.loads(capsys.readouterr().out)
    assert verdict["ok"] is True


def test_as_a_process_the_errors_are_one_line_with_no_traceback(redis_url: str) -> None:
    """The installed entry point's behaviour: stderr as a terminal sees it, the exit status the shell sees."""
    env = {**os.environ, "DATABASE_URL": closed_database_url(), "REDIS_URL": redis_url, "PYTHONPATH": str(ROOT)}
    env.pop("CARDLEDGER_MIGRATE_DATABASE_URL", None)
    for argv, said in (
        (["report", "settlement", "--from", "nope"], "argument --from: 'nope' is not an ISO date"),
        (["report", "settlement", "--json"], "cannot reach the database at 127.0.0.1:"),
    ):
        done = subprocess.run(
            [sys.executable, "-m", "services.cli", *argv],
            env=env,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 2
        assert done.stdout == ""
        assert done.stderr.startswith("cardledger: error: ") and done.stderr.count("\n") == 1, done.stderr
        assert said in done.stderr
