"""The shared server fixtures of tests/conftest.py work (whichever way the servers were found)."""

from __future__ import annotations

import psycopg
import redis

from tests.conftest import fresh_database


def test_database_url_is_a_database_of_its_own(database_url: str, pg_server_url: str) -> None:
    with psycopg.connect(database_url) as conn:
        (name,) = conn.execute("SELECT current_database()").fetchone() or ("",)
        assert name.startswith("cardledger_test_")
        conn.execute("CREATE TEMP TABLE scratch (x int)")
        conn.execute("INSERT INTO scratch VALUES (1)")
        assert conn.execute("SELECT count(*) FROM scratch").fetchone() == (1,)
    with psycopg.connect(pg_server_url) as admin:
        assert admin.execute("SELECT current_database()").fetchone() != (name,)


def test_fresh_database_is_empty_and_dropped_afterwards(pg_server_url: str) -> None:
    with fresh_database(pg_server_url) as url, psycopg.connect(url) as conn:
        (name,) = conn.execute("SELECT current_database()").fetchone() or ("",)
        user_tables = conn.execute(
            "SELECT count(*) FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema')"
        ).fetchone()
        assert user_tables == (0,)
    with psycopg.connect(pg_server_url) as admin:
        assert admin.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone() is None


def test_redis_client_starts_with_an_empty_db(redis_client: redis.Redis) -> None:
    assert redis_client.ping()
    assert redis_client.dbsize() == 0
    redis_client.set("cardledger:smoke", "1")


def test_redis_client_is_flushed_between_tests(redis_client: redis.Redis) -> None:
    assert redis_client.get("cardledger:smoke") is None
