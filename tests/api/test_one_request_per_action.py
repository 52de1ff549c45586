"""One request per action for a client that holds its view: `Prefer: return=representation` on the writes
(the answer carries the caller's new seat view) and the long-poll read (`wait_for_version`)."""

from __future__ import annotations

import dataclasses
import json
import threading
from typing import Any

import redis
from flask import Flask
from redis.connection import AbstractConnection

from infra import redis_bus
from services.api import create_app
from services.bootstrap import Container
from tests.api.conftest import TEST_CONFIG, Api, Scene, bearer
from tests.redis_commands import client_with, command_names

REPRESENTATION = {"Prefer": "return=representation"}


def seats_by_turn(api: Api, scene: Scene) -> tuple[str, str]:
    """(the token of the seat to act, the other seat's token) at the scene's running table."""
    to_act = api.table(scene.alice, scene.table)["to_act"]
    return (scene.alice, scene.bob) if to_act == 0 else (scene.bob, scene.alice)


def first_legal(api: Api, token: str, table_id: str) -> dict[str, Any]:
    action: dict[str, Any] = api.view(token, table_id)["legal_actions"][0]
    if action.get("type") == "play" and "count" in action:
        return {"type": "play", "cards": api.view(token, table_id)["hand"][: int(action["count"])]}
    return action


def test_without_the_preference_the_answer_is_unchanged(scene: Scene, api: Api) -> None:
    mover, _ = seats_by_turn(api, scene)
    response = api.act_raw(mover, scene.table, first_legal(api, mover, scene.table))
    assert response.status_code == 201
    assert set(response.get_json()) == {"version", "events", "receipt"}
    assert "Preference-Applied" not in response.headers


def test_an_action_answers_the_actors_new_seat_view(scene: Scene, api: Api) -> None:
    mover, waiter = seats_by_turn(api, scene)
    response = api.act_raw(mover, scene.table, first_legal(api, mover, scene.table), **REPRESENTATION)
    assert response.status_code == 201, response.get_json()
    assert response.headers["Preference-Applied"] == "return=representation"
    answer = response.get_json()
    assert answer["view"] == api.view(mover, scene.table), "exactly what GET /view answers at the new version"
    assert answer["view"]["version"] == answer["version"]
    assert {"version", "events", "receipt"} <= set(answer)
    other = api.view(waiter, scene.table)
    assert answer["view"]["seat"] != other["seat"]
    text = response.get_data(as_text=True)
    assert json.dumps(other["hand"]) not in text and json.dumps(sorted(other["hand"])) not in text


def test_a_replay_answers_the_view_now(scene: Scene, api: Api) -> None:
    mover, waiter = seats_by_turn(api, scene)
    action = first_legal(api, mover, scene.table)
    first = api.act_raw(mover, scene.table, action, key="replayed-key", **REPRESENTATION).get_json()
    api.act(waiter, scene.table, first_legal(api, waiter, scene.table))
    replay = api.act_raw(mover, scene.table, action, key="replayed-key", **REPRESENTATION)
    assert replay.status_code == 201
    assert replay.headers["Preference-Applied"] == "return=representation"
    body = replay.get_json()
    assert {k: v for k, v in body.items() if k != "view"} == {k: v for k, v in first.items() if k != "view"}
    assert body["view"] == api.view(mover, scene.table)
    assert body["view"]["version"] > first["version"], "the view now, not the view of the first answer"


def test_sit_and_ready_answer_the_view_and_leave_answers_none(api: Api) -> None:
    _, alice = api.register("alice")
    _, bob = api.register("bob")
    table = api.open_table(alice)["id"]
    seated = api.client.post(f"/v1/tables/{table}/seats", json={"seat": 0}, headers={**bearer(alice), **REPRESENTATION})
    assert seated.status_code == 201
    assert seated.headers["Preference-Applied"] == "return=representation"
    assert seated.get_json()["view"] == api.view(alice, table)
    assert seated.get_json()["view"]["seat"] == 0
    plain = api.client.post(f"/v1/tables/{table}/seats", json={"seat": 1}, headers=bearer(bob))
    assert set(plain.get_json()) == {"seat", "version", "receipt"}
    # Play the deal out, then `ready` with the preference; `leave` has no seat view to answer.
    tokens = {0: alice, 1: bob}
    while (state := api.table(alice, table))["status"] == "playing":
        token = tokens[state["to_act"]]
        api.act(token, table, first_legal(api, token, table))
    ready = api.act_raw(alice, table, {"type": "ready"}, **REPRESENTATION)
    assert ready.status_code == 201, ready.get_json()
    assert ready.get_json()["view"] == api.view(alice, table)
    left = api.act_raw(bob, table, {"type": "leave"}, **REPRESENTATION)
    assert left.status_code == 201, left.get_json()
    assert "view" not in left.get_json() and "Preference-Applied" not in left.headers


