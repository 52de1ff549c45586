"""Every endpoint of API.md through the Flask test client, against PostgreSQL and Redis."""

from __future__ import annotations

import dataclasses
import inspect
import json
from typing import Any

import redis
from flask import Flask
from flask.testing import FlaskClient

from infra import redis_bus
from services.api import create_app
from services.bootstrap import Container
from tests.api.conftest import AUDITOR_TOKEN, TEST_CONFIG, Api, Scene, bearer, project

PROBLEM = "application/problem+json"


def assert_problem(response: Any, status: int, code: str | None = None) -> dict[str, Any]:
    assert response.status_code == status, (response.status_code, response.get_data(as_text=True))
    assert response.mimetype == PROBLEM
    body: dict[str, Any] = response.get_json(force=True)
    assert {"type", "title", "status", "detail", "code"} <= set(body)
    assert body["status"] == status
    if code is not None:
        assert body["code"] == code, body
    return body


def test_register_player(client: FlaskClient) -> None:
    response = client.post("/v1/players", json={"name": "alice"})
    assert response.status_code == 201
    body = response.get_json()
    assert set(body) == {"id", "name", "token"}
    assert body["name"] == "alice"
    assert body["token"].startswith(body["id"] + ".")


def test_register_rejects_bad_names(client: FlaskClient) -> None:
    assert_problem(client.post("/v1/players", json={}), 422, "validation_error")
    assert_problem(client.post("/v1/players", json={"name": ""}), 422)
    assert_problem(client.post("/v1/players", json={"name": 5}), 422)
    assert_problem(client.post("/v1/players", json={"name": "x\u0000y"}), 422)
    assert_problem(client.post("/v1/players", json={"name": "a", "admin": True}), 422)


def test_open_table_returns_the_table_with_the_next_deal_commitment(api: Api) -> None:
    _, token = api.register()
    response = api.client.post(
        "/v1/tables", json={"game": "cha-kau-tsz", "seats": 3, "options": {}}, headers=bearer(token)
    )
    assert response.status_code == 201
    table = response.get_json()
    assert table["game"] == "cha-kau-tsz"
    assert table["seats"] == 3
    assert table["status"] == "open"
    assert table["players"] == [None, None, None]
    assert table["next_deal"]["deal_no"] == 1
    assert len(table["next_deal"]["commitment"]) == 64
    assert response.headers["ETag"] == f'"{table["version"]}"'
    assert table["options"]["pool_target_tricks"] == 9


def test_open_table_validates_game_seats_and_options(api: Api) -> None:
    _, token = api.register()
    post = lambda body: api.client.post("/v1/tables", json=body, headers=bearer(token))  # noqa: E731
    assert_problem(post({"game": "poker", "seats": 2}), 422)
    assert_problem(post({"game": "cholek-tiga", "seats": "2"}), 422)
    assert_problem(post({"game": "cholek-tiga", "seats": 9}), 422)
    assert_problem(post({"game": "cholek-tiga", "seats": 2, "options": {"nope": 1}}), 422, "unknown_option")
    assert_problem(post({"game": "cholek-tiga", "seats": 2, "options": {"point_value_cents": -5}}), 422)
    assert_problem(post({"game": "cha-kau-tsz", "seats": 3, "options": {"pool_target_tricks": 2}}), 422)
    assert_problem(post({"game": "cholek-tiga", "seats": 2, "options": []}), 422)


def test_table_state_etag_and_conditional_get(api: Api) -> None:
    _, token = api.register()
    table = api.open_table(token)
    response = api.client.get(f"/v1/tables/{table['id']}", headers=bearer(token))
    assert response.status_code == 200
    etag = response.headers["ETag"]
    assert etag == f'"{response.get_json()["version"]}"'
    cached = api.client.get(f"/v1/tables/{table['id']}", headers={**bearer(token), "If-None-Match": etag})
    assert cached.status_code == 304
    assert cached.headers["ETag"] == etag
    stale = api.client.get(f"/v1/tables/{table['id']}", headers={**bearer(token), "If-None-Match": '"999"'})
    assert stale.status_code == 200


