"""Operations endpoints, metrics and rate limits."""

from __future__ import annotations

import logging
import time

import pytest
from flask.testing import FlaskClient

from services.api import create_app
from services.bootstrap import Container
from tests.api.conftest import TEST_CONFIG, Api, Scene, metrics_text
from tests.api.test_endpoints import assert_problem
from tests.faults.servers import RedisServer, free_port


def test_healthz_and_readyz(client: FlaskClient) -> None:
    assert client.get("/healthz").get_json() == {"status": "ok"}
    ready = client.get("/readyz")
    assert ready.status_code == 200
    body = ready.get_json()
    assert body["status"] == "ready"
    assert body["checks"]["migrations"] == {"ok": True, "pending": []}


def test_readyz_reports_an_unreachable_redis(container: Container) -> None:
    import dataclasses

    import redis

    broken = dataclasses.replace(container, redis=redis.Redis(host="127.0.0.1", port=1, socket_connect_timeout=0.2))
    broken._closers = []
    app = create_app(container=broken, config=TEST_CONFIG)
    response = app.test_client().get("/readyz")
    body = assert_problem(response, 503, "not_ready")
    assert body["checks"]["redis"]["ok"] is False
    assert body["checks"]["database"]["ok"] is True


def test_metrics_count_requests_by_route_and_status(client: FlaskClient) -> None:
    client.get("/healthz")
    client.get("/v1/tables")
    text = metrics_text(client)
    assert 'cardledger_http_requests_total{method="GET",route="/healthz",status="200"} 1.0' in text
    assert 'route="/v1/tables",status="401"' in text
    assert "cardledger_http_request_duration_seconds_bucket" in text


def test_method_names_do_not_make_new_metric_series(client: FlaskClient) -> None:
    for name in ("BREW", "X-ANYTHING", "PROPFIND"):
        client.open("/v1/tables", method=name)
    text = metrics_text(client)
    assert 'method="other"' in text
    assert "BREW" not in text and "PROPFIND" not in text


def test_rate_limits_answer_429_with_retry_after(container: Container, api: Api, scene: Scene) -> None:
    config = {
        **TEST_CONFIG,
        "RATE_LIMITS_ENABLED": True,
        "RATE_LIMIT_REGISTRATION": "2/minute",
        "RATE_LIMIT_ACTIONS": "1/minute",
        "RATELIMIT_STORAGE_URI": "memory://",
    }
    client = create_app(container=container, config=config).test_client()
    statuses = [client.post("/v1/players", json={"name": f"p{i}"}).status_code for i in range(3)]
    assert statuses == [201, 201, 429]
    limited = client.post("/v1/players", json={"name": "late"})
    assert_problem(limited, 429, "rate_limited")
    assert int(limited.headers["Retry-After"]) >= 1
    headers = {"Authorization": f"Bearer {scene.alice}", "Idempotency-Key": "a"}
    client.post(f"/v1/tables/{scene.table}/actions", json={"type": "close"}, headers=headers)
    second = client.post(f"/v1/tables/{scene.table}/actions", json={"type": "close"}, headers=headers)
    assert_problem(second, 429)
    # Per token: another player is not limited by alice's actions.
    other = {"Authorization": f"Bearer {scene.bob}", "Idempotency-Key": "b"}
    assert client.post(f"/v1/tables/{scene.table}/actions", json={"type": "close"}, headers=other).status_code == 409


def test_rate_limits_use_redis_by_default(container: Container) -> None:
    app = create_app(container=container, config={**TEST_CONFIG, "RATE_LIMITS_ENABLED": True})
    limiter = app.extensions["limiter"]
    limiter_set = limiter if isinstance(limiter, set) else {limiter}
    assert any("redis" in type(lim._storage).__name__.lower() for lim in limiter_set)


def test_with_redis_down_the_limits_hold_in_memory_and_the_outage_is_logged_once(
    container: Container, caplog: pytest.LogCaptureFixture
) -> None:
    """The counters live in Redis; while it is unreachable each worker keeps them in memory instead of letting
    every request through with an error and a traceback in the log."""
    config = {
        **TEST_CONFIG,
        "RATE_LIMITS_ENABLED": True,
        "RATE_LIMIT_REGISTRATION": "2/minute",
        "RATELIMIT_STORAGE_URI": f"redis://127.0.0.1:{free_port()}/0",  # nothing listens there
    }
    client = create_app(container=container, config=config).test_client()
    with caplog.at_level(logging.INFO):
        statuses = [client.post("/v1/players", json={"name": f"p{i}"}).status_code for i in range(4)]
    assert statuses == [201, 201, 429, 429]
    # (Each breach is an INFO line, as it is with Redis up.)
    problems = [r for r in caplog.records if r.name.startswith("flask-limiter") and r.levelno >= logging.WARNING]
    assert [(r.levelno, r.getMessage()) for r in problems] == [
        (logging.WARNING, "Rate limit storage unreachable - falling back to in-memory storage")
    ]


def test_the_limits_go_back_to_redis_when_it_answers_again(
    container: Container, caplog: pytest.LogCaptureFixture
) -> None:
    server = RedisServer()
    server.start()
    try:
        config = {
            **TEST_CONFIG,
            "RATE_LIMITS_ENABLED": True,
            "RATE_LIMIT_REGISTRATION": "1000/minute",
            "RATELIMIT_STORAGE_URI": server.url,
        }
        client = create_app(container=container, config=config).test_client()
        assert client.post("/v1/players", json={"name": "before"}).status_code == 201
        server.stop()
        with caplog.at_level(logging.INFO, logger="flask-limiter"):
            assert client.post("/v1/players", json={"name": "during"}).status_code == 201
            server.start()
            deadline = time.monotonic() + 70  # flask-limiter looks again after 2, 4, 8... up to 32 s
            while "Rate limit storage recovered" not in caplog.text and time.monotonic() < deadline:
                assert client.post("/v1/players", json={"name": "after"}).status_code == 201
                time.sleep(0.25)
        assert "Rate limit storage recovered" in caplog.text
        with server.client() as redis_client:
            assert redis_client.keys("*cardledger:ratelimit*"), "counting in Redis again"
    finally:
        server.stop()