def test_unknown_or_malformed_preferences_are_ignored(scene: Scene, api: Api) -> None:
    mover, _ = seats_by_turn(api, scene)
    for prefer in ("return=minimal", "respond-async, wait=x", ";;,=,", "return"):
        response = api.act_raw(mover, scene.table, {"type": "play", "cards": []}, Prefer=prefer)
        assert response.status_code in (409, 422), response.get_json()
    response = api.act_raw(
        mover, scene.table, first_legal(api, mover, scene.table), Prefer='wait=3, RETURN="Representation"; x=1'
    )
    assert response.status_code == 201 and "view" in response.get_json()


# Long-poll ---------------------------------------------------------------------------------------------------------


class NotingConnection(AbstractConnection):
    """A connection that notes when a blocking stream read is sent on it (the process's reader of the tables'
    streams sends its XREAD on a connection of its own)."""

    waiting = threading.Event()

    def send_packed_command(self, command: Any, check_health: bool = True) -> None:
        if "XREAD" in command_names(command):
            self.waiting.set()
        super().send_packed_command(command, check_health)


class NotingRedis(redis.Redis):
    """A Redis client that notes when a blocking stream read starts (a long-poll is waiting)."""

    waiting: threading.Event


def noting_app(container: Container, **config: Any) -> tuple[Flask, NotingRedis]:
    client = client_with(container.redis_url, NotingConnection, NotingRedis, socket_timeout=10)
    client.waiting = NotingConnection.waiting = threading.Event()
    app = create_app(container=dataclasses.replace(container, redis=client), config={**TEST_CONFIG, **config})
    return app, client


def test_a_waiting_seat_is_answered_when_the_other_seat_acts(scene: Scene, api: Api, container: Container) -> None:
    app, noting = noting_app(container, LONG_POLL_SECONDS=60)
    mover, waiter = seats_by_turn(api, scene)
    version = api.view(waiter, scene.table)["version"]
    answered: dict[str, Any] = {}

    def wait() -> None:
        response = app.test_client().get(
            f"/v1/tables/{scene.table}/view?wait_for_version={version + 1}",
            headers={**bearer(waiter), "If-None-Match": f'"{version}"'},
        )
        answered["status"], answered["body"] = response.status_code, response.get_json()

    thread = threading.Thread(target=wait)
    thread.start()
    try:
        assert noting.waiting.wait(30), "the long-poll did not wait on the table's stream"
        acted = api.act(mover, scene.table, first_legal(api, mover, scene.table))
        redis_bus.publish(container.redis, container.store.read_stream(scene.table, from_version=version + 1))
        thread.join(30)  # far below the 60 s wait: only the publication can have answered it
        assert not thread.is_alive(), "the long-poll was not answered when the table moved on"
    finally:
        thread.join()
        redis_bus.close(noting)  # its long-polls' reader stops first
    assert answered["status"] == 200
    assert answered["body"]["version"] == acted["version"]
    assert answered["body"] == api.view(waiter, scene.table)


