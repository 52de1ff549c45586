"""`cardledger demo`: one deal played by bots over the REST API and told as a story (or as JSON).

The app of tests/api/conftest.py is served over real HTTP (werkzeug in a thread) with a thread that keeps the
projections caught up, as the workers of `cardledger up` do; `services.cli.main` runs the demo against it.
"""

from __future__ import annotations

import hashlib
import http.server
import json
import shlex
import threading
from collections.abc import Callable, Iterator
from typing import Any

import psycopg
import pytest
from flask import Flask
from flask.testing import FlaskClient
from psycopg.rows import dict_row
from werkzeug.serving import WSGIRequestHandler, make_server

from domain.events import Event
from domain.table import revealed_cards
from infra.projections.runner import catch_up_all
from services.cli import main
from services.cli import verify_remote as remote_verify
from services.cli.simulate.stack import free_port
from tests.api.conftest import AUDITOR_TOKEN, bearer

GAMES = ("cholek-tiga", "cha-kau-tsz")
FACT_KEYS = {
    "ok",
    "url",
    "game",
    "table",
    "players",
    "before_the_deal",
    "moves",
    "reveal",
    "result",
    "ledger",
    "settlement",
    "verification",
    "receipt",
    "dispute",
    "commands",
}

Demo = Callable[..., tuple[int, str, str]]


class _Quiet(WSGIRequestHandler):
    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        pass  # the demo's stderr is asserted on; werkzeug would log each request there


@pytest.fixture
def base_url(app: Flask, clean: str) -> Iterator[str]:
    """The API over HTTP, and the projections kept up with the log in the background (the workers' job)."""
    stop = threading.Event()

    def project() -> None:
        with psycopg.connect(clean, autocommit=True, row_factory=dict_row) as conn:
            while not stop.is_set():
                catch_up_all(conn)
                stop.wait(0.05)

    server = make_server("127.0.0.1", 0, app, threaded=True, request_handler=_Quiet)
    threads = [
        threading.Thread(target=project, name="demo-test-projector", daemon=True),
        threading.Thread(target=server.serve_forever, name="demo-test-api", daemon=True),
    ]
    for thread in threads:
        thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        stop.set()
        for thread in threads:
            thread.join(timeout=10)


@pytest.fixture
def demo(capsys: pytest.CaptureFixture[str]) -> Demo:
    def run(*argv: str) -> tuple[int, str, str]:
        code = main(["demo", *argv])
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return run


def _deck(command: str, capsys: pytest.CaptureFixture[str]) -> tuple[list[str], dict[str, str]]:
    """Run the printed `cardledger deck ...` line; the deck it prints and its options."""
    words = shlex.split(command)
    assert words[:2] == ["cardledger", "deck"], command
    assert main(words[1:]) == 0
    deck = json.loads(capsys.readouterr().out)
    options = dict(zip(words[2::2], words[3::2], strict=False))
    return deck, options


def _dealt(client: FlaskClient, table_id: str) -> list[tuple[int, str]]:
    """(deck index, card) of every card the table's events took from the deck (as the auditor sees them)."""
    answer = client.get(f"/v1/tables/{table_id}/events?after=0&limit=1000", headers=bearer(AUDITOR_TOKEN))
    assert answer.status_code == 200
    events = answer.get_json()["events"]
    return [pair for event in events for pair in revealed_cards(Event(event["type"], event["data"]))]


@pytest.mark.parametrize("game", GAMES)
def test_the_story_of_one_deal_and_its_deck_command(
    demo: Demo, base_url: str, client: FlaskClient, capsys: pytest.CaptureFixture[str], game: str
) -> None:
    code, out, err = demo("--game", game, "--url", base_url)
    assert code == 0, err
    assert err == ""
    lines = out.splitlines()
    assert lines[0] == f"cardledger demo: one deal of {game} over the REST API at {base_url}"
    for expected in (
        "seat 0: alice",
        "seat 1: bob",
        "commitment  ",
        "server seed still secret",
        "= the commitment: yes",
        "net: alice ",
        ": balanced",
        "Settlement report",
        "OK, every check holds",
        "Ed25519 signature valid",
    ):
        assert expected in out, expected
    assert ("Result: alice " if game == "cholek-tiga" else "Result: tricks alice ") in out
    explained = [line for line in out.splitlines() if line.startswith("  where ")]
    assert explained and ("points: a player below" in out or "hand_payment: each player" in out), explained

    deck_line = next(line.strip() for line in lines if line.strip().startswith("cardledger deck "))
    deck, options = _deck(deck_line, capsys)
    assert options["--game"] == game and options["--deal-no"] == "1"
    dealt = _dealt(client, options["--table-id"])
    assert dealt, "the deal took no card from the deck"
    assert len({index for index, _ in dealt}) == len(dealt)
    assert all(deck[index] == card for index, card in dealt)

    curl = next(line.strip() for line in lines if line.strip().startswith("curl "))
    words = shlex.split(curl)
    assert words[2] == f"{base_url}/v1/reports/dispute?table_id={options['--table-id']}&deal_no=1&format=html"
    token = words[4].removeprefix("Authorization: Bearer ")
    answer = client.get(words[2].removeprefix(base_url), headers=bearer(token))
    assert answer.status_code == 200 and answer.mimetype == "text/html"


