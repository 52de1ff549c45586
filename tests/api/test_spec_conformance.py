"""Every answer of whole deals of both games matches the schema the document gives it: the typed views mid-deal,
action results, events as each kind of caller receives them (the holder, another seat, a bystander, the auditor;
redacted forms included), deal records, ledgers and reports. schemathesis (test_schemathesis.py) cannot reach a
running deal with its one player; these deals can."""

from __future__ import annotations

import random
from typing import Any

import pytest
from flask.testing import FlaskClient
from jsonschema.exceptions import ValidationError

from tests.api.conftest import AUDITOR_TOKEN, Api, bearer, bot_action, project
from tests.api.test_spec_examples import DOCUMENT, validator


def answer_schema(path: str, method: str, status: str) -> dict[str, Any]:
    schema: dict[str, Any] = DOCUMENT["paths"][path][method]["responses"][status]["content"]["application/json"][
        "schema"
    ]
    return schema


def conforms(response: Any, path: str, method: str = "get", status: int = 200) -> dict[str, Any]:
    assert response.status_code == status, response.get_json()
    body: dict[str, Any] = response.get_json()
    try:
        validator(answer_schema(path, method, str(status))).validate(body)
    except ValidationError as error:
        where = "/".join(str(part) for part in error.absolute_path)
        raise AssertionError(f"{method.upper()} {path}: {error.message} at {where}") from error
    return body


def play_checked(client: FlaskClient, table: str, tokens: list[str], rng: random.Random) -> None:
    seat_of = {}
    for token in tokens:
        view = conforms(client.get(f"/v1/tables/{table}/view", headers=bearer(token)), "/v1/tables/{table_id}/view")
        seat_of[view["seat"]] = token
    for _ in range(3000):
        state = conforms(client.get(f"/v1/tables/{table}", headers=bearer(tokens[0])), "/v1/tables/{table_id}")
        if state["status"] != "playing":
            return
        token = seat_of[state["to_act"]]
        view = conforms(client.get(f"/v1/tables/{table}/view", headers=bearer(token)), "/v1/tables/{table_id}/view")
        headers = {**bearer(token), "Idempotency-Key": f"k{state['version']}"}
        result = client.post(f"/v1/tables/{table}/actions", json=bot_action(view, rng), headers=headers)
        conforms(result, "/v1/tables/{table_id}/actions", "post", 201)
    raise AssertionError("the deal did not end")


@pytest.mark.parametrize(
    ("game", "seats", "options"),
    [("cholek-tiga", 3, {"in_play_bonuses": True}), ("cha-kau-tsz", 2, {"pool_target_tricks": 8})],
)
def test_answers_of_a_whole_deal_match_the_document(
    api: Api, clean: str, game: str, seats: int, options: dict[str, Any]
) -> None:
    client = api.client
    tokens = [api.register(f"p{n}")[1] for n in range(seats)]
    _, bystander = api.register("bystander")
    opened = client.post(
        "/v1/tables", json={"game": game, "seats": seats, "options": options}, headers=bearer(tokens[0])
    )
    table = conforms(opened, "/v1/tables", "post", 201)["id"]
    for token in tokens[:-1]:
        conforms(
            client.post(f"/v1/tables/{table}/seats", json={}, headers=bearer(token)),
            "/v1/tables/{table_id}/seats",
            "post",
            201,
        )

    # While the deal runs: the holder, another seat and a bystander each get their own redacted form.
    client.post(f"/v1/tables/{table}/seats", json={}, headers=bearer(tokens[-1]))
    for token in (tokens[0], tokens[1], bystander, AUDITOR_TOKEN):
        conforms(
            client.get(f"/v1/tables/{table}/events?limit=1000", headers=bearer(token)), "/v1/tables/{table_id}/events"
        )

    play_checked(client, table, tokens, random.Random(game))
    project(clean)
    for token in (tokens[0], bystander, AUDITOR_TOKEN):
        conforms(
            client.get(f"/v1/tables/{table}/events?limit=1000", headers=bearer(token)), "/v1/tables/{table_id}/events"
        )
    conforms(
        client.get(f"/v1/tables/{table}/deals/1", headers=bearer(tokens[0])), "/v1/tables/{table_id}/deals/{deal_no}"
    )
    conforms(client.get(f"/v1/tables/{table}/ledger", headers=bearer(tokens[0])), "/v1/tables/{table_id}/ledger")
    conforms(
        client.get(f"/v1/reports/settlement?table_id={table}", headers=bearer(AUDITOR_TOKEN)), "/v1/reports/settlement"
    )
    conforms(
        client.get(f"/v1/reports/dispute?table_id={table}&deal_no=1", headers=bearer(tokens[1])), "/v1/reports/dispute"
    )
    conforms(client.get("/v1/tables?limit=100", headers=bearer(bystander)), "/v1/tables")
    between = conforms(client.get(f"/v1/tables/{table}/view", headers=bearer(tokens[0])), "/v1/tables/{table_id}/view")
    assert {action["type"] for action in between["legal_actions"]} == {"ready", "close", "leave"}
