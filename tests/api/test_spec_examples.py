"""The document's examples: every request body has some, the main answers too, and each validates against the
schema it illustrates; the typed unions (actions, events, options) accept what the service sends and refuse
what it refuses."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from jsonschema import Draft202012Validator, FormatChecker
from jsonschema.exceptions import ValidationError

from services.api.spec.document import spec_dict

DOCUMENT = spec_dict()
MAIN_ANSWERS = {
    "registerPlayer",
    "openTable",
    "getTable",
    "sit",
    "getSeatView",
    "act",
    "listEvents",
    "getDeal",
    "getLedger",
    "getSettlementReport",
    "listKeys",
}


def validator(schema: dict[str, Any]) -> Draft202012Validator:
    """`schema` of the document, its `$ref`s resolved in the document."""
    return Draft202012Validator(
        {"allOf": [schema], "components": DOCUMENT["components"]}, format_checker=FormatChecker()
    )


def component(name: str) -> Draft202012Validator:
    return validator({"$ref": f"#/components/schemas/{name}"})


def operations() -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, item in DOCUMENT["paths"].items():
        for method, operation in item.items():
            if method != "parameters":
                yield method, path, operation


def examples_of(media: dict[str, Any]) -> list[tuple[str, Any]]:
    found = [(name, example["value"]) for name, example in media.get("examples", {}).items()]
    if "example" in media:
        found.append(("example", media["example"]))
    return found


def test_every_request_body_has_examples_and_they_validate() -> None:
    bodies = 0
    for method, path, operation in operations():
        if "requestBody" not in operation:
            continue
        media = operation["requestBody"]["content"]["application/json"]
        examples = examples_of(media)
        assert examples, (method, path)
        for name, value in examples:
            assert validator(media["schema"]).is_valid(value), (method, path, name)
        bodies += 1
    assert bodies == 5  # registerPlayer, openTable, sit, act, submitDisputeReceipts


def test_main_answers_have_examples_and_they_validate() -> None:
    illustrated = set()
    for _, _, operation in operations():
        for status, response in operation["responses"].items():
            media = response.get("content", {}).get("application/json")
            if not status.startswith("2") or media is None:
                continue
            for name, value in examples_of(media):
                try:
                    validator(media["schema"]).validate(value)
                except ValidationError as error:
                    raise AssertionError(f"{operation['operationId']} example {name}: {error.message}") from error
                illustrated.add(operation["operationId"])
    assert illustrated >= MAIN_ANSWERS, MAIN_ANSWERS - illustrated


@pytest.mark.parametrize(
    ("body", "valid"),
    [
        ({"type": "discard", "card": "7C"}, True),
        ({"type": "discard", "card": "7C", "capture": None}, True),
        ({"type": "discard", "card": "7C", "capture": ["7M"]}, False),
        ({"type": "discard", "card": "KC"}, False),  # a Sampen card is no Cherki card
        ({"type": "capture", "cards": ["4C", "4S"]}, True),
        ({"type": "pass", "card": "4C"}, False),
        ({"type": "play", "cards": ["KC"]}, True),
        ({"type": "play", "cards": []}, False),
        ({"type": "ready"}, True),
        ({"type": "leave", "client_seed": "x"}, False),
        ({"type": "fold"}, False),
    ],
)
def test_actions_are_a_union_by_type(body: dict[str, Any], valid: bool) -> None:
    assert component("Action").is_valid(body) is valid


@pytest.mark.parametrize(
    ("body", "valid"),
    [
        ({"game": "cholek-tiga", "seats": 2}, True),
        ({"game": "cholek-tiga", "seats": 4}, False),
        ({"game": "cha-kau-tsz", "seats": 4}, True),
        ({"game": "cha-kau-tsz", "seats": 1}, False),
        ({"game": "cholek-tiga", "seats": 3, "options": {"honours_rank": "ace", "turn_seconds": 0}}, True),
        ({"game": "cholek-tiga", "seats": 3, "options": {"turn_seconds": 4}}, False),
        ({"game": "cholek-tiga", "seats": 3, "options": {"pool_target_tricks": 9}}, False),
        ({"game": "cha-kau-tsz", "seats": 2, "options": {"pool_target_tricks": 15}}, True),
        ({"game": "cha-kau-tsz", "seats": 3, "options": {"pool_target_tricks": 15}}, False),
        ({"game": "cha-kau-tsz", "seats": 3, "options": {"chip_values": {"white": 1, "red": 5}}}, False),
    ],
)
def test_opening_a_table_is_a_union_by_game(body: dict[str, Any], valid: bool) -> None:
    assert component("TableCreate").is_valid(body) is valid


def test_events_are_a_union_by_type_with_redacted_forms() -> None:
    event = {
        "position": 5,
        "global_position": 5,
        "type": "cards_drawn",
        "deal_no": 1,
        "occurred_at": "2026-12-01T16:26:17.698046Z",
        "data": {"seat": 1, "round": 1, "count": 3, "deck_indexes": [3, 4, 5], "private_commitment": "ab" * 32},
        "metadata": {"actor": "clock"},
        "schema_version": 1,
        "hash_version": 2,
        "prev_hash": "cd" * 32,
        "hash": "ef" * 32,
    }
    events = component("Event")
    assert events.is_valid(event)  # as another seat sees it: no private block
    holder = {**event, "data": {**event["data"], "private": {"cards": ["1C", "OT", "9M"], "salt": "12" * 32}}}
    assert events.is_valid(holder)
    assert not events.is_valid({**event, "data": {"seat": 1}})  # a cards_drawn payload names its deck indexes
    assert not events.is_valid({**event, "type": "card_shuffled"})


def test_an_integral_number_is_that_integer(api: Any, scene: Any) -> None:
    """JSON Schema, so the document, counts 2.0 as the integer 2: so does the service (`strict_json`)."""
    from tests.api.conftest import bearer

    table = api.open_table(scene.eve, seats=2)["id"]
    seated = api.client.post(f"/v1/tables/{table}/seats", json={"seat": 1.0}, headers=bearer(scene.eve))
    assert seated.status_code == 201 and seated.get_json()["seat"] == 1
    half = api.client.post(f"/v1/tables/{table}/seats", json={"seat": 0.5}, headers=bearer(scene.carol))
    assert half.status_code == 422
    opened = api.client.post("/v1/tables", json={"game": "cha-kau-tsz", "seats": 3e0}, headers=bearer(scene.eve))
    assert opened.status_code == 201 and opened.get_json()["seats"] == 3


def test_receipt_notes_are_plain_values(api: Any, scene: Any) -> None:
    from tests.api.conftest import AUDITOR_TOKEN, bearer

    receipt = api.open_table(scene.eve)["receipt"]
    body = {"table_id": receipt["table_id"], "deal_no": 1}
    headers = bearer(AUDITOR_TOKEN)
    for note, refused in (
        ("kept on my phone", False),
        (12, False),
        (None, False),
        ({"nested": 1}, True),
        (1e18, True),  # a float: an integer literal of 19 digits is refused sooner, as a 400
    ):
        response = api.client.post(
            "/v1/reports/dispute", json={**body, "receipts": [{**receipt, "note": note}]}, headers=headers
        )
        assert (response.status_code == 422) is refused, (note, response.get_json())  # else 404: no deal 1 yet


def test_a_last_event_id_beyond_what_redis_holds_is_refused(api: Any, scene: Any) -> None:
    """The document's pattern allows 19 digits a side; 20 could pass 2**64, which Redis refuses mid-stream."""
    from tests.api.conftest import bearer

    url = f"/v1/tables/{scene.table}/stream"
    refused = api.client.get(url, headers={**bearer(scene.alice), "Last-Event-ID": "69357345314938259890-886072"})
    assert refused.status_code == 400 and refused.get_json()["code"] == "invalid_last_event_id"
    kept = api.client.get(url, headers={**bearer(scene.alice), "Last-Event-ID": "9" * 19 + "-0"})
    assert kept.status_code == 200
    kept.close()