def test_min_version_reads_your_writes(api: Api) -> None:
    _, alice = api.register()
    _, bob = api.register()
    table = api.open_table(alice)["id"]
    api.sit(alice, table)
    seated = api.client.post(f"/v1/tables/{table}/seats", json={}, headers=bearer(bob)).get_json()
    response = api.client.get(f"/v1/tables/{table}?min_version={seated['version']}", headers=bearer(alice))
    assert response.status_code == 200
    assert response.get_json()["version"] >= seated["version"]
    assert response.get_json()["status"] == "playing"
    assert_problem(api.client.get(f"/v1/tables/{table}?min_version=-1", headers=bearer(alice)), 422)


def test_unknown_table_is_404(api: Api) -> None:
    _, token = api.register()
    missing = "00000000-0000-4000-8000-000000000000"
    assert_problem(api.client.get(f"/v1/tables/{missing}", headers=bearer(token)), 404, "table_not_found")
    assert_problem(api.client.get("/v1/tables/not-a-uuid", headers=bearer(token)), 404)


def test_sitting_down_starts_the_deal_when_full(api: Api) -> None:
    alice_id, alice = api.register("alice")
    bob_id, bob = api.register("bob")
    _, carol = api.register("carol")
    table = api.open_table(alice)["id"]
    response = api.client.post(f"/v1/tables/{table}/seats", json={"seat": 1}, headers=bearer(alice))
    assert response.status_code == 201
    assert response.get_json()["seat"] == 1
    assert_problem(
        api.client.post(f"/v1/tables/{table}/seats", json={"seat": 1}, headers=bearer(bob)), 409, "seat_taken"
    )
    assert_problem(api.client.post(f"/v1/tables/{table}/seats", json={}, headers=bearer(alice)), 409, "already_seated")
    assert_problem(api.client.post(f"/v1/tables/{table}/seats", json={"seat": 7}, headers=bearer(bob)), 422)
    assert api.sit(bob, table) == 0
    assert_problem(api.client.post(f"/v1/tables/{table}/seats", json={}, headers=bearer(carol)), 409, "table_full")
    state = api.table(alice, table)
    assert state["status"] == "playing"
    assert state["deal_no"] == 1
    assert state["players"] == [{"id": bob_id, "name": "bob"}, {"id": alice_id, "name": "alice"}]
    assert "stock_remaining" in state and "hand" not in state


def test_seat_view_has_hand_and_legal_actions(scene: Scene, api: Api) -> None:
    view = api.view(scene.alice, scene.table)
    assert view["seat"] == 0
    assert isinstance(view["hand"], list) and view["hand"]
    to_act = view["to_act"]
    mine = view if to_act == 0 else api.view(scene.bob, scene.table)
    assert mine["legal_actions"]
    response = api.client.get(f"/v1/tables/{scene.table}/view", headers=bearer(scene.alice))
    assert response.headers["ETag"] == f'"{view["version"]}"'
    again = api.client.get(
        f"/v1/tables/{scene.table}/view", headers={**bearer(scene.alice), "If-None-Match": response.headers["ETag"]}
    )
    assert again.status_code == 304
    assert_problem(api.client.get(f"/v1/tables/{scene.table}/view", headers=bearer(scene.eve)), 403)
    assert_problem(api.client.get(f"/v1/tables/{scene.table}/view", headers=bearer(AUDITOR_TOKEN)), 403)


def _to_act_token(scene: Scene, api: Api) -> tuple[str, str, dict[str, Any]]:
    state = api.table(scene.alice, scene.table)
    token, other = (scene.alice, scene.bob) if state["to_act"] == 0 else (scene.bob, scene.alice)
    return token, other, api.view(token, scene.table)


