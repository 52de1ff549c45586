"""ServicePool: psycopg_pool's pool that tells who keeps what the server said when the server goes away, and
replaces the dead connections at once; connections carry their component's name."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import psycopg
import pytest

import infra.db
from infra.db import ServicePool, open_pool


@pytest.fixture
def pool(db_url: str) -> Iterator[ServicePool]:
    pool = open_pool(db_url, min_size=1, max_size=2)
    yield pool
    pool.close()


def test_when_the_server_drops_every_connection_only_the_first_caller_fails(db_url: str) -> None:
    """After a server restart each pooled connection is dead; the first failure has the pool test the others."""
    pool = open_pool(db_url, min_size=3, max_size=3)
    try:
        held = [pool.getconn(timeout=5) for _ in range(3)]
        pids = [conn.info.backend_pid for conn in held]
        for conn in held:
            pool.putconn(conn)  # all three rest in the pool
        with psycopg.connect(db_url, autocommit=True) as admin:
            for pid in pids:
                admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
        outcomes = []
        for _ in range(6):
            try:
                with pool.connection(timeout=10) as conn:
                    conn.execute("SELECT 1")
                outcomes.append("ok")
            except psycopg.OperationalError:
                outcomes.append("failed")
        assert outcomes == ["failed"] + ["ok"] * 5
    finally:
        pool.close()


def _application_name(conn: psycopg.Connection[Any]) -> str:
    row = conn.execute("SELECT current_setting('application_name') AS name").fetchone()
    assert row is not None
    return str(row["name"] if isinstance(row, dict) else row[0])


def test_connections_carry_their_component_s_name_unless_the_url_gives_one(db_url: str) -> None:
    named = open_pool(db_url, min_size=1, max_size=1, component="relay")
    try:
        with named.connection() as conn:
            assert _application_name(conn) == "cardledger-relay"
    finally:
        named.close()
    with infra.db.connect(db_url, "projector") as conn:
        assert _application_name(conn) == "cardledger-projector"
    with infra.db.connect(db_url) as conn:
        assert _application_name(conn) == "cardledger"
    separator = "&" if "?" in db_url else "?"
    with infra.db.connect(f"{db_url}{separator}application_name=operator-chosen", "relay") as conn:
        assert _application_name(conn) == "operator-chosen"


def test_a_connection_broken_by_the_server_tells_who_keeps_what_it_said(pool: ServicePool, db_url: str) -> None:
    """A failover ends every backend: the first caller to meet one tells the listeners (the application drops
    its caches, since the server that takes over may hold less), then the pool replaces the dead connections."""
    told: list[str] = []
    pool.server_lost_listeners.append(lambda: told.append("lost"))
    with pool.connection() as conn:
        backend = conn.info.backend_pid
    with psycopg.connect(db_url, autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", (backend,))
    with pytest.raises(psycopg.OperationalError), pool.connection() as conn:
        assert conn.info.backend_pid == backend
        conn.execute("SELECT 1")
    assert told == ["lost"]
    with pool.connection() as again:
        assert again.execute("SELECT 3 AS three").fetchone() == {"three": 3}
    assert told == ["lost"]  # a healthy connection tells nobody
