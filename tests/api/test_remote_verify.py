"""`cardledger verify --url`: a table verified through the REST API alone, as a seated player or the auditor.

The app of tests/api/conftest.py is served over real HTTP (werkzeug in a thread); deals are played through
the test client, and `services.cli.main` verifies them through the served API.
"""

from __future__ import annotations

import json
import random
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from flask import Flask
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb
from werkzeug.serving import WSGIRequestHandler, make_server
from werkzeug.wrappers import Request, Response

from domain.events import PRIVATE
from domain.hashchain import event_hash, hashed_fields
from services.bootstrap import Container
from services.cli import main
from services.cli import verify_remote as remote_verify
from tests.api.conftest import AUDITOR_TOKEN, Api, play_deal, project, seated_table, take_turn

Verify = Callable[..., tuple[int, str, str]]


class _Quiet(WSGIRequestHandler):
    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        pass  # the CLI's stderr is asserted on; werkzeug would log each request there


def _serve(app: Any) -> Iterator[str]:
    server = make_server("127.0.0.1", 0, app, threaded=True, request_handler=_Quiet)
    thread = threading.Thread(target=server.serve_forever, name="remote-verify-test-api", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        thread.join(timeout=10)


@pytest.fixture
def base_url(app: Flask) -> Iterator[str]:
    yield from _serve(app)


@pytest.fixture
def verify(capsys: pytest.CaptureFixture[str], clean: str) -> Verify:
    def run(url: str, token: str, table_id: str, *extra: str) -> tuple[int, str, str]:
        project(clean)  # the ledger is a projection: the workers' catch-up, done inline
        code = main(["verify", "--url", url, "--token", token, "--table", table_id, *extra])
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return run


def _events(clean: str, table_id: str) -> list[dict[str, Any]]:
    with psycopg.connect(clean, row_factory=dict_row) as conn:
        rows = conn.execute(
            "SELECT version, type, deal_no, data, hash_version FROM events WHERE stream_id = %s ORDER BY version",
            (table_id,),
        ).fetchall()
    return [dict(row) for row in rows]


def _tamper(clean: str, table_id: str, version: int, change: Callable[[dict[str, Any]], None]) -> None:
    """Change one stored event's data in place, as someone with write access to the database could."""
    with psycopg.connect(clean, row_factory=dict_row) as conn, conn.transaction():
        conn.execute("ALTER TABLE events DISABLE TRIGGER USER")
        row = conn.execute(
            "SELECT data FROM events WHERE stream_id = %s AND version = %s", (table_id, version)
        ).fetchone()
        assert row is not None
        data = dict(row["data"])
        change(data)
        conn.execute(
            "UPDATE events SET data = %s WHERE stream_id = %s AND version = %s", (Jsonb(data), table_id, version)
        )
        conn.execute("ALTER TABLE events ENABLE TRIGGER USER")


@pytest.mark.parametrize(("game", "seats"), [("cholek-tiga", 2), ("cha-kau-tsz", 3)])
def test_a_played_table_verifies_through_the_api_and_a_tampered_event_is_named(
    api: Api, base_url: str, clean: str, verify: Verify, game: str, seats: int
) -> None:
    table_id, tokens = seated_table(api, game, seats)
    play_deal(api, table_id, tokens, random.Random(11))
    # A second deal is started and left running: its chain is checked, the rest is pending.
    for token in tokens:
        api.act(token, table_id, {"type": "ready"})
    stored = _events(clean, table_id)
    player = tokens[-1]  # a seated player, not the auditor

    code, out, err = verify(base_url, player, table_id)
    assert code == 0, out + err
    assert f"events checked: {len(stored)}" in out
    assert "deals checked: 1 ended" in out
    assert "running: deal 2" in out and "pending: deal 2 is running" in out
    assert out.rstrip().endswith("OK: every check holds")

    code, out, _ = verify(base_url, AUDITOR_TOKEN, table_id, "--json")
    assert code == 0
    verdict = json.loads(out)
    assert verdict["ok"] is True and verdict["viewer"] == "the auditor"
    assert verdict["events_checked"] == len(stored)
    assert verdict["head"]["position"] == stored[-1]["version"]
    assert [d["status"] for d in verdict["deals"]] == ["ended", "running"]
    assert verdict["deals"][0]["checks"] == {
        "deal_record": True,
        "commitment": True,
        "deck": True,
        "replay": True,
    }
    assert verdict["ledger_lines"] > 0 and verdict["failures"] == []

    # One event of the ended deal is changed in the database: its public part, which every hash covers.
    target = next(e for e in stored if e["deal_no"] == 1 and e["type"] not in ("deal_started", "deal_ended"))
    _tamper(clean, table_id, target["version"], lambda data: data.update(seat=(int(data.get("seat", 0)) + 1) % seats))
    code, out, err = verify(base_url, player, table_id)
    assert code == 1, out + err
    assert f"FAILED at event {target['version']} ({target['type']}) deal 1 hash_chain:" in out
    assert "differs from recomputed" in out

    code, out, _ = verify(base_url, player, table_id, "--json")
    assert code == 1
    first = json.loads(out)["first_failure"]
    assert (first["position"], first["type"], first["check"]) == (target["version"], target["type"], "hash_chain")


def test_a_changed_hidden_card_is_caught_by_its_commitment_or_hash(
    api: Api, base_url: str, clean: str, verify: Verify
) -> None:
    table_id, tokens = seated_table(api, "cholek-tiga", 2)
    play_deal(api, table_id, tokens, random.Random(5))
    dealt = next(e for e in _events(clean, table_id) if PRIVATE in e["data"])

    def swap(data: dict[str, Any]) -> None:
        cards = list(data[PRIVATE]["cards"])
        cards[0], cards[-1] = cards[-1], cards[0]
        if cards == list(data[PRIVATE]["cards"]):
            cards[0] = "X" + cards[0]
        data[PRIVATE] = {**data[PRIVATE], "cards": cards}

    project(clean)  # before the change: folding a hand that lost a card it later plays would stop the projections
    _tamper(clean, table_id, dealt["version"], swap)
    code, out, err = verify(base_url, tokens[0], table_id, "--json")
    assert code == 1, out + err
    first = json.loads(out)["first_failure"]
    assert (first["position"], first["type"]) == (dealt["version"], dealt["type"])
    if dealt["hash_version"] >= 2:  # the hash leaves the block out; its commitment holds it
        assert "private_commitment" in first["reason"]


def test_a_running_deal_is_verified_for_its_chain(api: Api, base_url: str, verify: Verify) -> None:
    table_id, tokens = seated_table(api, "cha-kau-tsz", 2)
    code, out, err = verify(base_url, tokens[0], table_id, "--json")
    assert code == 0, out + err
    verdict = json.loads(out)
    assert verdict["viewer"] == "seat 0 of deal 1"
    assert verdict["deals"][0]["status"] == "running"
    assert verdict["deals"][0]["checks"]["replay"] == "pending"
    assert any("deal 1 is running" in p for p in verdict["pending"])


def test_a_player_without_a_seat_gets_the_apis_answer(api: Api, base_url: str, verify: Verify) -> None:
    table_id, _ = seated_table(api, "cholek-tiga", 2)
    _, stranger = api.register("stranger")
    code, out, err = verify(base_url, stranger, table_id)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "403 not_seated" in err and "has no seat" in err

    code, out, err = verify(base_url, stranger, table_id, "--json")
    assert code == 2
    assert json.loads(out)["error"]["code"] == "not_seated"


def test_bad_token_unknown_table_and_no_server_are_one_line_errors(api: Api, base_url: str, verify: Verify) -> None:
    table_id, tokens = seated_table(api, "cholek-tiga", 2)
    code, _, err = verify(base_url, "not-a-token", table_id)
    assert code == 2 and "401 invalid_token" in err and err.count("\n") == 1
    assert err.startswith(f"cardledger: error: verify: GET /v1/tables/{table_id}/events?")
    code, _, err = verify(base_url, tokens[0], "00000000-0000-4000-8000-000000000000")
    assert code == 2 and "404 table_not_found" in err
    code, _, err = verify("http://127.0.0.1:9", tokens[0], table_id)
    assert code == 2 and "cannot reach http://127.0.0.1:9" in err and "Traceback" not in err
    code, _, err = verify("ftp://example.org", tokens[0], table_id)
    assert code == 2 and "http://" in err


def test_an_answer_that_is_not_json_is_a_one_line_error(verify: Verify) -> None:
    @Request.application  # type: ignore[misc]
    def not_the_api(request: Request) -> Response:
        return Response("<html>hello</html>", mimetype="text/html")

    for url in _serve(not_the_api):
        code, out, err = verify(url, "token", "t")
        assert code == 2 and out == ""
        assert "is not JSON" in err and err.count("\n") == 1


def test_url_needs_a_token_and_a_table(verify: Verify, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("CARDLEDGER_TOKEN", raising=False)
    assert main(["verify", "--url", "http://127.0.0.1:9", "--table", "t"]) == 2
    assert main(["verify", "--url", "http://127.0.0.1:9", "--all", "--token", "x"]) == 2
    code, _, err = verify("http://127.0.0.1:9", "x", "t", "--receipts", str(tmp_path / "missing.json"))
    assert code == 2 and "--receipts" in err


def _rechain(
    clean: str,
    table_id: str,
    version: int,
    change: Callable[[dict[str, Any]], None] = lambda metadata: None,
    hash_version: int | None = None,
) -> None:
    """Change one stored event's metadata (and, with `hash_version`, the hash version of it and every later
    event), then recompute its hash, every later one and the stream head: a rewrite the hash chain alone
    cannot show."""
    with psycopg.connect(clean, row_factory=dict_row) as conn, conn.transaction():
        conn.execute("ALTER TABLE events DISABLE TRIGGER USER")
        rows = conn.execute(
            """SELECT version, type, schema_version, deal_no, data, metadata, occurred_at, prev_hash, hash_version
               FROM events WHERE stream_id = %s AND version >= %s ORDER BY version""",
            (table_id, version),
        ).fetchall()
        prev = str(rows[0]["prev_hash"])
        for row in rows:
            metadata = dict(row["metadata"])
            if row["version"] == version:
                change(metadata)
            form = row["hash_version"] if hash_version is None else hash_version
            fields = hashed_fields(
                table_id,
                row["version"],
                row["type"],
                row["schema_version"],
                row["deal_no"],
                row["data"],
                metadata,
                row["occurred_at"],
                form,
            )
            digest = event_hash(prev, fields)
            conn.execute(
                """UPDATE events SET metadata = %s, prev_hash = %s, hash = %s, hash_version = %s
                   WHERE stream_id = %s AND version = %s""",
                (Jsonb(metadata), prev, digest, form, table_id, row["version"]),
            )
            prev = digest
        conn.execute("UPDATE streams SET last_hash = %s WHERE stream_id = %s", (prev, table_id))
        conn.execute("ALTER TABLE events ENABLE TRIGGER USER")


def test_version_1_events_verify_and_hidden_hands_of_a_running_deal_are_pending(
    api: Api, base_url: str, clean: str, verify: Verify, container: Container
) -> None:
    """Events written before hash version 2: the hash covers the private block, so while the deal runs the
    hands the viewer may not see cannot be hashed (pending); once it has ended everything is checked."""
    table_id, tokens = seated_table(api, "cholek-tiga", 2)
    play_deal(api, table_id, tokens, random.Random(4))
    for token in tokens:
        api.act(token, table_id, {"type": "ready"})
    for _ in range(2):  # a few moves of deal 2, so hidden draws have events after them
        take_turn(api, table_id, tokens, random.Random(5))
    _rechain(clean, table_id, 1, hash_version=1)
    assert {e["hash_version"] for e in _events(clean, table_id)} == {1}
    container.ledger.withheld.clear()  # it keeps what it found of deal 2, which this test rewrote,
    container.ledger.states.clear()  # and the head hash it wrote last
    for token, hidden_from in ((tokens[0], "seat 0 of deals 1-2"), (AUDITOR_TOKEN, "the auditor")):
        code, out, err = verify(base_url, token, table_id, "--json")
        assert code == 0, out + err
        verdict = json.loads(out)
        assert verdict["viewer"] == hidden_from and verdict["hash_versions"] == {"1": verdict["events_checked"]}
        if token == AUDITOR_TOKEN:  # sees every hash; the blocks it may not see yet are pending
            assert any("deal 2 is running" in p and "private block(s) hidden" in p for p in verdict["pending"])
        else:  # every hash of the running deal is withheld from a seat: each chains from a hidden block's
            assert any("deal 2 is running and holds version-1 private blocks" in p for p in verdict["pending"])
        assert verdict["deals"][0]["checks"]["replay"] is True

    # What a seat receives of the running deal: no hash, no prev_hash (each would give a hidden draw away after a
    # few thousand guesses); everything before it, and everything for the auditor, has its hashes.
    def page(token: str) -> list[dict[str, Any]]:
        url = f"/v1/tables/{table_id}/events?after=0&limit=500"
        events: list[dict[str, Any]] = api.client.get(url, headers={"Authorization": f"Bearer {token}"}).get_json()[
            "events"
        ]
        return events

    for token in tokens:
        shown = page(token)
        assert all(e["hash"] is None and e["prev_hash"] is None for e in shown if e["deal_no"] == 2)
        assert all(e["hash"] and e["prev_hash"] for e in shown if e["deal_no"] != 2)
    assert all(e["hash"] and e["prev_hash"] for e in page(AUDITOR_TOKEN))

    # The same for the answer of an action in that deal, and for the live stream.
    answer = take_turn(api, table_id, tokens, random.Random(6))
    assert answer["events"] and all(e["hash"] is None and e["prev_hash"] is None for e in answer["events"])
    from services.api.resources.stream import _message

    body = {"deal_no": 2, "hash": "h", "prev_hash": "p", "type": "card_discarded"}
    assert '"hash":null' in _message(
        "1-1", body, lambda deal_no: container.ledger.withheld.deal_holds_v1_private(table_id, deal_no)
    )
    assert '"hash":"h"' in _message("1-1", body)


def test_receipts_are_checked_against_the_log_and_prove_a_rewritten_history(
    api: Api, base_url: str, clean: str, verify: Verify, tmp_path: Path
) -> None:
    table_id, tokens = seated_table(api, "cholek-tiga", 2)
    answers = play_deal(api, table_id, tokens, random.Random(8))
    receipts = [answer["receipt"] for answer in answers]
    path = tmp_path / "receipts.json"
    path.write_text(json.dumps(receipts))

    code, out, err = verify(base_url, tokens[0], table_id, "--receipts", str(path), "--json")
    assert code == 0, out + err
    checked = json.loads(out)["receipts"]
    assert len(checked) == len(receipts) and all(c["verdict"] == "ok" for c in checked)

    # Someone rewrites the metadata of one event and rechains the log: the chain holds, the receipts do not.
    target = receipts[len(receipts) // 2]["version"]
    _rechain(clean, table_id, target, lambda metadata: metadata.update(actor="someone-else"))
    code, out, err = verify(base_url, tokens[0], table_id, "--receipts", str(path), "--json")
    assert code == 1, out + err
    verdict = json.loads(out)
    assert {f["check"] for f in verdict["failures"]} == {"receipts"}
    first = verdict["first_failure"]
    assert first["position"] == target and "rewritten_history" in first["reason"]

    path.write_text('[{"table_id": 1}]')
    code, _, err = verify(base_url, tokens[0], table_id, "--receipts", str(path))
    assert code == 2 and "receipt 0" in err and err.count("\n") == 1


def test_a_forged_revealed_seed_is_named_at_its_deal_ended(api: Api, base_url: str, clean: str, verify: Verify) -> None:
    table_id, tokens = seated_table(api, "cholek-tiga", 2)
    play_deal(api, table_id, tokens, random.Random(9))
    ended = next(e for e in _events(clean, table_id) if e["type"] == "deal_ended")
    _tamper(clean, table_id, ended["version"], lambda data: data.update(server_seed="00" * 32))
    code, out, err = verify(base_url, tokens[1], table_id)
    assert code == 1, out + err
    assert f"FAILED at event {ended['version']} (deal_ended) deal 1 hash_chain:" in out
    # The commitment fails there too, and the deck recomputed from the forged seed disagrees with the dealt cards
    # (at earlier positions, listed after the event that does not match its hash).
    failures = json.loads(verify(base_url, tokens[1], table_id, "--json")[1])["failures"]
    assert failures[0]["position"] == ended["version"] and failures[0]["check"] == "hash_chain"
    checks = {(f["check"], f["position"] == ended["version"]) for f in failures}
    assert ("commitment", True) in checks and ("deck", False) in checks


def _fake_api(events: list[dict[str, Any]]) -> Callable[..., Any]:
    """A server that answers like the API with the given events (no deals, an empty ledger)."""

    @Request.application  # type: ignore[misc]
    def answer(request: Request) -> Response:
        if request.path.endswith("/events"):
            after = int(request.args.get("after", 0))
            shown = [e for e in events if e.get("position", 0) > after]
            body: Any = {"events": shown, "next_after": after + len(shown)}
        elif request.path.endswith("/ledger"):
            body = {"lines": []}
        else:
            return Response('{"detail": "no seat", "code": "no_seat"}', status=403, mimetype="application/json")
        return Response(json.dumps(body), mimetype="application/json")

    return answer  # type: ignore[no-any-return]


def test_events_the_hash_cannot_be_recomputed_from_are_named(api: Api, verify: Verify) -> None:
    table_id, _ = seated_table(api, "cholek-tiga", 2)
    shown = json.loads(_raw_events(api, table_id))["events"][:3]  # the opening and the seatings
    assert [e["type"] for e in shown] == ["table_opened", "player_seated", "player_seated"]
    shown[1] = {k: v for k, v in shown[1].items() if k != "metadata"}
    shown[2] = {**shown[2], "occurred_at": shown[2]["occurred_at"].replace("Z", "+00:00")}
    for url in _serve(_fake_api(shown)):
        code, out, err = verify(url, "token", table_id, "--json")
        assert code == 1, out + err
        failures = json.loads(out)["failures"]
        assert failures[0]["position"] == 2 and failures[0]["check"] == "format"
        assert "no 'metadata'" in failures[0]["reason"]
        assert failures[1]["position"] == 3 and "canonical form" in failures[1]["reason"]


def _raw_events(api: Api, table_id: str) -> str:
    response = api.client.get(f"/v1/tables/{table_id}/events", headers={"Authorization": f"Bearer {AUDITOR_TOKEN}"})
    assert response.status_code == 200
    return response.get_data(as_text=True)


def test_the_ledger_is_read_page_by_page_and_waited_for_while_its_projection_catches_up(
    api: Api, base_url: str, clean: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The ledger is a projection, a little behind the log: the verifier reads on until it shows the lines of the
    last event read that carries transfers (here the projection runs a second after the verifier began)."""
    monkeypatch.setattr(remote_verify, "LEDGER_PAGE_SIZE", 1)
    table_id, tokens = seated_table(api, "cha-kau-tsz", 3)
    play_deal(api, table_id, tokens, random.Random(12))
    late = threading.Timer(1.0, project, args=(clean,))
    late.start()
    try:
        code = main(["verify", "--url", base_url, "--token", tokens[0], "--table", table_id, "--json"])
    finally:
        late.join()
    out = capsys.readouterr().out
    assert code == 0, out
    verdict = json.loads(out)
    expected = [e for e in _events(clean, table_id) if "transfers" in e["data"]]
    assert verdict["ledger_lines"] == 2 * sum(len(e["data"]["transfers"]) for e in expected) >= 2  # pages of 1
