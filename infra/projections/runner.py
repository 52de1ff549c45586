"""Catching projections up with the global log, exactly once, and digests of their read models.

A batch is applied in one transaction that first locks the projection's
checkpoint row (`log_positions`, name `projection:<name>`) FOR UPDATE, reads
the events after it, applies them and moves the checkpoint. A second worker
on the same projection waits for the lock and then reads from the moved
checkpoint; a worker that dies mid-batch rolls everything back. So each event
changes each read model exactly once, however often a job runs.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

import psycopg
from psycopg.rows import tuple_row

from infra.db import Conn
from infra.event_store import LogPosition, RecordedEvent, read_log_in
from infra.projections.base import Projection
from infra.projections.checkpoint import (
    checkpoint_name,
    ensure_position,
    ensure_positions,
    lock_position,
    move_positions_if_free,
    read_positions,
    store_position,
)
from infra.projections.deal_settlements import DEAL_SETTLEMENTS
from infra.projections.heads import ProjectionCaches
from infra.projections.ledger import LEDGER, SETTLEMENTS
from infra.projections.round_statement import apply_in_one_statement
from infra.projections.tables import HAND_TRICKS, TABLE_VIEWS

PROJECTIONS: dict[str, Projection] = {
    p.name: p for p in (TABLE_VIEWS, HAND_TRICKS, LEDGER, SETTLEMENTS, DEAL_SETTLEMENTS)
}
NAMES: tuple[str, ...] = tuple(PROJECTIONS)
BATCH_SIZE = 500
# How catch_up_all commits a batch: every projection in one transaction. A transaction's locks, position
# update and commit cost more than most projections' own work on the few events a live batch holds, and
# players learn of their turn from the relay's streams, not from the table views (docs/performance.md).
COMMITTED_TOGETHER: tuple[tuple[str, ...], ...] = (
    (TABLE_VIEWS.name, HAND_TRICKS.name, LEDGER.name, SETTLEMENTS.name, DEAL_SETTLEMENTS.name),
)

# A test's hook (tests/faults/delayed.py), never set in production: called after a batch is applied, before its
# commit, so that a test can kill a worker there.
before_batch_commit: Callable[[], None] | None = None


def projection_named(name: str) -> Projection:
    try:
        return PROJECTIONS[name]
    except KeyError:
        raise ValueError(f"unknown projection {name!r}; known projections are {', '.join(NAMES)}") from None


def catch_up(
    conn: Conn,
    name: str,
    batch_size: int = BATCH_SIZE,
    on_batch: Callable[[int], None] | None = None,
    caches: ProjectionCaches | None = None,
) -> int:
    """Apply every committed event after the checkpoint of projection `name`; returns the events applied.

    `conn` must not be inside a transaction (each batch is its own). `caches` are the caller's (a worker keeps
    its own between calls); without them the call uses caches of its own, dropped when it returns.
    """
    caches = ProjectionCaches() if caches is None else caches
    projection = projection_named(name)
    checkpoint = checkpoint_name(name)
    if conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
        raise RuntimeError(f"catch_up({name!r}) needs a connection outside a transaction")
    pause = before_batch_commit
    with conn.transaction():
        ensure_position(conn, checkpoint)
    applied = 0
    while True:
        with conn.transaction():
            position = lock_position(conn, checkpoint)
            events = read_log_in(conn, position, batch_size)
            if not events:
                return applied
            projection.apply(conn, events, caches)
            if pause is not None:
                pause()
            store_position(conn, checkpoint, events[-1].log_position)
        applied += len(events)
        if on_batch is not None:
            on_batch(len(events))
        if len(events) < batch_size:
            return applied


class Checkpoints:
    """Where the checkpoints were left by the last round of `catch_up_all` that moved or read them (None when
    unknown): handed from one call to the next by a caller that loops, so that a round reads the log from
    there instead of reading the checkpoints first. A checkpoint moved meanwhile by another worker is found
    out under its row lock (as a stale read is), and the next round reads the checkpoints again."""

    def __init__(self) -> None:
        self.positions: dict[str, LogPosition] | None = None


def catch_up_all(
    conn: Conn,
    batch_size: int = BATCH_SIZE,
    on_batch: Callable[[dict[str, int]], None] | None = None,
    caches: ProjectionCaches | None = None,
    checkpoints: Checkpoints | None = None,
) -> dict[str, int]:
    """Catch every projection up; returns the events applied per projection.

    Projections at the same checkpoint (the usual case) share one read of the
    log per batch, and apply it in one transaction (`COMMITTED_TOGETHER`): one statement when the batch is
    only upserts (`round_statement`), else a transaction of several.
    Each transaction locks the checkpoints of its projections and applies the
    batch only to those still where the batch was read from, so each event changes each model exactly once. A checkpoint
    locked elsewhere (another worker's job, a rebuild) is skipped, not waited
    for: whoever holds it is catching it up. `on_batch` gets the events
    applied per projection after each round. `caches` as for `catch_up`; `checkpoints` carries where the
    checkpoints were left from one call to the next (see `Checkpoints`).
    """
    if not conn.autocommit or conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
        raise RuntimeError("catch_up_all needs an autocommit connection outside a transaction")
    caches = ProjectionCaches() if caches is None else caches
    checkpoints = Checkpoints() if checkpoints is None else checkpoints
    names = {checkpoint_name(name): name for name in NAMES}
    pause = before_batch_commit
    applied = dict.fromkeys(NAMES, 0)
    while True:
        counts: dict[str, int] = {}
        full = False
        groups: dict[LogPosition, list[str]] = {}
        positions = checkpoints.positions
        checkpoints.positions = None  # unknown until this round has ended as read
        if positions is None:
            positions = read_positions(conn, list(names))
            if len(positions) < len(names):  # the first catch-up on this database
                ensure_positions(conn, list(names))
                positions = read_positions(conn, list(names))
        left = dict(positions)
        moved_elsewhere = False
        for checkpoint, position in positions.items():
            groups.setdefault(position, []).append(checkpoint)
        for position, group in sorted(groups.items()):
            events = read_log_in(conn, position, batch_size)
            if not events:
                continue
            for together in COMMITTED_TOGETHER:
                checkpoints_here = [checkpoint_name(name) for name in together if checkpoint_name(name) in group]
                if not checkpoints_here:
                    continue
                projections_here = [PROJECTIONS[names[checkpoint]] for checkpoint in checkpoints_here]
                moved = apply_in_one_statement(conn, projections_here, position, events, caches, pause)
                if moved is None:
                    moved = _apply_in_transaction(conn, projections_here, position, events, caches, pause)
                ours = [checkpoint for checkpoint in checkpoints_here if checkpoint in moved]
                moved_elsewhere = moved_elsewhere or len(ours) < len(checkpoints_here)
                if not ours:
                    continue  # other workers hold them or have moved them on
                for checkpoint in ours:
                    counts[names[checkpoint]] = len(events)
                    left[checkpoint] = events[-1].log_position
                full = full or len(events) == batch_size
        if not moved_elsewhere:
            checkpoints.positions = left
        for name, count in counts.items():
            applied[name] += count
        if on_batch is not None and counts:
            on_batch(counts)
        if not full:
            return applied


def _apply_in_transaction(
    conn: Conn,
    group: list[Projection],
    at: LogPosition,
    events: list[RecordedEvent],
    caches: ProjectionCaches,
    pause: Callable[[], None] | None,
) -> list[str]:
    """Apply `events` (read from `at`) to the projections of `group` whose checkpoints are free and still at `at`,
    moving them, in one transaction; the checkpoints moved."""
    with conn.transaction():
        # Moved first, in the transaction that applies the batch: one statement locks and moves.
        to = events[-1].log_position
        moved = move_positions_if_free(conn, [checkpoint_name(p.name) for p in group], at, to)
        for projection in group:
            if checkpoint_name(projection.name) in moved:
                projection.apply(conn, events, caches)
        if moved and pause is not None:
            pause()
    return moved


def digest(conn: Conn, name: str) -> tuple[str, int]:
    """A SHA-256 of projection `name`'s model, and its row count: over each table's name, then the SHA-256
    of each row's text, in key order.

    PostgreSQL writes and hashes the rows (its row text quotes values that hold separators, and writes jsonb
    in one normal form), so only 32 bytes a row come back; timestamps are written in UTC and ISO form
    whatever the session's settings. Decoding and encoding each row in Python would cost the rebuild more.
    """
    projection = projection_named(name)
    sha = hashlib.sha256()
    rows = 0
    with conn.transaction():
        conn.execute("SET LOCAL TimeZone = 'UTC'")
        conn.execute("SET LOCAL DateStyle = 'ISO, YMD'")
        for table in projection.tables:
            sha.update(f"table {table.name}\n".encode())
            with conn.cursor(name=f"digest_{table.name}", row_factory=tuple_row) as cur:
                cur.itersize = 5000
                cur.execute(
                    f"""SELECT sha256(convert_to(ROW({table.columns})::text, 'UTF8'))
                        FROM {table.name} ORDER BY {table.order_by}"""
                )
                for (row_hash,) in cur:
                    sha.update(row_hash)
                    rows += 1
    return sha.hexdigest(), rows
