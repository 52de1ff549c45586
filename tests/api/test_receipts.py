"""Signed receipts on every write, GET /v1/keys, and the dispute report with submitted receipts.

The receipts are checked here with nothing but a public key of GET /v1/keys and cryptography's
Ed25519PublicKey, building the signed message by hand as API.md describes it.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import logging
import random
import re
from typing import Any

import psycopg
import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from flask.testing import FlaskClient

from infra.signing import ReceiptSigner
from infra.storage.postgres import PostgresStorage
from services.api import create_app
from services.app.ledger import CardLedger
from services.bootstrap import Container
from tests.api.conftest import (
    AUDITOR_TOKEN,
    TEST_CONFIG,
    Api,
    Scene,
    bearer,
    bot_action,
    metrics_text,
    play_deal,
    take_turn,
    to_act,
)
from tests.api.test_endpoints import assert_problem
from tests.conftest import register_key

RECEIPT_FIELDS = ["table_id", "version", "hash", "signed_at", "key_id", "signature"]
RFC3339_UTC = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$")


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def listed_keys(client: FlaskClient) -> dict[str, Ed25519PublicKey]:
    response = client.get("/v1/keys")  # no Authorization header
    assert response.status_code == 200, response.get_json()
    return {
        key["key_id"]: Ed25519PublicKey.from_public_bytes(unb64(key["public_key"]))
        for key in response.get_json()["keys"]
    }


def verify(receipt: dict[str, Any], keys: dict[str, Ed25519PublicKey]) -> None:
    """Raises InvalidSignature unless the receipt's signature is valid for its listed key."""
    message = "\n".join(
        ["cardledger-receipt-v1", receipt["table_id"], str(receipt["version"]), receipt["hash"], receipt["signed_at"]]
    ).encode("utf-8")
    keys[receipt["key_id"]].verify(unb64(receipt["signature"]), message)


def log_hashes(api: Api, token: str, table_id: str) -> dict[int, str]:
    events = api.client.get(f"/v1/tables/{table_id}/events?limit=1000", headers=bearer(token)).get_json()["events"]
    return {event["position"]: event["hash"] for event in events}


def test_every_write_answers_a_receipt_that_the_listed_public_key_verifies(api: Api, container: Container) -> None:
    _, alice = api.register("alice")
    _, bob = api.register("bob")
    receipts: list[tuple[str, dict[str, Any], int]] = []  # (what, receipt, version the answer reports)

    opened = api.open_table(alice)
    table = opened["id"]
    receipts.append(("open", opened["receipt"], opened["version"]))
    for token, seat in ((alice, 0), (bob, 1)):
        answer = api.client.post(f"/v1/tables/{table}/seats", json={"seat": seat}, headers=bearer(token))
        assert answer.status_code == 201
        receipts.append(("sit", answer.get_json()["receipt"], answer.get_json()["version"]))
    for answer in play_deal(api, table, [alice, bob], random.Random(11)):
        receipts.append(("action", answer["receipt"], answer["version"]))
    ready = api.act(alice, table, {"type": "ready"})
    receipts.append(("ready", ready["receipt"], ready["version"]))
    closed = api.act(bob, table, {"type": "close"})
    receipts.append(("close", closed["receipt"], closed["version"]))
    assert api.table(alice, table)["status"] == "closed"

    keys = listed_keys(api.client)
    assert container.signer.key_id in keys
    hashes = log_hashes(api, alice, table)
    for what, receipt, version in receipts:
        assert list(receipt) == RECEIPT_FIELDS, what
        assert receipt["table_id"] == table
        assert receipt["version"] == version, what  # the last event the write appended...
        assert hashes[version] == receipt["hash"], what  # ...and its hash in the log
        assert RFC3339_UTC.match(receipt["signed_at"]), receipt["signed_at"]
        verify(receipt, keys)
    assert {what for what, _, _ in receipts} == {"open", "sit", "action", "ready", "close"}


def test_the_keys_list_shape(client: FlaskClient, container: Container) -> None:
    body = client.get("/v1/keys").get_json()
    assert list(body) == ["keys"]
    key = next(key for key in body["keys"] if key["key_id"] == container.signer.key_id)
    assert key == {
        "key_id": container.signer.key_id,
        "algorithm": "Ed25519",
        "public_key": container.signer.public_key,
        "created_at": key["created_at"],
        "endorsed_by": None,  # the first of its chain
        "endorsement": None,
    }
    assert "=" not in key["public_key"] and len(unb64(key["public_key"])) == 32
    assert re.fullmatch(r"ed25519:[0-9a-f]{16}", key["key_id"])
    assert RFC3339_UTC.match(key["created_at"])


