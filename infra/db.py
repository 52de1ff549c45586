"""The connection pool of the services (dict rows, autocommit).

Autocommit: a statement outside `with conn.transaction():` commits by itself, so a
single-statement read or write is one round trip (no BEGIN, no COMMIT); writes of
several statements that must commit together open `conn.transaction()`.

Every connection carries its component's name, `cardledger-<component>` (`application_name`), so that
pg_stat_activity tells the API's backends from the relay's, the projection workers' and the others'. It is
libpq's `fallback_application_name`: an `application_name` in the URL, or PGAPPNAME, wins.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Self

import psycopg
from psycopg.conninfo import conninfo_to_dict
from psycopg.rows import dict_row
from psycopg.types.json import set_json_dumps, set_json_loads
from psycopg_pool import ConnectionPool

from infra import json_codec

# A connection of the services: rows as dicts (`open_pool`, `connect`).
Conn = psycopg.Connection[dict[str, Any]]


class ServiceConnection(psycopg.Connection[dict[str, Any]]):
    """A connection of the services (`open_pool`, `connect`): it also keeps one cursor of event rows, made on
    its first use, for the read of a table's events after a state kept (`infra.table_loader.load_events_after`:
    a view read from the store, a seat view pushed by another process, the turn clock, the projections), and
    reads and writes json through infra.json_codec."""

    events_cursor: psycopg.Cursor[Any] | None = None

    @classmethod
    def connect(cls, *args: Any, **kwargs: Any) -> Self:
        """psycopg's connect, json and jsonb read and written by the service's JSON codec."""
        conn = super().connect(*args, **kwargs)
        set_json_loads(json_codec.loads, conn)
        set_json_dumps(json_codec.dumps, conn)
        return conn


# A connection with any row factory (the owner's plain connections; readers that choose tuple rows).
AnyConn = psycopg.Connection[Any]


class ServicePool(ConnectionPool[Conn]):
    """psycopg_pool's ConnectionPool that tells `server_lost_listeners` when a connection comes back broken,
    and hands the idle connections to psycopg_pool's check: the server went away (a restart, a failover)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.server_lost_listeners: list[Callable[[], None]] = []

    def putconn(self, conn: Conn) -> None:
        lost = conn.broken and not self.closed
        if lost:
            # Whoever keeps what the lost server said is told first (the one that takes over may hold less).
            for listener in self.server_lost_listeners:
                listener()
        super().putconn(conn)
        if lost:
            # The connections resting in the pool are most likely dead too: tested now and the dead ones
            # replaced, so that the callers after this one get working connections instead of failing one by one.
            self.check()

    def usage(self) -> dict[str, int]:
        """Connections in use, idle, the pool's maximum, and callers waiting."""
        stats = self.get_stats()
        idle = stats.get("pool_available", 0)
        return {
            "in_use": max(stats.get("pool_size", 0) - idle, 0),
            "idle": idle,
            "max": self.max_size,
            "waiting": stats.get("requests_waiting", 0),
        }


APPLICATION_NAME = "cardledger"


def application_name(component: str | None) -> str:
    """What `component`'s connections show in pg_stat_activity.application_name (`cardledger-<component>`)."""
    return f"{APPLICATION_NAME}-{component}" if component else APPLICATION_NAME


def connect(url: str, component: str | None = None, **kwargs: Any) -> Conn:
    """A connection of its own (autocommit, dict rows), as the pool's are, named for `component`."""
    kwargs.setdefault("fallback_application_name", application_name(component))
    kwargs = {**failover_parameters(url), **kwargs}
    return ServiceConnection.connect(url, autocommit=True, row_factory=dict_row, **kwargs)


@contextmanager
def one_snapshot(conn: AnyConn) -> Iterator[None]:
    """A read-only transaction whose statements all see one snapshot (REPEATABLE READ), so that a page of rows
    and the totals read beside it agree even while a projection commits between the two statements."""
    with conn.transaction():
        conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        yield


# Through a failover: a host that does not answer is given up for the next one of a multi-host URL after
# connect_timeout (per host), and a connection to a host that vanished is found dead by TCP keepalives within
# about idle + interval x count seconds instead of the system's two hours. A parameter in the URL wins.
FAILOVER_PARAMETERS = {
    "connect_timeout": "5",
    "keepalives_idle": "10",
    "keepalives_interval": "5",
    "keepalives_count": "3",
}
POOL_WAIT_SECONDS = 30.0  # how long a caller waits for a connection of the pool (psycopg_pool's default)


def failover_parameters(url: str) -> dict[str, str]:
    """The `FAILOVER_PARAMETERS` that `url` does not set itself."""
    given = conninfo_to_dict(url)
    return {name: value for name, value in FAILOVER_PARAMETERS.items() if name not in given}


def open_pool(
    url: str,
    min_size: int = 1,
    max_size: int = 10,
    component: str | None = None,
    wait_seconds: float = POOL_WAIT_SECONDS,
) -> ServicePool:
    """A pool of connections named for `component`, opened and ready; a caller waits at most `wait_seconds` for
    a connection (then PoolTimeout)."""
    pool = ServicePool(
        url,
        min_size=min_size,
        max_size=max_size,
        timeout=wait_seconds,
        connection_class=ServiceConnection,
        kwargs={
            "row_factory": dict_row,
            "autocommit": True,
            "fallback_application_name": application_name(component),
            **failover_parameters(url),
        },
        open=True,
    )
    pool.wait(timeout=30)
    return pool