def test_a_long_poll_on_the_public_state_is_answered_too(scene: Scene, api: Api, container: Container) -> None:
    app, noting = noting_app(container, LONG_POLL_SECONDS=60)
    mover, _ = seats_by_turn(api, scene)
    version = api.table(scene.eve, scene.table)["version"]
    answered: dict[str, Any] = {}

    def wait() -> None:
        response = app.test_client().get(
            f"/v1/tables/{scene.table}?wait_for_version={version + 1}", headers=bearer(scene.eve)
        )
        answered["status"], answered["body"] = response.status_code, response.get_json()

    thread = threading.Thread(target=wait)
    thread.start()
    try:
        assert noting.waiting.wait(30)
        acted = api.act(mover, scene.table, first_legal(api, mover, scene.table))
        redis_bus.publish(container.redis, container.store.read_stream(scene.table, from_version=version + 1))
        thread.join(30)
        assert not thread.is_alive()
    finally:
        thread.join()
        redis_bus.close(noting)  # its long-polls' reader stops first
    assert answered["status"] == 200 and answered["body"]["version"] == acted["version"]
    assert "hand" not in answered["body"]


def test_a_version_already_reached_is_answered_without_waiting(scene: Scene, api: Api, container: Container) -> None:
    app, noting = noting_app(container, LONG_POLL_SECONDS=60)
    try:
        version = api.view(scene.alice, scene.table)["version"]
        response = app.test_client().get(
            f"/v1/tables/{scene.table}/view?wait_for_version={version}", headers=bearer(scene.alice)
        )
    finally:
        redis_bus.close(noting)  # its long-polls' reader stops first
    assert response.status_code == 200 and response.get_json()["version"] == version
    assert not noting.waiting.is_set()


def test_a_long_poll_that_times_out_answers_the_current_view(scene: Scene, api: Api, container: Container) -> None:
    app, noting = noting_app(container, LONG_POLL_SECONDS=60)
    try:
        client = app.test_client()
        view = api.view(scene.alice, scene.table)
        path = f"/v1/tables/{scene.table}/view?wait_for_version={view['version'] + 1}"
        timed_out = client.get(path, headers={**bearer(scene.alice), "Prefer": "wait=1"})
        assert noting.waiting.is_set()
        assert timed_out.status_code == 200 and timed_out.get_json() == view
        assert timed_out.headers["ETag"] == f'"{view["version"]}"'
        unchanged = client.get(
            path, headers={**bearer(scene.alice), "Prefer": "wait=1", "If-None-Match": f'"{view["version"]}"'}
        )
        assert unchanged.status_code == 304
    finally:
        redis_bus.close(noting)  # its long-polls' reader stops first


def test_the_servers_wait_bounds_a_longer_preference(scene: Scene, api: Api, container: Container) -> None:
    app, noting = noting_app(container, LONG_POLL_SECONDS=1)
    try:
        version = api.table(scene.alice, scene.table)["version"]
        response = app.test_client().get(
            f"/v1/tables/{scene.table}?wait_for_version={version + 5}",
            headers={**bearer(scene.alice), "Prefer": "wait=3600"},
        )
    finally:
        redis_bus.close(noting)  # its long-polls' reader stops first
    assert response.status_code == 200 and response.get_json()["version"] == version


def test_long_poll_checks_its_arguments_and_the_seat(scene: Scene, api: Api) -> None:
    for bad in ("-1", "x", str(2**31)):
        response = api.client.get(f"/v1/tables/{scene.table}/view?wait_for_version={bad}", headers=bearer(scene.alice))
        assert response.status_code == 422, response.get_json()
    no_seat = api.client.get(f"/v1/tables/{scene.table}/view?wait_for_version=1000", headers=bearer(scene.eve))
    assert no_seat.status_code == 403
    missing = api.client.get(
        "/v1/tables/00000000-0000-4000-8000-000000000000?wait_for_version=1000", headers=bearer(scene.eve)
    )
    assert missing.status_code == 404


def test_a_long_poll_without_redis_is_a_503_with_retry_after(scene: Scene, api: Api, container: Container) -> None:
    gone = redis.Redis(host="127.0.0.1", port=1, socket_connect_timeout=1)
    app = create_app(container=dataclasses.replace(container, redis=gone), config=TEST_CONFIG)
    version = api.table(scene.alice, scene.table)["version"]
    response = app.test_client().get(
        f"/v1/tables/{scene.table}?wait_for_version={version + 1}", headers=bearer(scene.alice)
    )
    assert response.status_code == 503, response.get_json()
    assert response.get_json()["code"] == "stream_unavailable"
    assert response.headers["Retry-After"] == "5"
