"""Idempotent retries and optimistic concurrency (If-Match) through the API."""

from __future__ import annotations

import threading
from typing import Any

from flask import Flask

from tests.api.conftest import Api, Scene, bearer
from tests.api.test_endpoints import assert_problem


def _mover(api: Api, scene: Scene) -> tuple[str, dict[str, Any]]:
    state = api.table(scene.alice, scene.table)
    token = scene.alice if state["to_act"] == 0 else scene.bob
    return token, api.view(token, scene.table)


def _event_count(api: Api, scene: Scene) -> int:
    page = api.client.get(f"/v1/tables/{scene.table}/events?limit=1000", headers=bearer(scene.alice)).get_json()
    return len(page["events"])


def test_same_key_same_body_replays_the_first_answer(api: Api, scene: Scene) -> None:
    token, view = _mover(api, scene)
    action = view["legal_actions"][0]
    first = api.act_raw(token, scene.table, action, key="retry-1")
    assert first.status_code == 201
    count = _event_count(api, scene)
    again = api.act_raw(token, scene.table, action, key="retry-1")
    assert again.status_code == 201
    assert again.get_json() == first.get_json()
    assert _event_count(api, scene) == count


def test_a_retry_answers_the_first_answers_bytes_after_the_table_moved_on(api: Api, scene: Scene) -> None:
    token, view = _mover(api, scene)
    first = api.act_raw(token, scene.table, view["legal_actions"][0], key="retry-bytes")
    assert first.status_code == 201
    other, later = _mover(api, scene)
    assert api.act_raw(other, scene.table, later["legal_actions"][0]).status_code == 201
    again = api.act_raw(token, scene.table, view["legal_actions"][0], key="retry-bytes")
    assert again.status_code == 201
    assert again.get_data() == first.get_data()  # the receipt included; keys in the same order


def test_same_key_other_body_is_422(api: Api, scene: Scene) -> None:
    token, view = _mover(api, scene)
    first = api.act_raw(token, scene.table, view["legal_actions"][0], key="retry-2")
    assert first.status_code == 201
    count = _event_count(api, scene)
    other = api.act_raw(token, scene.table, {"type": "pass"}, key="retry-2")
    assert_problem(other, 422, "idempotency_key_reused")
    assert _event_count(api, scene) == count


def test_keys_are_per_player(api: Api, scene: Scene) -> None:
    token, view = _mover(api, scene)
    assert api.act_raw(token, scene.table, view["legal_actions"][0], key="shared").status_code == 201
    other = scene.bob if token == scene.alice else scene.alice
    # The other seat's use of the same key is its own request (here a turn error, not a replay).
    response = api.act_raw(other, scene.table, {"type": "close"}, key="shared")
    assert response.status_code == 409


def test_concurrent_actions_with_the_same_if_match(app: Flask, api: Api, scene: Scene) -> None:
    token, view = _mover(api, scene)
    action = view["legal_actions"][0]
    version = view["version"]
    barrier = threading.Barrier(8)
    statuses: list[int] = []
    lock = threading.Lock()

    def attempt(n: int) -> None:
        client = app.test_client()
        barrier.wait()
        response = client.post(
            f"/v1/tables/{scene.table}/actions",
            json=action,
            headers={**bearer(token), "Idempotency-Key": f"race-{n}", "If-Match": f'"{version}"'},
        )
        with lock:
            statuses.append(response.status_code)

    threads = [threading.Thread(target=attempt, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(statuses) == [201] + [412] * 7
