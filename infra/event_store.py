"""The PostgreSQL event store: optimistic appends per stream, a commit-safe global log."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import psycopg
from psycopg.types.json import Jsonb
from psycopg_pool import ConnectionPool

from domain.events import JSON
from domain.hashchain import GENESIS_HASH, event_hash, hashed_fields
from infra.errors import IdempotencyKeyTaken, VersionConflict

Conn = psycopg.Connection[dict[str, Any]]


@dataclass(frozen=True, slots=True)
class NewEvent:
    type: str
    data: Mapping[str, JSON]
    deal_no: int = 0
    metadata: Mapping[str, JSON] = field(default_factory=dict)
    schema_version: int = 1


@dataclass(frozen=True, slots=True)
class RecordedEvent:
    global_position: int
    stream_id: str
    version: int
    type: str
    schema_version: int
    deal_no: int
    data: Mapping[str, JSON]
    metadata: Mapping[str, JSON]
    occurred_at: datetime
    prev_hash: str
    hash: str
    tx_id: int

    @property
    def log_position(self) -> LogPosition:
        return LogPosition(self.tx_id, self.global_position)

    def recomputed_hash(self) -> str:
        return event_hash(
            self.prev_hash,
            hashed_fields(
                self.stream_id,
                self.version,
                self.type,
                self.schema_version,
                self.deal_no,
                self.data,
                self.metadata,
                self.occurred_at,
            ),
        )


@dataclass(frozen=True, slots=True, order=True)
class LogPosition:
    """A place in the global log, ordered by (writing transaction, global position)."""

    tx_id: int = 0
    global_position: int = 0


START = LogPosition()


@dataclass(frozen=True, slots=True)
class IdempotencyRecord:
    scope: str  # whose key it is (the caller)
    key: str
    request_hash: str
    response: Mapping[str, JSON]


# `tx_id` is read as a bigint under its own name, so ORDER BY must name the table's column
# (`events.tx_id`): a bare `tx_id` would sort by the computed alias and miss the index.
_COLUMNS = (
    "global_position, stream_id, version, type, schema_version, deal_no, data, metadata, "
    "occurred_at, prev_hash, hash, tx_id::text::bigint AS tx_id"
)


def _recorded(row: Mapping[str, Any]) -> RecordedEvent:
    return RecordedEvent(**row)


class EventStore:
    def __init__(self, pool: ConnectionPool[Conn]) -> None:
        self.pool = pool

    # Writing ----------------------------------------------------------------

    def append(
        self,
        stream_id: str,
        expected_version: int,
        events: Sequence[NewEvent],
        idempotency: IdempotencyRecord | None = None,
        head_hash: str | None = None,
    ) -> list[RecordedEvent]:
        """Append all `events` after `expected_version`, atomically, or raise VersionConflict.

        With the stream's `head_hash` known and no idempotency record, the
        append is a single guarded statement, so it runs without BEGIN/COMMIT
        round trips (one statement is atomic by itself).
        """
        with self.pool.connection() as conn:
            if head_hash is not None and idempotency is None:
                was_autocommit, conn.autocommit = conn.autocommit, True
                try:
                    return self.append_in(conn, stream_id, expected_version, events, head_hash=head_hash)
                finally:
                    conn.autocommit = was_autocommit
            with conn.transaction():
                return self.append_in(conn, stream_id, expected_version, events, idempotency, head_hash)

    def append_in(
        self,
        conn: Conn,
        stream_id: str,
        expected_version: int,
        events: Sequence[NewEvent],
        idempotency: IdempotencyRecord | None = None,
        head_hash: str | None = None,
    ) -> list[RecordedEvent]:
        """Append inside the caller's transaction (so other rows can commit with the events).

        `head_hash` is the hash of the stream's last event when the caller has
        just read it (it saves a query); a wrong one is a VersionConflict.
        """
        if not events:
            raise ValueError("append needs at least one event")
        for new in events:
            _refuse_floats(new.data, f"{new.type}.data")
            _refuse_floats(new.metadata, f"{new.type}.metadata")
        prev_hash = self._head_hash(conn, stream_id, expected_version) if head_hash is None else head_hash
        now = datetime.now(UTC)
        columns: tuple[list[Any], ...] = ([], [], [], [], [], [], [], [])
        for offset, new in enumerate(events):
            version = expected_version + offset + 1
            fields = hashed_fields(
                stream_id, version, new.type, new.schema_version, new.deal_no, new.data, new.metadata, now
            )
            digest = event_hash(prev_hash, fields)
            row = (
                version,
                new.type,
                new.schema_version,
                new.deal_no,
                Jsonb(dict(new.data)),
                Jsonb(dict(new.metadata)),
                prev_hash,
                digest,
            )
            for column, value in zip(columns, row, strict=True):
                column.append(value)
            prev_hash = digest
        # One statement moves the stream's head and inserts the events, and only
        # if the head is still where this writer saw it: a lost race inserts nothing.
        rows = conn.execute(
            f"""WITH head AS (
                    UPDATE streams SET version = %s, last_hash = %s
                    WHERE stream_id = %s AND version = %s AND last_hash = %s
                    RETURNING stream_id)
                INSERT INTO events (stream_id, version, type, schema_version, deal_no, data, metadata,
                                    occurred_at, prev_hash, hash)
                SELECT head.stream_id, e.version, e.type, e.schema_version, e.deal_no, e.data, e.metadata,
                       %s, e.prev_hash, e.hash
                FROM head, unnest(%s::int[], %s::text[], %s::smallint[], %s::int[], %s::jsonb[], %s::jsonb[],
                                  %s::text[], %s::text[])
                     AS e(version, type, schema_version, deal_no, data, metadata, prev_hash, hash)
                ORDER BY e.version
                RETURNING {_COLUMNS}""",
            (
                expected_version + len(events),
                prev_hash,
                stream_id,
                expected_version,
                columns[6][0],
                now,
                *columns,
            ),
        ).fetchall()
        if not rows:
            actual = conn.execute("SELECT version FROM streams WHERE stream_id = %s", (stream_id,)).fetchone()
            raise VersionConflict(stream_id, expected_version, None if actual is None else int(actual["version"]))
        recorded = sorted((_recorded(row) for row in rows), key=lambda event: event.version)
        if idempotency is not None:
            self.record_idempotency(conn, stream_id, idempotency)
        return recorded

    def _head_hash(self, conn: Conn, stream_id: str, expected_version: int) -> str:
        """The last hash of the stream at `expected_version` (creating the stream at 0), or VersionConflict."""
        if expected_version == 0:
            conn.execute(
                "INSERT INTO streams (stream_id, version, last_hash) VALUES (%s, 0, %s) ON CONFLICT DO NOTHING",
                (stream_id, GENESIS_HASH),
            )
        head = conn.execute("SELECT version, last_hash FROM streams WHERE stream_id = %s", (stream_id,)).fetchone()
        if head is None or head["version"] != expected_version:
            raise VersionConflict(stream_id, expected_version, None if head is None else int(head["version"]))
        return str(head["last_hash"])

    def record_idempotency(self, conn: Conn, stream_id: str, record: IdempotencyRecord) -> None:
        inserted = conn.execute(
            """INSERT INTO idempotency_keys (scope, key, request_hash, stream_id, response)
               VALUES (%s, %s, %s, %s, %s) ON CONFLICT DO NOTHING""",
            (record.scope, record.key, record.request_hash, stream_id, Jsonb(dict(record.response))),
        )
        if inserted.rowcount != 1:
            raise IdempotencyKeyTaken(record.scope, record.key)

    def find_idempotency(self, scope: str, key: str) -> IdempotencyRecord | None:
        with self.pool.connection() as conn:
            row = conn.execute(
                "SELECT request_hash, response FROM idempotency_keys WHERE scope = %s AND key = %s", (scope, key)
            ).fetchone()
        if row is None:
            return None
        return IdempotencyRecord(scope, key, str(row["request_hash"]), row["response"])

    # Reading ----------------------------------------------------------------

    def stream_version(self, stream_id: str) -> int | None:
        with self.pool.connection() as conn:
            row = conn.execute("SELECT version FROM streams WHERE stream_id = %s", (stream_id,)).fetchone()
        return None if row is None else int(row["version"])

    def read_stream(
        self, stream_id: str, from_version: int = 1, to_version: int | None = None, limit: int | None = None
    ) -> list[RecordedEvent]:
        with self.pool.connection() as conn:
            return read_stream_in(conn, stream_id, from_version, to_version, limit)

    def read_log(self, after: LogPosition = START, limit: int = 500) -> list[RecordedEvent]:
        with self.pool.connection() as conn:
            return read_log_in(conn, after, limit)

    def iterate_log(self, after: LogPosition = START, batch_size: int = 1000) -> Iterator[list[RecordedEvent]]:
        """Batches of the whole committed log after `after` (memory bounded by one batch)."""
        while True:
            batch = self.read_log(after, batch_size)
            if not batch:
                return
            yield batch
            after = batch[-1].log_position


def _refuse_floats(value: JSON, path: str) -> None:
    """Events hold no floats: jsonb would rewrite some (1e16, -0.0) and break the event's hash."""
    if isinstance(value, float):
        raise ValueError(f"event field {path} is the float {value!r}; events hold integers, strings, lists and objects")
    if isinstance(value, Mapping):
        for key, item in value.items():
            _refuse_floats(item, f"{path}.{key}")
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            _refuse_floats(item, f"{path}[{index}]")


