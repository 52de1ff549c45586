"""The connection pool of the services (dict rows)."""

from __future__ import annotations

import psycopg
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool


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
