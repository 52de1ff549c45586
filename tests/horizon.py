"""Another session's transaction holding the log's commit-safe horizon, as on a shared PostgreSQL server.

The log is read only below the oldest transaction running anywhere on the server (`infra.event_store.read`,
`READ_LOG_SQL`): while a session of another database holds an xid taken before an append, that append is
committed but not yet readable. `held_horizon` is that session; `pytest --hold-horizon=SECONDS` opens one
before every test (tests/conftest.py), so a test that assumes an append is readable at once fails every time
instead of now and then on a busy server.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator

import psycopg


@contextlib.contextmanager
def held_horizon(server_url: str, seconds: float) -> Iterator[None]:
    """A transaction on `server_url` (another database than the tests') that takes an xid at once and ends
    after `seconds`, or when the block ends if sooner."""
    conn = psycopg.connect(server_url, application_name="cardledger-test-horizon")
    released = threading.Event()
    try:
        conn.execute("SELECT pg_current_xact_id()")  # an xid of its own: pg_snapshot_xmin stays at or below it
        ender = threading.Thread(target=lambda: released.wait(seconds) or conn.rollback(), daemon=True)
        ender.start()
        try:
            yield
        finally:
            released.set()
            ender.join()
    finally:
        conn.close()


HELD_BACK_SQL = "SELECT count(*) FROM events WHERE tx_id >= pg_snapshot_xmin(pg_current_snapshot())"


def held_back(database_url: str) -> int:
    """Committed events of the log not yet readable: an older transaction, of any database of the server, still
    runs and could commit before them (`READ_LOG_SQL` reads only below `pg_snapshot_xmin`)."""
    with psycopg.connect(database_url, autocommit=True) as conn:
        row = conn.execute(HELD_BACK_SQL).fetchone()
    return int(row[0]) if row is not None else 0


def wait_until_readable(database_url: str, timeout: float = 30.0) -> None:
    """Until every event committed to the log so far is readable (see `held_back`); a test that reads the log
    right after appending waits for this rather than for time, and checks everything it appended."""
    deadline = time.monotonic() + timeout
    while (count := held_back(database_url)) > 0:
        assert time.monotonic() < deadline, f"{count} committed events still held back after {timeout} s"
        time.sleep(0.02)
