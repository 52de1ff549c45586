"""Fixtures for tests against the real PostgreSQL and Redis: a migrated database, emptied per test."""

from __future__ import annotations

from collections.abc import Iterator

import psycopg
import pytest
from psycopg_pool import ConnectionPool

from infra.db import open_pool
from infra.event_store import EventStore
from infra.migrations import migrate


@pytest.fixture(scope="session")
def migrated_database_url(database_url: str) -> str:
    migrate(database_url)
    return database_url


def empty_all_tables(url: str) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        names = [
            row[0]
            for row in conn.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'schema_migrations'"
            )
        ]
        # The events table refuses TRUNCATE through its triggers; replica mode skips them for this cleanup only.
        conn.execute("SET session_replication_role = replica")
        conn.execute("TRUNCATE " + ", ".join(f'"{name}"' for name in names) + " RESTART IDENTITY CASCADE")


@pytest.fixture
def db_url(migrated_database_url: str) -> str:
    """The migrated test database, emptied before the test."""
    empty_all_tables(migrated_database_url)
    return migrated_database_url


@pytest.fixture
def pool(db_url: str) -> Iterator[ConnectionPool]:  # type: ignore[type-arg]
    pool = open_pool(db_url, min_size=1, max_size=20)
    yield pool
    pool.close()


@pytest.fixture
def store(pool: ConnectionPool) -> EventStore:  # type: ignore[type-arg]
    return EventStore(pool)
