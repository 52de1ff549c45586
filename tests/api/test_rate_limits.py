"""Rate limits tell the truth: a refused client that waits `Retry-After` gets through, and no burst beats the limit.

Both storages are tried: flask-limiter's memory (one worker, and the fallback while Redis is down) and Redis
(every replica's shared counters). The waits are short limits' real seconds: what is tested is the promise
made to a client, which only a real wait can keep or break.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable

import pytest
from flask.testing import FlaskClient

from services.api import create_app
from services.api.middleware.limits import storage_uri
from services.bootstrap import Container
from tests.api.conftest import TEST_CONFIG


def limited_client(container: Container, storage: str, **limits: str) -> FlaskClient:
    config = {**TEST_CONFIG, "RATE_LIMITS_ENABLED": True, "RATELIMIT_STORAGE_URI": storage, **limits}
    return create_app(container=container, config=config).test_client()


@pytest.fixture(params=["memory", "redis"])
def storage(request: pytest.FixtureRequest, redis_url: str, redis_client: object) -> str:
    return "memory://" if request.param == "memory" else storage_uri(redis_url)  # the embedded Redis is a socket


def register(client: FlaskClient) -> tuple[int, dict[str, str]]:
    response = client.post("/v1/players", json={"name": f"p-{uuid.uuid4().hex[:8]}"})
    return response.status_code, dict(response.headers)


def test_a_client_that_waits_as_told_succeeds_and_is_never_told_zero(
    container: Container, clean: str, storage: str
) -> None:
    client = limited_client(container, storage, RATE_LIMIT_REGISTRATION="3 per 1 second")
    waits = []
    for round_no in range(4):
        time.sleep(0.23 * round_no)  # refusals at different places in the window
        statuses = []
        while True:
            status, headers = register(client)
            statuses.append(status)
            if status == 429:
                break
            assert "Retry-After" not in headers, "a success carries no Retry-After"
            assert len(statuses) <= 3, f"more than 3 registrations within a second: {statuses}"
        retry_after = int(headers["Retry-After"])
        waits.append(retry_after)
        assert retry_after >= 1
        assert headers["Content-Type"].startswith("application/problem+json")
        time.sleep(retry_after)
        status, _ = register(client)
        assert status == 201, f"waited Retry-After {retry_after} s as told and was refused again"
    assert all(wait == 1 for wait in waits), waits  # a 1-second window never asks for more than a second


def test_no_burst_across_a_window_edge_beats_the_limit(container: Container, clean: str, storage: str) -> None:
    """A fixed window admits its limit at the end of one window and again at the start of the next; a moving
    window admits at most the limit in any span of its length."""
    client = limited_client(container, storage, RATE_LIMIT_REGISTRATION="3 per 1 second")
    admitted: list[tuple[float, float]] = []  # (sent, answered) of each success
    deadline = time.monotonic() + 2.5
    while time.monotonic() < deadline:
        sent = time.monotonic()
        status, _ = register(client)
        if status == 201:
            admitted.append((sent, time.monotonic()))
        else:
            time.sleep(0.02)
    assert len(admitted) >= 6
    # The server counted the 4th success at least a second after the 1st: answered(i + 3) - sent(i) >= 1.
    for first, fourth in zip(admitted, admitted[3:], strict=False):
        assert fourth[1] - first[0] >= 1.0, admitted


@pytest.mark.parametrize(
    ("setting", "request_for"),
    [
        ("RATE_LIMIT_READS", lambda table: ("GET", f"/v1/tables/{table}")),
        ("RATE_LIMIT_REPORTS", lambda table: ("GET", f"/v1/tables/{table}/events")),
        ("RATE_LIMIT_REPORTS", lambda table: ("GET", "/v1/reports/settlement")),
    ],
    ids=["table", "events", "settlement"],
)
def test_reads_and_expensive_reads_have_budgets_per_token(
    container: Container, clean: str, setting: str, request_for: Callable[[str], tuple[str, str]]
) -> None:
    client = limited_client(container, "memory://", **{setting: "2 per 1 minute"})
    tokens = [client.post("/v1/players", json={"name": n}).get_json()["token"] for n in ("a", "b")]
    opened = client.post(
        "/v1/tables", json={"game": "cholek-tiga", "seats": 2}, headers={"Authorization": f"Bearer {tokens[0]}"}
    )
    table = opened.get_json()["id"]
    method, path = request_for(table)
    statuses = [
        client.open(path, method=method, headers={"Authorization": f"Bearer {tokens[1]}"}).status_code for _ in range(3)
    ]
    assert statuses[:2] != [429, 429] and statuses[2] == 429
    refused = client.open(path, method=method, headers={"Authorization": f"Bearer {tokens[1]}"})
    assert 1 <= int(refused.headers["Retry-After"]) <= 60
    other = client.open(path, method=method, headers={"Authorization": f"Bearer {tokens[0]}"})
    assert other.status_code != 429, "another token has a budget of its own"
