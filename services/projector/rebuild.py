"""Drop a projection's read model and rebuild it from the log; compare it with the live one.

`rebuild(database_url, names, progress)` does, for each projection:

1. catch the live model up with the log;
2. in one transaction: lock the projection's checkpoint (live workers of that
   projection wait), take the digest of the live model, delete its rows,
   apply the log from the start up to the checkpoint in batches (memory does
   not grow with the number of events), take the digest again;
3. commit and report whether the two digests are equal.

The rebuilt model is kept either way (the log is the source of truth); a
difference means the live model had drifted (or a projection's code changed).
While a rebuild runs, its transaction holds a transaction id, so the commit
horizon of the other log readers (relay, other projections) waits for it:
they lag until it commits (writers are not blocked).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TextIO

from infra import db, projections
from infra.db import Conn
from infra.event_store import START, LogPosition, RecordedEvent
from infra.projections.checkpoint import (
    checkpoint_name,
    count_between,
    lock_position,
    read_log_between,
    store_position,
)
from infra.projections.heads import ProjectionCaches
from infra.sql.read_models import delete_all_rows
from infra.sql.transactions import next_transaction_id, oldest_running_transaction
from services.projector.read_ahead import read_ahead

# Events per batch of a rebuild: the table projections write each table they meet once per batch, so larger
# batches write less, up to a point (docs/performance.md, "The read models").
REBUILD_BATCH = 5000


@dataclass(frozen=True)
class RebuildReport:
    name: str
    events: int  # events applied by the rebuild
    seconds: float
    live_digest: str
    rebuilt_digest: str
    live_rows: int
    rebuilt_rows: int

    @property
    def equal(self) -> bool:
        return self.live_digest == self.rebuilt_digest

    @property
    def events_per_second(self) -> float:
        return self.events / self.seconds if self.seconds > 0 else 0.0

    def summary(self) -> str:
        verdict = "equal" if self.equal else "DIFFERENT"
        return (
            f"{self.name}: rebuilt from {self.events} events in {self.seconds:.1f} s "
            f"({self.events_per_second:,.0f} events/s); {self.rebuilt_rows} rows, live {self.live_rows} rows; "
            f"digest {verdict} (live {self.live_digest[:12]}, rebuilt {self.rebuilt_digest[:12]})"
        )


class Progress:
    """A one-line progress bar on a text stream, updated with carriage returns."""

    def __init__(self, label: str, total: int, out: TextIO | None, width: int = 30) -> None:
        self.label, self.total, self.out, self.width = label, total, out, width
        self.done = 0
        self.started = time.monotonic()
        self.shown = 0.0

    def advance(self, count: int) -> None:
        self.done += count
        now = time.monotonic()
        if self.out is not None and now - self.shown >= 0.2:
            self.shown = now
            self._draw(now)

    def _draw(self, now: float) -> None:
        assert self.out is not None
        fraction = self.done / self.total if self.total else 1.0
        filled = int(self.width * min(fraction, 1.0))
        rate = self.done / max(now - self.started, 1e-9)
        bar = "#" * filled + "-" * (self.width - filled)
        self.out.write(
            f"\r{self.label:<12} [{bar}] {self.done}/{self.total} events {fraction:6.1%} {rate:,.0f} events/s"
        )
        self.out.flush()

    def finish(self) -> None:
        if self.out is not None:
            self._draw(time.monotonic())
            self.out.write("\n")
            self.out.flush()


def connect(database_url: str) -> Conn:
    return db.connect(database_url, "rebuild")


def catch_up(conn_or_url: Conn | str, name: str) -> int:
    """Catch projection `name` up with the log (a connection outside a transaction, or a URL)."""
    if isinstance(conn_or_url, str):
        with connect(conn_or_url) as conn:
            return projections.catch_up(conn, name)
    return projections.catch_up(conn_or_url, name)


def digest(conn: Conn, name: str) -> str:
    """SHA-256 (hex) of the canonical dump of projection `name`'s read model."""
    return projections.digest(conn, name)[0]


def wait_for_writes_in_flight(conn: Conn, timeout: float = 10.0) -> bool:
    """Wait until every transaction running now has ended, so the log's commit-safe horizon covers
    everything written before the rebuild began; False if one is still running after `timeout` s."""
    next_xid = next_transaction_id(conn)
    deadline = time.monotonic() + timeout
    while True:
        if oldest_running_transaction(conn) >= next_xid:
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.05)


def log_batches(conn: Conn, after: LogPosition, until: LogPosition, batch_size: int) -> Iterator[list[RecordedEvent]]:
    """The log after `after` up to `until`, in batches of at most `batch_size` events."""
    while events := read_log_between(conn, after, until, batch_size):
        yield events
        after = events[-1].log_position


def rebuild_one(
    conn: Conn, name: str, progress: bool = True, batch_size: int = REBUILD_BATCH, reader: Conn | None = None
) -> RebuildReport:
    """Rebuild projection `name` on `conn`. With a `reader` (another connection, outside a transaction), the log
    is read on it one batch ahead of the batch being applied."""
    projection = projections.projection_named(name)
    if not wait_for_writes_in_flight(conn):
        print(f"{name}: a transaction is still open after 10 s; rebuilding up to it", file=sys.stderr)
    projections.catch_up(conn, name)
    started = time.monotonic()
    applied = 0
    with conn.transaction():
        until = lock_position(conn, checkpoint_name(name))
        live_digest, live_rows = projections.digest(conn, name)
        delete_all_rows(conn, [table.name for table in projection.tables])
        caches = ProjectionCaches()  # its own: the folds of a rebuild's long batches are no use to anyone else
        bar = Progress(name, count_between(conn, START, until), sys.stderr if progress else None)
        # `until` is a position the projection has reached, so any connection reads the same events up to it.
        batches = log_batches(conn if reader is None else reader, START, until, batch_size)
        for events in batches if reader is None else read_ahead(batches):
            projection.apply(conn, events, caches)
            applied += len(events)
            bar.advance(len(events))
        bar.finish()
        store_position(conn, checkpoint_name(name), until)
        rebuilt_digest, rebuilt_rows = projections.digest(conn, name)
    return RebuildReport(
        name, applied, time.monotonic() - started, live_digest, rebuilt_digest, live_rows, rebuilt_rows
    )


def rebuild(database_url: str, names: list[str] | None = None, progress: bool = True) -> list[RebuildReport]:
    """Rebuild the named projections (all when None) from the log; one report each, in order."""
    chosen = names or list(projections.NAMES)
    for name in chosen:
        projections.projection_named(name)  # unknown names fail before any work
    with connect(database_url) as conn, connect(database_url) as reader:
        return [rebuild_one(conn, name, progress, reader=reader) for name in chosen]