def test_action_appends_events_and_checks_turn_and_rules(scene: Scene, api: Api) -> None:
    token, other, view = _to_act_token(scene, api)
    action = view["legal_actions"][0]
    assert_problem(api.act_raw(other, scene.table, action), 409, "not_your_turn")
    assert_problem(api.act_raw(token, scene.table, {"type": "discard", "card": "ZZ", "capture": None}), 422)
    result = api.act(token, scene.table, action)
    assert result["version"] > view["version"]
    assert result["events"] and all(e["position"] <= result["version"] for e in result["events"])
    assert {"position", "global_position", "type", "deal_no", "occurred_at", "data", "prev_hash", "hash"} <= set(
        result["events"][0]
    )
    assert_problem(api.act_raw(scene.eve, scene.table, {"type": "pass"}), 403, "not_seated")
    assert_problem(api.act_raw(AUDITOR_TOKEN, scene.table, {"type": "pass"}), 403, "auditor_cannot_act")


def test_action_headers(scene: Scene, api: Api) -> None:
    token, _, view = _to_act_token(scene, api)
    action = view["legal_actions"][0]
    url = f"/v1/tables/{scene.table}/actions"
    missing = api.client.post(url, json=action, headers=bearer(token))
    assert_problem(missing, 400, "invalid_header")
    too_long = api.client.post(url, json=action, headers={**bearer(token), "Idempotency-Key": "k" * 129})
    assert_problem(too_long, 400)
    bad_match = api.act_raw(token, scene.table, action, If_Match="yesterday")
    assert_problem(bad_match, 400, "invalid_if_match")
    stale = api.act_raw(token, scene.table, action, If_Match=f'"{view["version"] - 1}"')
    assert_problem(stale, 412, "version_mismatch")
    ok = api.act_raw(token, scene.table, action, If_Match=f'"{view["version"]}"')
    assert ok.status_code == 201


def test_unknown_action_fields_are_422(scene: Scene, api: Api) -> None:
    token, _, _ = _to_act_token(scene, api)
    assert_problem(api.act_raw(token, scene.table, {"type": "fold"}), 422, "validation_error")
    assert_problem(api.act_raw(token, scene.table, {"type": "pass", "extra": 1}), 422)
    assert_problem(api.act_raw(token, scene.table, {"type": "discard", "card": 5}), 422)


def test_events_are_paginated(scene: Scene, api: Api) -> None:
    response = api.client.get(f"/v1/tables/{scene.table}/events?limit=2", headers=bearer(scene.eve))
    assert response.status_code == 200
    page = response.get_json()
    assert [e["position"] for e in page["events"]] == [1, 2]
    assert page["next_after"] == 2
    rest = api.client.get(f"/v1/tables/{scene.table}/events?after=2", headers=bearer(scene.eve)).get_json()
    assert rest["events"][0]["position"] == 3
    assert rest["events"][0]["prev_hash"] == page["events"][-1]["hash"]
    assert_problem(api.client.get(f"/v1/tables/{scene.table}/events?limit=0", headers=bearer(scene.eve)), 422)
    assert_problem(api.client.get(f"/v1/tables/{scene.table}/events?after=x", headers=bearer(scene.eve)), 422)


def test_lobby_lists_tables_with_cursor(api: Api, clean: str) -> None:
    _, token = api.register()
    ids = [api.open_table(token)["id"] for _ in range(3)]
    ckt = api.open_table(token, game="cha-kau-tsz", seats=3)["id"]
    project(clean)
    first = api.client.get("/v1/tables?limit=2", headers=bearer(token)).get_json()
    assert [t["id"] for t in first["tables"]] == ids[:2]
    assert first["next_after"] is not None
    second = api.client.get(f"/v1/tables?limit=2&after={first['next_after']}", headers=bearer(token)).get_json()
    assert [t["id"] for t in second["tables"]] == [ids[2], ckt]
    assert second["next_after"] is None
    only_ckt = api.client.get("/v1/tables?game=cha-kau-tsz", headers=bearer(token)).get_json()
    assert [t["id"] for t in only_ckt["tables"]] == [ckt]
    open_ones = api.client.get("/v1/tables?status=open", headers=bearer(token)).get_json()
    assert len(open_ones["tables"]) == 4
    assert api.client.get("/v1/tables?status=closed", headers=bearer(token)).get_json()["tables"] == []
    assert_problem(api.client.get("/v1/tables?status=maybe", headers=bearer(token)), 422)
    assert_problem(api.client.get("/v1/tables?limit=1000", headers=bearer(token)), 422)


