"""Fixtures for the API tests: the Flask app on the real PostgreSQL and Redis of tests/conftest.py.

The database is migrated once per session and emptied before each test; the
Redis db is flushed before each test (`redis_client`). Projections do not run
in the background here: tests that read the lobby, the ledger or the reports
call `project()` to catch them up first.
"""

from __future__ import annotations

import itertools
import os
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import psycopg
import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient

from infra.config import Settings
from infra.projections.runner import catch_up_all
from infra.signing import SIGNING_KEY_VARIABLE, parse_signing_key
from services.api import create_app
from services.bootstrap import Container, bootstrap
from tests.conftest import empty_all_tables

AUDITOR_TOKEN = "auditor-" + uuid.uuid4().hex
TEST_CONFIG = {
    "TESTING": True,
    "RATE_LIMITS_ENABLED": False,
    "SSE_MAX_SECONDS": 1.0,
    "SSE_HEARTBEAT_SECONDS": 0.2,
    "LONG_POLL_SECONDS": 1.0,
}


@pytest.fixture(scope="session")
def api_database_url(migrated_database_url: str) -> str:
    return migrated_database_url


@pytest.fixture(scope="session")
def api_settings(api_database_url: str, redis_url: str) -> Settings:
    return Settings(
        database_url=api_database_url,
        redis_url=redis_url,
        auditor_token=AUDITOR_TOKEN,
        signing_key=parse_signing_key(os.environ[SIGNING_KEY_VARIABLE]),  # the session's (tests/conftest.py)
    )


@pytest.fixture(scope="session")
def container(api_settings: Settings) -> Iterator[Container]:
    built = bootstrap(api_settings, pool_max_size=20, start_embedded=False)
    yield built
    built.close()


@pytest.fixture
def clean(api_database_url: str, redis_client: redis.Redis) -> str:
    empty_all_tables(api_database_url)
    return api_database_url


@pytest.fixture
def app(container: Container, clean: str) -> Flask:
    return create_app(container=container, config=TEST_CONFIG)


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


def metrics_text(client: FlaskClient) -> str:
    """What the API's metrics port serves for this app (the API's public port has no /metrics)."""
    from services.api.middleware.metrics import metrics_of

    return metrics_of(client.application).render().get_data(as_text=True)


def project(database_url: str, timeout: float = 20.0) -> None:
    """Catch every projection up with the whole log (the projector workers' job, done inline in tests).

    The log is read behind a transaction horizon (pg_snapshot_xmin): a transaction left open anywhere on
    the server (another test run) holds the projections back, so this retries until every projection's
    checkpoint has passed the newest event.
    """
    deadline = time.monotonic() + timeout
    with psycopg.connect(database_url, autocommit=True, row_factory=psycopg.rows.dict_row) as conn:
        while True:
            catch_up_all(conn)
            newest = conn.execute("SELECT coalesce(max(global_position), 0) AS g FROM events").fetchone()
            behind = conn.execute(
                "SELECT count(*) AS n FROM log_positions WHERE name LIKE 'projection:%%' AND global_position < %s",
                (newest["g"] if newest else 0,),
            ).fetchone()
            if behind is not None and behind["n"] == 0:
                return
            assert time.monotonic() < deadline, "the projections did not catch up with the log"
            time.sleep(0.05)


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


_keys = itertools.count(1)


class Api:
    """A thin client of the API for tests: each helper asserts the expected status."""

    def __init__(self, client: FlaskClient) -> None:
        self.client = client

    def register(self, name: str = "player") -> tuple[str, str]:
        response = self.client.post("/v1/players", json={"name": name})
        assert response.status_code == 201, response.get_json()
        body = response.get_json()
        return body["id"], body["token"]

    def open_table(self, token: str, game: str = "cholek-tiga", seats: int = 2, **options: Any) -> dict[str, Any]:
        response = self.client.post(
            "/v1/tables", json={"game": game, "seats": seats, "options": options}, headers=bearer(token)
        )
        assert response.status_code == 201, response.get_json()
        body: dict[str, Any] = response.get_json()
        return body

    def sit(self, token: str, table_id: str, seat: int | None = None) -> int:
        body: dict[str, Any] = {} if seat is None else {"seat": seat}
        response = self.client.post(f"/v1/tables/{table_id}/seats", json=body, headers=bearer(token))
        assert response.status_code == 201, response.get_json()
        return int(response.get_json()["seat"])

    def view(self, token: str, table_id: str) -> dict[str, Any]:
        response = self.client.get(f"/v1/tables/{table_id}/view", headers=bearer(token))
        assert response.status_code == 200, response.get_json()
        body: dict[str, Any] = response.get_json()
        return body

    def table(self, token: str, table_id: str) -> dict[str, Any]:
        response = self.client.get(f"/v1/tables/{table_id}", headers=bearer(token))
        assert response.status_code == 200, response.get_json()
        body: dict[str, Any] = response.get_json()
        return body

    def act_raw(self, token: str, table_id: str, action: dict[str, Any], key: str | None = None, **headers: str):  # type: ignore[no-untyped-def]
        all_headers = {**bearer(token), "Idempotency-Key": key or f"k-{next(_keys)}-{uuid.uuid4().hex[:8]}"}
        all_headers.update({k.replace("_", "-"): v for k, v in headers.items()})
        return self.client.post(f"/v1/tables/{table_id}/actions", json=action, headers=all_headers)

    def act(self, token: str, table_id: str, action: dict[str, Any], key: str | None = None) -> dict[str, Any]:
        response = self.act_raw(token, table_id, action, key)
        assert response.status_code == 201, (action, response.get_json())
        body: dict[str, Any] = response.get_json()
        return body