def read_stream_in(
    conn: Conn, stream_id: str, from_version: int = 1, to_version: int | None = None, limit: int | None = None
) -> list[RecordedEvent]:
    upper = "" if to_version is None else " AND version <= %(to)s"
    rows = conn.execute(
        f"""SELECT {_COLUMNS} FROM events WHERE stream_id = %(stream)s AND version >= %(from)s{upper}
            ORDER BY version LIMIT %(limit)s""",
        {"stream": stream_id, "from": from_version, "to": to_version, "limit": limit},
    ).fetchall()
    return [_recorded(row) for row in rows]


def read_log_in(conn: Conn, after: LogPosition, limit: int) -> list[RecordedEvent]:
    """Committed events after `after`, in commit-safe order.

    Only events whose writing transaction is older than the oldest transaction
    still running are returned (pg_snapshot_xmin), ordered by (tx_id,
    global_position). Every transaction that could still commit has a larger
    tx_id than anything returned, so it lands after the reader's position.
    """
    rows = conn.execute(READ_LOG_SQL, (str(after.tx_id), after.global_position, limit)).fetchall()
    return [_recorded(row) for row in rows]


READ_LOG_SQL = f"""SELECT {_COLUMNS} FROM events
    WHERE (tx_id, global_position) > (%s::text::xid8, %s)
      AND tx_id < pg_snapshot_xmin(pg_current_snapshot())
    ORDER BY events.tx_id, events.global_position
    LIMIT %s"""