def test_stream_sends_public_events(scene: Scene, api: Api, container: Container, clean: str) -> None:
    recorded = container.store.read_stream(scene.table)
    redis_bus.publish(container.redis, recorded)
    response = api.client.get(f"/v1/tables/{scene.table}/stream?after=0", headers=bearer(scene.eve))
    assert response.status_code == 200
    assert response.mimetype == "text/event-stream"
    text = response.get_data(as_text=True)
    data = [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: ")]
    assert [d["position"] for d in data] == [e.version for e in recorded]
    assert all("private" not in d["data"] for d in data)
    ids = [line[4:] for line in text.splitlines() if line.startswith("id: ")]
    resumed = api.client.get(
        f"/v1/tables/{scene.table}/stream", headers={**bearer(scene.alice), "Last-Event-ID": ids[2]}
    ).get_data(as_text=True)
    positions = [json.loads(line[6:])["position"] for line in resumed.splitlines() if line.startswith("data: ")]
    assert positions == [e.version for e in recorded][3:]
    live = api.client.get(f"/v1/tables/{scene.table}/stream", headers=bearer(scene.alice)).get_data(as_text=True)
    assert ": heartbeat" in live
    assert "data: " not in live.split("\n\n", 1)[1]
    bad = api.client.get(f"/v1/tables/{scene.table}/stream", headers={**bearer(scene.alice), "Last-Event-ID": "x"})
    assert_problem(bad, 400)


def test_an_idle_stream_keeps_beating_when_the_heartbeat_outlasts_the_redis_socket_timeout(
    scene: Scene, container: Container
) -> None:
    """The blocking read must end before the Redis client's socket timeout, or an idle stream breaks off with
    stream_unavailable (the service's client times out at 10 s, and the default heartbeat is 15 s)."""
    short = redis.Redis.from_url(container.redis_url, socket_timeout=0.3, socket_connect_timeout=2)
    try:
        app = create_app(
            container=dataclasses.replace(container, redis=short),
            config={**TEST_CONFIG, "SSE_HEARTBEAT_SECONDS": 1.0, "SSE_MAX_SECONDS": 1.6},
        )
        text = (
            app.test_client()
            .get(f"/v1/tables/{scene.table}/stream", headers=bearer(scene.alice))
            .get_data(as_text=True)
        )
    finally:
        short.close()
    assert "stream_unavailable" not in text
    assert text.count(": heartbeat") >= 2
    assert text.rstrip().endswith("connection lifetime reached; reconnect with Last-Event-ID")


def test_no_view_or_hook_is_a_coroutine_function(app: Flask) -> None:
    """The app serves WSGI only: an async view or hook would need Flask's async extra and a thread per call."""
    functions: list[Any] = list(app.view_functions.values())
    for registry in (
        app.before_request_funcs,
        app.after_request_funcs,
        app.teardown_request_funcs,
        app.url_value_preprocessors,
        app.url_default_functions,
        app.template_context_processors,
    ):
        functions += [function for chain in registry.values() for function in chain]
    functions += [
        handler
        for by_code in app.error_handler_spec.values()
        for by_class in by_code.values()
        for handler in by_class.values()
    ]
    assert len(functions) > 30
    assert [f for f in functions if inspect.iscoroutinefunction(inspect.unwrap(f))] == []