@pytest.fixture
def api(client: FlaskClient) -> Api:
    return Api(client)


class Scene:
    """Two full two-seat Cholek Tiga tables, a bystander, and the auditor (for the authorization matrix)."""

    def __init__(self, api: Api) -> None:
        self.alice_id, self.alice = api.register("alice")
        self.bob_id, self.bob = api.register("bob")
        self.carol_id, self.carol = api.register("carol")
        self.dave_id, self.dave = api.register("dave")
        self.eve_id, self.eve = api.register("eve")  # no seat anywhere
        self.table = api.open_table(self.alice)["id"]
        api.sit(self.alice, self.table, 0)
        api.sit(self.bob, self.table, 1)
        self.other_table = api.open_table(self.carol)["id"]
        api.sit(self.carol, self.other_table, 0)
        api.sit(self.dave, self.other_table, 1)
        self.auditor = AUDITOR_TOKEN


@pytest.fixture
def scene(api: Api) -> Scene:
    return Scene(api)


def bot_action(view: dict[str, Any], rng: Any) -> dict[str, Any]:
    """A legal action for the seat of `view`, chosen at random; a `count` follow takes k cards of the hand."""
    action = dict(rng.choice(view["legal_actions"]))
    if action.get("type") == "play" and "count" in action:
        action = {"type": "play", "cards": rng.sample(view["hand"], int(action["count"]))}
    return action


def seated_table(api: Api, game: str = "cholek-tiga", seats: int = 2, name: str | None = None) -> tuple[str, list[str]]:
    """A table of `seats` players registered for it (named `name`-0, ..., `name` the game's by default), opened
    by the first and filled in seat order (its first deal is running): its id and the players' tokens by seat."""
    tokens = [api.register(f"{name or game}-{n}")[1] for n in range(seats)]
    table_id = str(api.open_table(tokens[0], game, seats)["id"])
    for seat, token in enumerate(tokens):
        api.sit(token, table_id, seat)
    return table_id, tokens


Tokens = Sequence[str] | Mapping[int, str]
"""Players' tokens by seat (a list in seat order, or a mapping of seats)."""


def to_act(api: Api, table_id: str, tokens: Tokens) -> str:
    """The token of the seat whose turn it is (the table read with seat 0's token)."""
    return tokens[api.table(tokens[0], table_id)["to_act"]]


def take_turn(api: Api, table_id: str, tokens: Tokens, rng: Any) -> dict[str, Any]:
    """One random legal action (`bot_action`) of the seat whose turn it is; its answer."""
    token = to_act(api, table_id, tokens)
    return api.act(token, table_id, bot_action(api.view(token, table_id), rng))


def play_deal(
    api: Api, table_id: str, tokens: list[str], rng: Any, moves: int | None = None, max_steps: int = 2000
) -> list[dict[str, Any]]:
    """Play the running deal with a random bot, to its end or for `moves` actions (fewer if it ends first);
    `tokens` in any order. Returns every action's answer."""
    seat_tokens = {api.view(token, table_id)["seat"]: token for token in tokens}
    responses: list[dict[str, Any]] = []
    for _ in range(max_steps if moves is None else moves):
        state = api.table(tokens[0], table_id)
        if state["status"] != "playing":
            return responses
        token = seat_tokens[state["to_act"]]
        responses.append(api.act(token, table_id, bot_action(api.view(token, table_id), rng)))
    if moves is None:
        raise AssertionError("the deal did not end")
    return responses