def test_an_idempotent_replay_returns_the_original_receipt_byte_for_byte(api: Api, scene: Scene) -> None:
    token = to_act(api, scene.table, [scene.alice, scene.bob])
    action = bot_action(api.view(token, scene.table), random.Random(1))
    first = api.act_raw(token, scene.table, action, key="replay-me")
    assert first.status_code == 201
    again = api.act_raw(token, scene.table, action, key="replay-me")
    assert again.status_code == 201
    first_receipt, again_receipt = first.get_json()["receipt"], again.get_json()["receipt"]
    assert json.dumps(again_receipt) == json.dumps(first_receipt)  # same values, same order
    text = json.dumps(first_receipt, separators=(",", ":"))
    assert text in first.get_data(as_text=True).replace(" ", "").replace("\n", "")
    assert text in again.get_data(as_text=True).replace(" ", "").replace("\n", "")
    verify(again_receipt, listed_keys(api.client))


@pytest.mark.parametrize(
    ("field", "change"),
    [
        ("table_id", lambda v: v[:-1] + ("0" if v[-1] != "0" else "1")),
        ("version", lambda v: v + 1),
        ("hash", lambda v: ("0" if v[0] != "0" else "1") + v[1:]),
        ("signed_at", lambda v: str(int(v[:4]) - 1) + v[4:]),
        ("signature", lambda v: ("A" if v[0] != "A" else "B") + v[1:]),
    ],
)
def test_a_tampered_receipt_fails_verification(api: Api, field: str, change: Any) -> None:
    _, alice = api.register("alice")
    receipt = api.open_table(alice)["receipt"]
    keys = listed_keys(api.client)
    verify(receipt, keys)
    tampered = {**receipt, field: change(receipt[field])}
    assert tampered[field] != receipt[field]
    with pytest.raises(InvalidSignature):
        verify(tampered, keys)


def test_after_a_key_rotation_both_keys_are_listed_and_old_receipts_still_verify(
    api: Api, container: Container
) -> None:
    _, alice = api.register("alice")
    old_receipt = api.open_table(alice)["receipt"]

    new_signer = ReceiptSigner.ephemeral()
    register_key(container.database_url, new_signer, endorser=container.signer)  # `cardledger keys rotate`
    rotated = dataclasses.replace(
        container,
        ledger=CardLedger(PostgresStorage(container.pool, container.store), AUDITOR_TOKEN, new_signer),
        signer=new_signer,
    )
    new_client = create_app(container=rotated, config=TEST_CONFIG).test_client()  # the API restarted, new key
    new_receipt = Api(new_client).open_table(alice)["receipt"]

    assert old_receipt["key_id"] == container.signer.key_id != new_receipt["key_id"] == new_signer.key_id
    listed = new_client.get("/v1/keys").get_json()["keys"]
    ids = [key["key_id"] for key in listed]
    assert ids.index(container.signer.key_id) < ids.index(new_signer.key_id)  # oldest first
    assert listed[ids.index(new_signer.key_id)]["endorsed_by"] == container.signer.key_id
    keys = listed_keys(new_client)
    verify(old_receipt, keys)
    verify(new_receipt, keys)
    # A receipt does not verify under the other key.
    with pytest.raises(InvalidSignature):
        verify({**old_receipt, "key_id": new_signer.key_id}, keys)


def test_the_listed_keys_cannot_be_changed_or_removed(api: Api, clean: str) -> None:
    api.client.get("/v1/keys")
    with psycopg.connect(clean, autocommit=True) as conn:
        listed = conn.execute("SELECT count(*) FROM signing_keys").fetchone()
        for statement in (
            "UPDATE signing_keys SET public_key = 'x'",
            "DELETE FROM signing_keys",
            "TRUNCATE signing_keys",
        ):
            with pytest.raises(psycopg.errors.RestrictViolation):
                conn.execute(statement)
        assert conn.execute("SELECT count(*) FROM signing_keys").fetchone() == listed


