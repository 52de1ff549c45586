"""/livez and /readyz of the relay and the workers (infra.probes), against real PostgreSQL and Redis.

The relay is ready while its lock session is alive (holding the relay lock or waiting for it) and PostgreSQL
answers; a worker while PostgreSQL and Redis answer. /livez reads nothing.
"""

from __future__ import annotations

import json
import socket
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import psycopg
import pytest
from prometheus_client import REGISTRY

from infra.metrics import serve_metrics
from infra.probes import Readiness, relay_readiness, start_endpoint, worker_readiness
from services.relay import RELAY_LOCK_KEY, Relay
from tests.faults.servers import RedisServer, wait_until

UNREACHABLE_DATABASE = "postgresql://nobody@127.0.0.1:1/nothing"
TEST_LOCK_KEY = 7_410_229_999  # not the relay's: these checks must not meet a relay of another test


def get(port: int, path: str) -> tuple[int, dict[str, Any] | str]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as answer:
            status, body = answer.status, answer.read().decode()
    except urllib.error.HTTPError as error:
        status, body = error.code, error.read().decode()
    return status, (json.loads(body) if body.startswith("{") else body)


@dataclass
class Session:
    session_pid: int | None


@pytest.fixture
def lock_holder(db_url: str) -> Iterator[psycopg.Connection[Any]]:
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute("SELECT pg_advisory_lock(%s)", (TEST_LOCK_KEY,))
        yield conn


def test_the_relay_check_tells_held_from_waiting_from_gone(db_url: str, lock_holder: psycopg.Connection[Any]) -> None:
    session = Session(lock_holder.info.backend_pid)
    readiness = relay_readiness(session, db_url, TEST_LOCK_KEY)
    assert readiness() == {"database": {"ok": True}, "relay_lock": {"ok": True, "detail": "held"}}

    with psycopg.connect(db_url, autocommit=True) as waiting:
        session.session_pid = waiting.info.backend_pid
        assert readiness()["relay_lock"] == {"ok": True, "detail": "waiting"}
    # The session ended (its connection closed; the backend exits a moment later): the relay would be reconnecting.
    wait_until(lambda: not readiness()["relay_lock"]["ok"], timeout=10)
    checks = readiness()
    assert checks["relay_lock"]["ok"] is False
    assert "is gone" in checks["relay_lock"]["detail"]

    session.session_pid = None
    assert readiness()["relay_lock"] == {"ok": False, "detail": "the relay has no database session (connecting)"}


def test_the_relay_is_not_ready_without_its_database(lock_holder: psycopg.Connection[Any]) -> None:
    checks = relay_readiness(Session(lock_holder.info.backend_pid), UNREACHABLE_DATABASE, TEST_LOCK_KEY)()
    assert checks["database"]["ok"] is False
    assert checks["database"]["detail"].startswith("OperationalError: database unreachable (")
    assert "refused" in checks["database"]["detail"] or "failed" in checks["database"]["detail"]  # libpq's reason
    assert checks["relay_lock"]["ok"] is False


def serve(readiness: Readiness) -> int:
    return start_endpoint("127.0.0.1", 0, readiness)


def test_two_real_relays_are_both_ready_one_holding_the_lock(db_url: str, redis_url: str) -> None:
    stop = threading.Event()
    relays = [Relay(db_url, redis_url, stop, poll_interval=0.05) for _ in range(2)]
    ports = [serve(relay_readiness(relay, db_url, RELAY_LOCK_KEY)) for relay in relays]
    status, body = get(ports[0], "/readyz")
    assert status == 503 and isinstance(body, dict) and body["status"] == "not_ready"  # not started yet
    threads = [threading.Thread(target=relay.run, daemon=True) for relay in relays]
    try:
        for thread in threads:
            thread.start()
        wait_until(lambda: all(get(port, "/readyz")[0] == 200 for port in ports), timeout=30)
        details = sorted(str(get(port, "/readyz")[1]["checks"]["relay_lock"]["detail"]) for port in ports)  # type: ignore[index]
        assert details == ["held", "waiting"]
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=30)
    wait_until(lambda: all(get(port, "/readyz")[0] == 503 for port in ports), timeout=10)


def test_a_worker_is_ready_while_postgres_and_redis_answer(db_url: str, redis_server: RedisServer) -> None:
    port = serve(worker_readiness(db_url, redis_server.url))
    assert get(port, "/readyz") == (
        200,
        {"status": "ready", "checks": {"database": {"ok": True}, "redis": {"ok": True}}},
    )
    redis_server.stop()
    status, body = get(port, "/readyz")
    assert status == 503 and isinstance(body, dict)
    assert body["checks"]["database"] == {"ok": True}
    assert body["checks"]["redis"]["ok"] is False
    assert body["checks"]["redis"]["detail"].startswith("Redis unreachable: ConnectionError")
    assert get(port, "/livez") == (200, {"status": "alive"})  # alive all the same: nothing to restart
    redis_server.start()
    wait_until(lambda: get(port, "/readyz")[0] == 200, timeout=10)


def test_a_worker_is_not_ready_without_its_database(redis_url: str) -> None:
    status, body = get(serve(worker_readiness(UNREACHABLE_DATABASE, redis_url)), "/readyz")
    assert status == 503 and isinstance(body, dict)
    assert body["checks"]["redis"] == {"ok": True} and body["checks"]["database"]["ok"] is False
    assert body["checks"]["database"]["detail"].startswith("OperationalError: database unreachable (")


def test_the_endpoint_still_serves_the_metrics(db_url: str, redis_url: str) -> None:
    port = serve(worker_readiness(db_url, redis_url))
    status, body = get(port, "/metrics")
    assert status == 200 and isinstance(body, str)
    assert "# TYPE cardledger_errors_total counter" in body


def test_each_failing_check_is_counted_for_the_alerts(redis_url: str) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        free = probe.getsockname()[1]
    port = serve_metrics("worker", free, "127.0.0.1", worker_readiness(UNREACHABLE_DATABASE, redis_url))
    assert port == free
    labels = {"component": "worker", "check": "database"}
    redis_labels = {**labels, "check": "redis"}
    before = REGISTRY.get_sample_value("cardledger_not_ready_total", labels) or 0.0
    redis_before = REGISTRY.get_sample_value("cardledger_not_ready_total", redis_labels)
    assert get(port, "/readyz")[0] == 503
    assert get(port, "/readyz")[0] == 503
    assert REGISTRY.get_sample_value("cardledger_not_ready_total", labels) == before + 2
    assert REGISTRY.get_sample_value("cardledger_not_ready_total", redis_labels) == redis_before  # it passed
