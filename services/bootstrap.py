"""Composition root: builds the objects a process needs from its settings (cosmicpython-style bootstrap).

`bootstrap(settings)` opens the PostgreSQL pool and the Redis client and wires
the event store, the folded-state cache, the application service (`CardLedger`)
and the audit service (`Audit`) on top of them. Edges (the REST API, the CLI, workers) take a
`Container` and never build these themselves, so tests can hand them one built
against their own servers.

The application service takes its storage through its ports (`services.app.ports`): `application` wires it on
any `Storage`; `bootstrap` gives it PostgreSQL's (the only production store), and `in_memory_application`
the in-memory one, which needs no server (tests/app/ runs the application on both).

With no `DATABASE_URL` / `REDIS_URL` configured, the embedded servers of
`infra.embedded` are started (the one-command default of DESIGN.md).

The receipt signing key comes from `infra.signing.signing_seed` (CARDLEDGER_SIGNING_KEY, or the embedded
default's key file); without one `bootstrap` raises `MissingSigningKey` before starting anything. Its
public half is registered by the database owner (`cardledger migrate`, `cardledger keys`), never here: the API
checks that it is (`require_signing_key`) before it serves.
"""

from __future__ import annotations

import contextlib
import functools
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import redis
from psycopg_pool import ConnectionPool

from domain.decks import keep_decks
from infra import redis_bus, redis_clients
from infra.config import CacheSizes, Settings
from infra.db import open_pool
from infra.event_store import EventStore
from infra.signing import ReceiptSigner, signing_seed
from infra.storage.memory import InMemoryStorage
from infra.storage.postgres import PostgresStorage
from services.app.audit.service import Audit
from services.app.folded_states import FoldedStates
from services.app.ledger import CardLedger
from services.app.ports import Storage

_log = logging.getLogger(__name__)


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
    signer: ReceiptSigner
    _closers: list[Callable[[], None]] = field(default_factory=list, repr=False)

    def close(self) -> None:
        """Release the pool, the Redis client and any embedded servers this container started."""
        while self._closers:
            with contextlib.suppress(Exception):  # best effort on shutdown
                self._closers.pop()()


# A request that gets no connection for this long (every one busy, or the database failing over) answers 503 with
# Retry-After instead of holding its client until the client gives up.
REQUEST_POOL_WAIT_SECONDS = 5.0


def bootstrap(
    settings: Settings,
    *,
    pool_min_size: int = 1,
    pool_max_size: int = 10,
    start_embedded: bool = True,
    signer: ReceiptSigner | None = None,
    component: str = "api",
) -> Container:
    """Wire every service for `settings`; starts embedded servers for unset URLs when `start_embedded`.
    `signer` (tests) wins over the key the settings give; `settings.caches` bounds the application's caches;
    the pool's connections are named for `component` (`infra.db.application_name`)."""
    signer = signer if signer is not None else ReceiptSigner.from_seed(signing_seed(settings))
    closers: list[Callable[[], None]] = []
    database_url, redis_url = settings.database_url, settings.redis_url
    if (database_url is None or redis_url is None) and start_embedded:
        from infra.embedded import ensure_servers

        database_url, redis_url, stop = ensure_servers(settings)
        closers.append(stop)
    if database_url is None or redis_url is None:
        raise ValueError("DATABASE_URL and REDIS_URL are required when embedded servers are not started")
    pool = open_pool(
        database_url,
        min_size=pool_min_size,
        max_size=pool_max_size,
        component=component,
        wait_seconds=REQUEST_POOL_WAIT_SECONDS,
    )
    closers.append(pool.close)
    client = redis_clients.connect(redis_url, socket_timeout=10, socket_connect_timeout=5, health_check_interval=30)
    closers.append(functools.partial(redis_bus.close, client))  # its stream readers stop first, quietly
    store = EventStore(pool)
    ledger = application(PostgresStorage(pool, store), settings.auditor_token, signer, settings.caches)
    pool.server_lost_listeners.append(ledger.forget_what_it_read)
    return Container(
        settings=settings,
        database_url=database_url,
        redis_url=redis_url,
        pool=pool,
        store=store,
        ledger=ledger,
        audit=Audit(pool, store),
        redis=client,
        signer=signer,
        _closers=closers,
    )


def application(
    storage: Storage,
    auditor_token: str | None,
    signer: ReceiptSigner | None = None,
    caches: CacheSizes | None = None,
) -> CardLedger:
    """The application service on `storage`; `caches` bounds its caches (the defaults when None)."""
    caches = caches if caches is not None else CacheSizes()
    keep_decks(caches.tables)  # the decks of the deals of the tables whose states it keeps
    return CardLedger(storage, auditor_token, signer, FoldedStates(caches.tables), caches)


def in_memory_application(auditor_token: str | None = None, signer: ReceiptSigner | None = None) -> CardLedger:
    """The application service on a new in-memory storage, its key registered as an owner would: no server,
    nothing kept after the process."""
    storage = InMemoryStorage()
    ledger = application(storage, auditor_token, signer)
    storage.register_first_key(ledger.signer)
    return ledger


if TYPE_CHECKING:  # mypy holds infra's adapters to the application's ports (infra may not import them)

    def _meets_the_ports(postgres: PostgresStorage, memory: InMemoryStorage) -> tuple[Storage, Storage]:
        return postgres, memory
