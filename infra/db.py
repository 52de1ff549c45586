"""The connection pool of the services (dict rows, autocommit).

Autocommit: a statement outside `with conn.transaction():` commits by itself, so a
single-statement read or write is one round trip (no BEGIN, no COMMIT); writes of
several statements that must commit together open `conn.transaction()`.
"""

from __future__ import annotations

import psycopg
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool


def open_pool(url: str, min_size: int = 1, max_size: int = 10) -> ConnectionPool[psycopg.Connection[dict[str, object]]]:
    pool: ConnectionPool[psycopg.Connection[dict[str, object]]] = ConnectionPool(
        url,
        min_size=min_size,
        max_size=max_size,
        kwargs={"row_factory": dict_row, "autocommit": True},
        open=True,
    )
    pool.wait(timeout=30)
    return pool
