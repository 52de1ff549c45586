"""No hash oracle: whatever one answer withholds, no other tells.

A deal begun before hash version 2 hashed its private blocks whole, so while it runs its hashes are withheld from
the players (a hash would let a seat test guesses of another seat's cards). This test is a seat of such a deal
walking every operation of api-spec/openapi.json that can answer a hash of the log (each GET, the dispute report
with receipts posted for every version of the deal, an action asking for its representation, the seat view's
stream) and looking for any of the deal's hashes in every byte it receives. The live event stream is left out:
it carries events as the relay publishes them, each without metadata and so without a recomputable hash, and its
own filter hides a withheld deal's hashes (tests/api/test_seat_pushes.py)."""

from __future__ import annotations

import dataclasses
import json
import random
from pathlib import Path

import psycopg
from flask.testing import FlaskClient

from infra.storage.postgres import PostgresStorage
from services.api import create_app
from services.app.ledger import CardLedger
from services.bootstrap import Container
from tests.api.conftest import AUDITOR_TOKEN, TEST_CONFIG, Api, Scene, bearer, bot_action, to_act
from tests.api.test_remote_verify import _rechain
from tests.api.test_seat_view_stream import LIVE_CONFIG, Messages

SPEC = Path(__file__).resolve().parents[2] / "api-spec" / "openapi.json"
LEFT_OUT = {"/v1/tables/{table_id}/stream"}  # see the module's docstring


def deal_hashes(url: str, table_id: str, deal_no: int) -> set[str]:
    with psycopg.connect(url) as conn:
        rows = conn.execute("SELECT hash FROM events WHERE stream_id = %s AND deal_no = %s", (table_id, deal_no))
        return {str(row[0]) for row in rows}


def make_deal_version_one(url: str, table_id: str) -> None:
    """Deal 1's events rewritten as hash version 1 wrote them (the private blocks hashed whole), chain recomputed:
    a deal begun before the upgrade, still running after it."""
    with psycopg.connect(url) as conn:
        row = conn.execute(
            "SELECT min(version) FROM events WHERE stream_id = %s AND deal_no = 1", (table_id,)
        ).fetchone()
    assert row is not None
    _rechain(url, table_id, int(row[0]), hash_version=1)


def fresh_client(container: Container, config: dict[str, object]) -> FlaskClient:
    """An API process that has not seen the table yet (one that has keeps what it found of the deal)."""
    fresh = CardLedger(PostgresStorage(container.pool, container.store), AUDITOR_TOKEN, container.signer)
    app = create_app(container=dataclasses.replace(container, ledger=fresh), config=config)
    return app.test_client()


def fill(path: str, table_id: str) -> str:
    return path.replace("{table_id}", table_id).replace("{deal_no}", "1")


def test_a_seat_of_a_running_version_one_deal_finds_none_of_its_hashes_anywhere(
    api: Api, scene: Scene, clean: str, container: Container
) -> None:
    make_deal_version_one(clean, scene.table)
    client = fresh_client(container, TEST_CONFIG)
    hidden = deal_hashes(clean, scene.table, 1)
    assert hidden
    token = to_act(Api(client), scene.table, [scene.alice, scene.bob])
    received: dict[str, str] = {}

    spec = json.loads(SPEC.read_text(encoding="utf-8"))
    walked = []
    for path, operations in spec["paths"].items():
        if "get" not in operations or path in LEFT_OUT or "stream" in path:
            continue
        walked.append(path)
        query = {"table_id": scene.table, "deal_no": 1} if path.startswith("/v1/reports/dispute") else {}
        for accept in ("application/json", "text/html", "text/csv"):
            answer = client.get(
                fill(path, scene.table), query_string=query, headers={**bearer(token), "Accept": accept}
            )
            received[f"GET {path} ({accept}) {answer.status_code}"] = answer.get_data(as_text=True)
    assert "/v1/tables/{table_id}/events" in walked and "/v1/reports/dispute" in walked

    # Receipts made up for every version of the deal, under a key of the caller's own.
    with psycopg.connect(clean) as conn:
        versions = [
            row[0]
            for row in conn.execute("SELECT version FROM events WHERE stream_id = %s AND deal_no = 1", (scene.table,))
        ]
    made_up = [
        {
            "table_id": scene.table,
            "version": v,
            "hash": "0" * 64,
            "signed_at": "2026-12-01T00:00:00.000000Z",
            "key_id": "ed25519:0000000000000000",
            "signature": "A" * 86,
        }
        for v in versions
    ]
    answer = client.post(
        "/v1/reports/dispute",
        json={"table_id": scene.table, "deal_no": 1, "receipts": made_up},
        headers=bearer(token),
    )
    assert answer.status_code == 200, answer.get_data(as_text=True)
    assert {r["verdict"] for r in answer.get_json()["receipts"]["results"]} == {"withheld"}
    received["POST /v1/reports/dispute"] = answer.get_data(as_text=True)

    action = bot_action(Api(client).view(token, scene.table), random.Random(3))
    answer = client.post(
        f"/v1/tables/{scene.table}/actions",
        json=action,
        headers={**bearer(token), "Idempotency-Key": "oracle", "Prefer": "return=representation"},
    )
    assert answer.status_code == 201, answer.get_json()
    received["POST /v1/tables/{table_id}/actions"] = answer.get_data(as_text=True)
    hidden |= deal_hashes(clean, scene.table, 1)  # the action's own events

    streamer = fresh_client(container, LIVE_CONFIG)
    stream = Messages(streamer, scene.table, token)
    try:
        received["GET /v1/tables/{table_id}/view/stream"] = json.dumps(stream.view()[1])
    finally:
        stream.close()

    leaks = sorted({what for what, text in received.items() for h in hidden if h in text})
    assert leaks == [], "\n".join(leaks)
    # The auditor, who may see them, does: the search above would have found them.
    auditor = client.get(f"/v1/tables/{scene.table}/events", headers=bearer(AUDITOR_TOKEN)).get_data(as_text=True)
    assert all(h in auditor for h in hidden)