def test_the_signing_key_never_appears_in_logs_answers_events_or_metrics(
    api: Api, container: Container, clean: str, caplog: pytest.LogCaptureFixture
) -> None:
    import os

    from infra.signing import SIGNING_KEY_VARIABLE

    caplog.set_level(logging.DEBUG)
    seed_text = os.environ[SIGNING_KEY_VARIABLE]
    seed = unb64(seed_text)
    assert ReceiptSigner.from_seed(seed).key_id == container.signer.key_id  # the key in use is the session's
    renderings = {
        seed_text,
        seed_text.rstrip("="),
        base64.b64encode(seed).decode(),
        base64.b64encode(seed).decode().rstrip("="),
        seed.hex(),
        repr(seed),
    }

    answers: list[str] = []
    _, alice = api.register("alice")
    _, bob = api.register("bob")
    opened = api.client.post("/v1/tables", json={"game": "cholek-tiga", "seats": 2}, headers=bearer(alice))
    answers.append(opened.get_data(as_text=True))
    table = opened.get_json()["id"]
    for token in (alice, bob):
        answers.append(
            api.client.post(f"/v1/tables/{table}/seats", json={}, headers=bearer(token)).get_data(as_text=True)
        )
    answers += [json.dumps(answer) for answer in play_deal(api, table, [alice, bob], random.Random(5))]
    answers.append(api.client.get("/v1/keys").get_data(as_text=True))
    answers.append(metrics_text(api.client))
    answers.append(api.client.get("/openapi.json").get_data(as_text=True))
    answers.append(repr(container) + repr(container.settings) + repr(container.signer))
    with psycopg.connect(clean) as conn:
        answers += [str(row) for row in conn.execute("SELECT data::text, metadata::text FROM events")]
        records = conn.execute("SELECT coalesce(answer, response::json)::text FROM idempotency_keys")
        answers += [str(row) for row in records]
        answers += [str(row) for row in conn.execute("SELECT * FROM signing_keys")]

    assert caplog.records
    logged = [record.getMessage() + repr(record.args) + str(record.__dict__) for record in caplog.records]
    for text in logged + answers:
        for rendering in renderings:
            assert rendering not in text


# --------------------------------------------------------------------------- POST /v1/reports/dispute


def _deal_receipts(api: Api, scene: Scene, actions: int = 4) -> list[dict[str, Any]]:
    rng = random.Random(2)
    return [take_turn(api, scene.table, [scene.alice, scene.bob], rng)["receipt"] for _ in range(actions)]


def test_the_dispute_report_checks_submitted_receipts(api: Api, scene: Scene, container: Container) -> None:
    receipts = _deal_receipts(api, scene)
    hashes = log_hashes(api, scene.alice, scene.table)
    rewritten = container.signer.sign(scene.table, receipts[0]["version"], "f" * 64)  # the service said otherwise
    forged = {**receipts[1], "hash": "e" * 64}
    beyond = container.signer.sign(scene.table, 10_000, "d" * 64)  # a version the log does not hold
    other = Api(api.client).open_table(scene.carol)["receipt"]
    unknown = ReceiptSigner.ephemeral().sign(scene.table, receipts[2]["version"], receipts[2]["hash"])
    submitted = [*receipts, rewritten, forged, beyond, other, unknown]

    response = api.client.post(
        "/v1/reports/dispute",
        json={"table_id": scene.table, "deal_no": 1, "receipts": submitted},
        headers=bearer(scene.bob),
    )
    assert response.status_code == 200, response.get_json()
    body = response.get_json()
    get = api.client.get(f"/v1/reports/dispute?table_id={scene.table}&deal_no=1", headers=bearer(scene.bob))
    assert {k: v for k, v in body.items() if k != "receipts"} == get.get_json()  # the same report, plus receipts
    section = body["receipts"]
    assert section["checked"] == len(submitted) - 1 and section["ignored_other_tables"] == 1
    assert section["ok"] is False and section["rewritten_history"] is True
    results = section["results"]
    assert [r["index"] for r in results] == [0, 1, 2, 3, 4, 5, 6, 8]
    for result, receipt in zip(results[:4], receipts, strict=True):
        assert result["verdict"] == "ok" and result["signature"] == "valid" and result["log"] == "matches"
        assert result["log_hash"] == hashes[receipt["version"]] == receipt["hash"]
        assert result["receipt"] == receipt
    by_index = {r["index"]: r for r in results}
    assert by_index[4]["verdict"] == "rewritten_history" and by_index[4]["log"] == "contradicts"
    assert by_index[4]["log_hash"] == receipts[0]["hash"]
    assert "PROOF OF A REWRITTEN HISTORY" in by_index[4]["explanation"]
    assert by_index[5]["verdict"] == "bad_signature" and by_index[5]["signature"] == "invalid"
    assert by_index[6]["verdict"] == "rewritten_history" and by_index[6]["log"] == "missing"
    assert by_index[8]["verdict"] == "unknown_key"


