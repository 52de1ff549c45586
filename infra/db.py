"""The connection pool of the services (dict rows, autocommit).

Autocommit: a statement outside `with conn.transaction():` commits by itself, so a
single-statement read or write is one round trip (no BEGIN, no COMMIT); writes of
several statements that must commit together open `conn.transaction()`.

Every connection carries its component's name, `cardledger-<component>` (`application_name`), so that
pg_stat_activity tells the API's backends from the relay's, the projection workers' and the others'. It is
libpq's `fallback_application_name`: an `application_name` in the URL, or PGAPPNAME, wins.
"""

from __future__ import annotations

import queue
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from time import monotonic
from typing import Any

import psycopg
from psycopg.conninfo import conninfo_to_dict
from psycopg.pq import TransactionStatus
from psycopg.rows import dict_row
from psycopg.types.json import set_json_loads
from psycopg_pool import ConnectionPool, PoolTimeout

from infra import json_loading

# A connection of the services: rows as dicts (`open_pool`, `connect`).
Conn = psycopg.Connection[dict[str, Any]]


class ServiceConnection(psycopg.Connection[dict[str, Any]]):
    """A connection of the services (`open_pool`, `connect`): it also keeps one cursor of event rows, made on
    its first use, for the read of a table's events after a state kept (`infra.table_loader.load_events_after`:
    a view read from the store, a seat view pushed by another process, the turn clock, the projections)."""

    events_cursor: psycopg.Cursor[Any] | None = None


# A connection with any row factory (the owner's plain connections; readers that choose tuple rows).
AnyConn = psycopg.Connection[Any]

# How long a waiting caller lets psycopg_pool wait before it looks at the idle connections again
# (a connection given back to them while it waited does not wake it).
_RECHECK_SECONDS = 0.05
# How long a connection stays in the idle queue's rounds before it goes back through psycopg_pool,
# which closes it when it is past its max_lifetime and keeps its statistics.
_ROUNDS_SECONDS = 30.0


class FastPool(ConnectionPool[Conn]):
    """psycopg_pool's ConnectionPool with a lock-free path (a `queue.SimpleQueue`) for connections given back
    clean, because its lock queued threads appending at once (docs/performance.md, "Reading and appending events").

    Everything else (opening, growing, shrinking, replacing broken or expired connections, timeouts) is
    psycopg_pool's: a connection goes back through it after `_ROUNDS_SECONDS` of rounds, when it comes back
    broken or inside a transaction, and before psycopg_pool looks for idle connections to close.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._idle: queue.SimpleQueue[Conn] = queue.SimpleQueue()
        # Read and written without a lock: setdefault and pop on a dict keyed by objects hashed by identity
        # are single operations under the GIL.
        self._rounds_since: dict[Conn, float] = {}
        # Called when a connection comes back broken: the server went away (see `putconn`).
        self.server_lost_listeners: list[Callable[[], None]] = []

    def getconn(self, timeout: float | None = None) -> Conn:
        conn = None if self.closed else self._take_idle()
        if conn is not None:
            return conn
        timeout = self.timeout if timeout is None else timeout
        deadline = monotonic() + timeout
        while True:
            try:
                return super().getconn(timeout=max(min(deadline - monotonic(), _RECHECK_SECONDS), 0.001))
            except PoolTimeout:
                conn = self._take_idle()
                if conn is not None:
                    return conn
                if monotonic() >= deadline:
                    raise PoolTimeout(f"couldn't get a connection after {timeout:.2f} sec") from None

    def putconn(self, conn: Conn) -> None:
        if conn.broken and not self.closed:
            # The server went away (a restart, a failover): the connections resting in the idle queue are most
            # likely dead too. psycopg_pool tests them all now and replaces the dead ones, so that the callers
            # after this one get working connections instead of failing one by one. Whoever keeps what the lost
            # server said is told first (the one that takes over may hold less).
            for listener in self.server_lost_listeners:
                listener()
            self._give_back(conn)
            self._return_idle()
            self.check()
            return
        if self.closed or conn.closed or conn.pgconn.transaction_status != TransactionStatus.IDLE:
            self._give_back(conn)
            return
        since = self._rounds_since.setdefault(conn, monotonic())
        if monotonic() - since > _ROUNDS_SECONDS:
            self._give_back(conn)
            return
        self._idle.put(conn)

    @contextmanager
    def connection(self, timeout: float | None = None) -> Iterator[Conn]:
        """As psycopg_pool's: commit on success, roll back on error (no-ops in autocommit), then give back."""
        conn = self.getconn(timeout)
        try:
            with conn:
                yield conn
        finally:
            self.putconn(conn)

    def usage(self) -> dict[str, int]:
        """Connections in use, idle (psycopg_pool's and this queue's), the pool's maximum, and callers waiting."""
        stats = self.get_stats()
        idle = stats.get("pool_available", 0) + self._idle.qsize()
        return {
            "in_use": max(stats.get("pool_size", 0) - idle, 0),
            "idle": idle,
            "max": self.max_size,
            "waiting": stats.get("requests_waiting", 0),
        }

    def _shrink_pool(self) -> None:
        # psycopg_pool's ShrinkPool task calls this in its worker thread every max_idle seconds (a private
        # method: the shrinking test in tests/integration/test_db_pool.py fails if that changes).
        self._return_idle()
        super()._shrink_pool()

    def close(self, timeout: float = 5.0) -> None:
        # Closed first, so that a connection given back meanwhile goes to psycopg_pool (which closes it), not
        # into the idle queue; then the idle ones are handed to it to close.
        super().close(timeout)
        self._return_idle()

    def _take_idle(self) -> Conn | None:
        while True:
            try:
                conn = self._idle.get_nowait()
            except queue.Empty:
                return None
            if conn.closed:
                self._give_back(conn)
                continue
            return conn

    def _return_idle(self) -> None:
        """Hand every connection of the idle queue back to psycopg_pool."""
        while (conn := self._take_idle()) is not None:
            self._give_back(conn)

    def _give_back(self, conn: Conn) -> None:
        self._rounds_since.pop(conn, None)
        super().putconn(conn)


APPLICATION_NAME = "cardledger"


def application_name(component: str | None) -> str:
    """What `component`'s connections show in pg_stat_activity.application_name (`cardledger-<component>`)."""
    return f"{APPLICATION_NAME}-{component}" if component else APPLICATION_NAME


def configure(conn: psycopg.Connection[Any]) -> None:
    """Read json and jsonb columns on `conn` with `infra.json_loading.loads` (json.loads' values, faster)."""
    set_json_loads(json_loading.loads, conn)


def connect(url: str, component: str | None = None, **kwargs: Any) -> Conn:
    """A connection of its own (autocommit, dict rows), configured as the pool's are, named for `component`."""
    kwargs.setdefault("fallback_application_name", application_name(component))
    kwargs = {**failover_parameters(url), **kwargs}
    conn = ServiceConnection.connect(url, autocommit=True, row_factory=dict_row, **kwargs)
    configure(conn)
    return conn


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
) -> FastPool:
    """A pool of connections named for `component`, opened and ready; a caller waits at most `wait_seconds` for
    a connection (then PoolTimeout)."""
    pool = FastPool(
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
        configure=configure,
        open=True,
    )
    pool.wait(timeout=30)
    return pool
