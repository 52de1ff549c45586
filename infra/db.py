"""Connections to PostgreSQL: a pool for services, single connections for scripts."""

from __future__ import annotations

import psycopg
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool


def connect(url: str, autocommit: bool = False) -> psycopg.Connection[dict[str, object]]:
    return psycopg.connect(url, autocommit=autocommit, row_factory=dict_row)


def open_pool(url: str, min_size: int = 1, max_size: int = 10) -> ConnectionPool[psycopg.Connection[dict[str, object]]]:
    pool: ConnectionPool[psycopg.Connection[dict[str, object]]] = ConnectionPool(
        url,
        min_size=min_size,
        max_size=max_size,
        kwargs={"row_factory": dict_row},
        open=True,
    )
    pool.wait(timeout=30)
    return pool
