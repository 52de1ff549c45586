"""The RQ job functions of the projections (enqueued by the relay as "services.projector.jobs.catch_up").

They find PostgreSQL through `configure(url)` (called by `run_worker`) or,
in any other process (a plain `rq worker projections`), the DATABASE_URL
environment variable. Each thread keeps one connection to it.
"""

from __future__ import annotations

import os
import threading
from typing import Any

import psycopg
from psycopg.rows import dict_row

from infra import projections

Conn = psycopg.Connection[dict[str, Any]]

_configured_url: str | None = None
_local = threading.local()


def configure(database_url: str) -> None:
    """Use `database_url` for the jobs run in this process."""
    global _configured_url
    _configured_url = database_url


def database_url() -> str:
    url = _configured_url or os.environ.get("DATABASE_URL", "").strip()
    if not url:
        raise RuntimeError("projection jobs need a database: call configure(url) or set DATABASE_URL")
    return url


def connection() -> Conn:
    """This thread's connection (autocommit: each batch makes its own transaction); reopened when broken."""
    url = database_url()
    conn: Conn | None = getattr(_local, "conn", None)
    if conn is not None and (conn.closed or conn.broken or getattr(_local, "url", None) != url):
        conn.close()
        conn = None
    if conn is None:
        conn = psycopg.connect(url, autocommit=True, row_factory=dict_row)
        _local.conn, _local.url = conn, url
    return conn


def close_connection() -> None:
    conn: Conn | None = getattr(_local, "conn", None)
    if conn is not None:
        conn.close()
        _local.conn = None


def catch_up(name: str) -> int:
    """RQ job: catch projection `name` up with the log; returns the events applied."""
    try:
        return projections.catch_up(connection(), name)
    except psycopg.OperationalError:
        close_connection()
        raise


def catch_up_all() -> dict[str, int]:
    """RQ job: catch every projection up; returns the events applied per projection."""
    return {name: catch_up(name) for name in projections.NAMES}