@pytest.mark.parametrize("game", GAMES)
def test_the_json_document_holds_the_same_facts(
    demo: Demo, base_url: str, client: FlaskClient, capsys: pytest.CaptureFixture[str], game: str
) -> None:
    code, out, err = demo("--url", base_url, "--game", game, "--json")
    assert code == 0, err
    facts: dict[str, Any] = json.loads(out)
    assert set(facts) >= FACT_KEYS
    assert facts["ok"] is True and facts["game"] == game and facts["url"] == base_url
    seats = 2 if game == "cholek-tiga" else 3
    assert [p["name"] for p in facts["players"]] == ["alice", "bob", "carol"][:seats]

    before, reveal = facts["before_the_deal"], facts["reveal"]
    assert before["server_seed"] is None
    assert hashlib.sha256(bytes.fromhex(reveal["server_seed"])).hexdigest() == before["commitment"]
    assert reveal["matches"] is True and reveal["commitment"] == before["commitment"]
    assert before["client_seeds"] == [p["client_seed"] for p in facts["players"]]
    assert facts["moves"]["count"] > 0 and facts["moves"]["first"]

    result = facts["result"]
    assert ("scores" if game == "cholek-tiga" else "tricks") in result
    assert len(result["net"]) == seats

    ledger = facts["ledger"]
    assert ledger["balanced"] is True and ledger["sum_amount"] == 0 and ledger["sum_cents"] == 0
    assert ledger["line_count"] == len(ledger["lines"])
    by_player: dict[str, int] = {}
    for total in ledger["totals"]:
        if total["player_id"] is not None:
            by_player[total["player_id"]] = by_player.get(total["player_id"], 0) + total["amount_cents"]
    for player, report in zip(facts["players"], facts["settlement"], strict=True):
        assert report["name"] == player["name"]
        assert report["net_cents"] == by_player.get(player["id"], 0)

    verification = facts["verification"]
    assert verification["ok"] is True and verification["deals_checked"] == 1
    assert verification["receipts_checked"] == verification["receipts_ok"] > seats
    assert all(passed is True for passed in verification["checks"].values())
    assert facts["receipt"]["signature_valid"] is True and facts["receipt"]["log_hash_matches"] is True
    assert facts["dispute"]["verification_ok"] is True

    deck, options = _deck(facts["commands"]["deck"], capsys)
    assert options["--seed"] == reveal["server_seed"] and options["--table-id"] == facts["table"]["id"]
    dealt = _dealt(client, facts["table"]["id"])
    assert dealt and all(deck[index] == card for index, card in dealt)


def test_an_unreachable_url_is_one_line_and_exit_2(demo: Demo) -> None:
    code, out, err = demo("--url", f"http://127.0.0.1:{free_port()}")
    assert code == 2
    assert out == ""
    assert len(err.splitlines()) == 1
    assert err.startswith("cardledger: error: demo: cannot reach http://127.0.0.1:")


def test_a_url_that_is_no_url_is_one_line_and_exit_2(demo: Demo) -> None:
    code, out, err = demo("--url", "127.0.0.1:8000")
    assert (code, out) == (2, "")
    assert err == "cardledger: error: demo: --url must be an http:// or https:// address, not '127.0.0.1:8000'\n"


class _Refusing(http.server.BaseHTTPRequestHandler):
    """Answers every request with `status` and `body` (a rate limit that asks for a minute, or a web page)."""

    status = 429
    headers_sent: dict[str, str] = {}
    body = b""

    def do_POST(self) -> None:
        self.send_response(self.status)
        for name, value in self.headers_sent.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(self.body)))
        self.end_headers()
        self.wfile.write(self.body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.mark.parametrize(
    ("status", "headers", "body", "message"),
    [
        (
            429,
            {"Retry-After": "60", "Content-Type": "application/problem+json"},
            b'{"code": "rate_limited", "detail": "too many registrations"}',
            "cardledger: error: demo: rate limited: POST /v1/players answered 429 rate_limited; the server asks to "
            "wait 60 s: try again then",
        ),
        (
            404,
            {"Content-Type": "text/html"},
            b"<html>not here</html>",
            "cardledger: error: demo: POST /v1/players answered 404: <html>not here</html>; "
            "is this the cardledger API?",
        ),
    ],
    ids=["rate-limited", "not-the-api"],
)
def test_a_refusal_is_one_line_and_exit_2(
    demo: Demo, status: int, headers: dict[str, str], body: bytes, message: str
) -> None:
    handler = type("Handler", (_Refusing,), {"status": status, "headers_sent": headers, "body": body})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        code, out, err = demo("--url", f"http://127.0.0.1:{server.server_port}")
    finally:
        server.shutdown()
        thread.join(timeout=10)
    assert (code, out) == (2, "")
    assert err == message + "\n"


def test_a_failed_verification_is_one_line_and_exit_1(
    demo: Demo, base_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = remote_verify.verify_remote

    def altered(*args: Any, **kwargs: Any) -> remote_verify.RemoteVerification:
        report = real(*args, **kwargs)
        report.findings.append(remote_verify.Finding("hash_chain", 5, "cards_drawn", 1, "hash differs (altered)"))
        return report

    monkeypatch.setattr(remote_verify, "verify_remote", altered)
    code, out, err = demo("--url", base_url, "--json")
    assert (code, out) == (1, "")
    assert err.startswith(
        "cardledger: error: demo: verification failed as bob at seat 1 of deal 1: event 5 (cards_drawn) deal 1"
    )
    assert len(err.splitlines()) == 1