def test_the_dispute_post_is_authorized_like_the_get(api: Api, scene: Scene) -> None:
    body = {"table_id": scene.table, "deal_no": 1, "receipts": []}
    assert_problem(api.client.post("/v1/reports/dispute", json=body), 401)
    assert_problem(api.client.post("/v1/reports/dispute", json=body, headers=bearer(scene.eve)), 403)
    assert_problem(api.client.post("/v1/reports/dispute", json=body, headers=bearer(scene.carol)), 403)
    auditor = api.client.post("/v1/reports/dispute", json=body, headers=bearer(AUDITOR_TOKEN))
    assert auditor.status_code == 200
    assert auditor.get_json()["receipts"] == {
        "checked": 0,
        "failed": 0,
        "ok": True,
        "rewritten_history": False,
        "ignored_other_tables": 0,
        "results": [],
    }
    missing = {"table_id": scene.table, "deal_no": 7, "receipts": []}
    assert_problem(api.client.post("/v1/reports/dispute", json=missing, headers=bearer(scene.alice)), 404)


def test_the_dispute_post_validates_its_body(api: Api, scene: Scene, container: Container) -> None:
    good = container.signer.sign(scene.table, 1, "a" * 64)

    def post(body: Any) -> Any:
        return api.client.post("/v1/reports/dispute", json=body, headers=bearer(scene.alice))

    base = {"table_id": scene.table, "deal_no": 1}
    no_signature = {k: v for k, v in good.items() if k != "signature"}
    errors = assert_problem(post({**base, "receipts": [good, good, good, no_signature]}), 422)["errors"]
    assert errors["json"]["receipts"]["3"] == {"signature": ["Missing data for required field."]}
    errors = assert_problem(post({**base, "receipts": [{**good, "version": "5"}]}), 422)["errors"]
    assert "version" in errors["json"]["receipts"]["0"]
    errors = assert_problem(post({**base, "receipts": [{**good, "hash": 5}]}), 422)["errors"]
    assert "hash" in errors["json"]["receipts"]["0"]
    assert "receipts" in assert_problem(post(base), 422)["errors"]["json"]
    assert "receipts" in assert_problem(post({**base, "receipts": "x"}), 422)["errors"]["json"]
    assert "extra" in assert_problem(post({**base, "receipts": [], "extra": 1}), 422)["errors"]["json"]
    too_many = assert_problem(post({**base, "receipts": [good] * 1001}), 422)["errors"]
    assert "receipts" in too_many["json"]
    # The most allowed (1000 receipts, a body larger than the API's usual 64 KiB limit) is accepted.
    most = post({**base, "receipts": [good] * 1000})
    assert most.status_code == 200, most.get_data(as_text=True)[:500]
    assert most.get_json()["receipts"]["checked"] == 1000
    bad_json = api.client.post(
        "/v1/reports/dispute", data="{not json", content_type="application/json", headers=bearer(scene.alice)
    )
    assert_problem(bad_json, 400)


def test_no_receipt_where_the_answer_withholds_the_hashes(
    api: Api, scene: Scene, clean: str, container: Container
) -> None:
    """A deal begun before hash version 2 (its private blocks hashed whole) withholds its hashes from players
    while it runs; a receipt would show the hash (and its signature would test guesses of it), so there is none."""
    with psycopg.connect(clean, autocommit=True) as conn, conn.transaction():
        conn.execute("ALTER TABLE events DISABLE TRIGGER USER")
        conn.execute("UPDATE events SET hash_version = 1 WHERE stream_id = %s AND deal_no = 1", (scene.table,))
        conn.execute("ALTER TABLE events ENABLE TRIGGER USER")
    # A process that has not seen the table yet (one that has keeps what it found of the deal).
    fresh = CardLedger(PostgresStorage(container.pool, container.store), AUDITOR_TOKEN, container.signer)
    api = Api(create_app(container=dataclasses.replace(container, ledger=fresh), config=TEST_CONFIG).test_client())
    token = to_act(api, scene.table, [scene.alice, scene.bob])
    action = bot_action(api.view(token, scene.table), random.Random(3))
    first = api.act_raw(token, scene.table, action, key="legacy")
    assert first.status_code == 201, first.get_json()
    answer = first.get_json()
    assert answer["events"] and all(event["hash"] is None for event in answer["events"])
    assert answer["receipt"] is None
    assert api.act_raw(token, scene.table, action, key="legacy").get_json()["receipt"] is None  # the replay too
