"""Composition root: builds the objects a process needs from its settings (cosmicpython-style bootstrap).

`bootstrap(settings)` opens the PostgreSQL pool and the Redis client and wires
the event store, the application service (`CardLedger`) and the audit service
(`Audit`) on top of them. Edges (the REST API, the CLI, workers) take a
`Container` and never build these themselves, so tests can hand them one built
against their own servers.

With no `DATABASE_URL` / `REDIS_URL` configured, the embedded servers of
`infra.embedded` are started (the one-command default of DESIGN.md).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import redis
from psycopg_pool import ConnectionPool

from infra.config import Settings
from infra.db import open_pool
from infra.event_store import EventStore
from services.application import CardLedger
from services.audit import Audit


@dataclass
class Container:
    settings: Settings
    database_url: str
    redis_url: str
    pool: ConnectionPool[Any]
    store: EventStore
    ledger: CardLedger
    audit: Audit
    redis: redis.Redis
    _closers: list[Callable[[], None]] = field(default_factory=list, repr=False)

    def close(self) -> None:
        """Release the pool, the Redis client and any embedded servers this container started."""
        while self._closers:
            with contextlib.suppress(Exception):  # best effort on shutdown
                self._closers.pop()()


def bootstrap(
    settings: Settings,
    *,
    pool_min_size: int = 1,
    pool_max_size: int = 10,
    start_embedded: bool = True,
) -> Container:
    """Wire every service for `settings`; starts embedded servers for unset URLs when `start_embedded`."""
    closers: list[Callable[[], None]] = []
    database_url, redis_url = settings.database_url, settings.redis_url
    if (database_url is None or redis_url is None) and start_embedded:
        from infra.embedded import ensure_servers

        database_url, redis_url, stop = ensure_servers(settings)
        closers.append(stop)
    if database_url is None or redis_url is None:
        raise ValueError("DATABASE_URL and REDIS_URL are required when embedded servers are not started")
    pool = open_pool(database_url, min_size=pool_min_size, max_size=pool_max_size)
    closers.append(pool.close)
    client = redis.Redis.from_url(redis_url, socket_timeout=10, socket_connect_timeout=5, health_check_interval=30)
    closers.append(client.close)
    store = EventStore(pool)
    return Container(
        settings=settings,
        database_url=database_url,
        redis_url=redis_url,
        pool=pool,
        store=store,
        ledger=CardLedger(pool, store, settings.auditor_token),
        audit=Audit(pool, store),
        redis=client,
        _closers=closers,
    )
