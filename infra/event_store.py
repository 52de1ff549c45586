"""The PostgreSQL event store: optimistic appends per stream, a commit-safe global log."""

from __future__ import annotations

import functools
import json
import re
import secrets
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, NamedTuple

import psycopg
from psycopg.pq import ConnStatus, ExecStatus, TransactionStatus
from psycopg.pq.abc import PGresult
from psycopg_pool import ConnectionPool

from domain.events import JSON, PRIVATE
from domain.hashchain import (
    CURRENT_HASH_VERSION,
    GENESIS_HASH,
    HASH_V1,
    SALT_HEX_CHARS,
    canonical_text,
    canonical_timestamp,
    chained_hash,
    event_hash,
    hashed_data,
    hashed_fields,
    seal_private,
)
from infra.db import Conn as Conn  # re-exported: modules that read events import it from here
from infra.errors import IdempotencyKeyTaken, VersionConflict


@dataclass(frozen=True, slots=True)
class NewEvent:
    type: str
    data: Mapping[str, JSON]
    deal_no: int = 0
    metadata: Mapping[str, JSON] = field(default_factory=dict)
    schema_version: int = 1


class RecordedEvent(NamedTuple):
    """An event as the log holds it. A NamedTuple, not a frozen dataclass: reading the log makes one per event,
    and a frozen dataclass's __init__ calls object.__setattr__ per field (reading 200,000 events took 2.7-3.1 s
    of client CPU with it, 2.1-2.5 s without)."""

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
    hash_version: int = HASH_V1

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
                self.hash_version,
            ),
        )


@dataclass(frozen=True, slots=True, order=True)
class LogPosition:
    """A place in the global log, ordered by (writing transaction, global position)."""

    tx_id: int = 0
    global_position: int = 0


START = LogPosition()


# What an append sends of each event: version, type, schema version, deal, data and metadata (canonical JSON
# texts), previous hash, hash and hash version.
EventRow = tuple[int, str, int, int, str, str, str, str, int]


@dataclass(frozen=True, slots=True)
class PendingAppend:
    """Events numbered and chained by `EventStore.prepare`, with the rows that carry them to the database.

    The RecordedEvents are made only once the database has numbered them (`recorded`), or on request
    (`events`, with positions 0): making them twice per append was a measurable part of its cost.
    """

    stream_id: str
    expected_version: int
    new: Sequence[NewEvent]
    hashes: list[str]  # the chain from the stream's head: the head's hash, then one per event
    occurred_at: datetime
    occurred_at_text: str  # as the hash chain writes it (ISO 8601, UTC)
    rows: list[EventRow]

    @property
    def events(self) -> list[RecordedEvent]:
        """The events as they will be recorded, before the database numbers them (positions 0)."""
        return self.recorded(None)

    def recorded(self, numbers: Mapping[int, tuple[int, int]] | None) -> list[RecordedEvent]:
        """The events with the (global position, tx id) the database gave each version; (0, 0) when `numbers`
        is None. A version missing from `numbers` is a KeyError: the database numbers every event it takes."""
        events = []
        for offset, new in enumerate(self.new):
            version = self.expected_version + offset + 1
            global_position, tx_id = (0, 0) if numbers is None else numbers[version]
            events.append(
                RecordedEvent(
                    global_position,
                    self.stream_id,
                    version,
                    new.type,
                    new.schema_version,
                    new.deal_no,
                    new.data,
                    new.metadata,
                    self.occurred_at,
                    self.hashes[offset],
                    self.hashes[offset + 1],
                    tx_id,
                    CURRENT_HASH_VERSION,
                )
            )
        return events


@dataclass(frozen=True, slots=True)
class IdempotencyRecord:
    scope: str  # whose key it is (the caller)
    key: str
    request_hash: str
    response: Mapping[str, JSON]


_EVENT_COLUMNS = 9  # version, type, schema_version, deal_no, data, metadata, prev_hash, hash, hash_version


@functools.cache
def _append_sql(event_count: int, remember: bool) -> bytes:
    """The guarded append of `event_count` events (with the idempotency record when `remember`), with numbered
    parameters in the order `EventStore.append_prepared` sends them: the head (new version, new hash, stream,
    expected version, expected hash), the idempotency record, the time, then each event's `_EVENT_COLUMNS`.

    The events travel as VALUES rows of plain parameters: PostgreSQL checks each data and metadata
    text once and keeps it as sent in its json column (a jsonb document taken apart by
    jsonb_to_recordset cost about a fifth more of the server's work per append). ORDER BY, which
    numbers several events in version order, costs a sort even for one row, so a single event goes
    without it.
    """
    remembered = (
        """,
        remembered AS (
            INSERT INTO idempotency_keys (scope, key, request_hash, stream_id, response)
            SELECT $6::text, $7::text, $8::text, head.stream_id, $9::jsonb FROM head)"""
        if remember
        else ""
    )
    first = 10 if remember else 6  # the time's parameter; the events' follow it
    rows = []
    for event in range(event_count):
        n = first + 1 + event * _EVENT_COLUMNS
        rows.append(
            f"(${n}::integer, ${n + 1}::text, ${n + 2}::smallint, ${n + 3}::integer, ${n + 4}::json, "
            f"${n + 5}::json, ${n + 6}::text, ${n + 7}::text, ${n + 8}::smallint)"
        )
    order = "\n        ORDER BY e.version" if event_count > 1 else ""
    return f"""WITH head AS (
            UPDATE streams SET version = $1::integer, last_hash = $2::text
            WHERE stream_id = $3::text AND version = $4::integer AND last_hash = $5::text
            RETURNING stream_id){remembered}
        INSERT INTO events (stream_id, version, type, schema_version, deal_no, data, metadata, occurred_at,
                            prev_hash, hash, hash_version)
        SELECT head.stream_id, e.version, e.type, e.schema_version, e.deal_no, e.data, e.metadata,
               ${first}::timestamptz, e.prev_hash, e.hash, e.hash_version
        FROM head, (VALUES {", ".join(rows)})
             AS e (version, type, schema_version, deal_no, data, metadata, prev_hash, hash, hash_version){order}
        RETURNING version, global_position, tx_id""".encode()


def _statement_name(event_count: int, remember: bool) -> bytes:
    return f"cardledger_append_{event_count}_{int(remember)}".encode()


# `tx_id` is read as a bigint under its own name, so ORDER BY must name the table's column
# (`events.tx_id`): a bare `tx_id` would sort by the computed alias and miss the index.
_COLUMNS = (
    "global_position, stream_id, version, type, schema_version, deal_no, data, metadata, "
    "occurred_at, prev_hash, hash, tx_id::text::bigint AS tx_id, hash_version"
)


# tuple.__new__ on the NamedTuple class, called from C: psycopg makes each row a RecordedEvent with no Python
# frame in between (RecordedEvent(*row) cost a Python __new__ per event, and dict rows with keyword arguments
# cost a fifth of reading the log for a projection). It does not check the number of values, so every column
# list read through it must name RecordedEvent's fields in order (tests/unit/test_event_columns.py).
_make_event: Callable[[Sequence[Any]], RecordedEvent] = functools.partial(tuple.__new__, RecordedEvent)


def _event_row(cursor: Any) -> Callable[[Sequence[Any]], RecordedEvent]:
    return _make_event


def fetch_events(conn: Conn, query: str, params: Sequence[Any] | Mapping[str, Any]) -> list[RecordedEvent]:
    """The events a SELECT of `_COLUMNS` (in that order) returns."""
    with conn.cursor(row_factory=_event_row) as cursor:
        return cursor.execute(query, params).fetchall()


class EventStore:
    def __init__(self, pool: ConnectionPool[Conn]) -> None:
        self.pool = pool
        self._prepared: dict[Conn, set[bytes]] = {}
        self._prepared_lock = threading.Lock()

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

        With the stream's `head_hash` known, the append (with its idempotency
        record) is a single statement, atomic by itself, so no BEGIN/COMMIT
        round trips are needed on an autocommit connection.
        """
        if head_hash is not None:
            pending = self.prepare(stream_id, expected_version, events, head_hash)
            # getconn/putconn, not pool.connection(): its context manager and `with conn` commit (a no-op in
            # autocommit) cost about 3 us more, of the append's 90 us of Python.
            conn = self.pool.getconn()
            try:
                return self.append_prepared(conn, pending, idempotency)
            finally:
                self.pool.putconn(conn)
        with self.pool.connection() as conn, conn.transaction():
            return self.append_in(conn, stream_id, expected_version, events, idempotency)

    def append_in(
        self,
        conn: Conn,
        stream_id: str,
        expected_version: int,
        events: Sequence[NewEvent],
        idempotency: IdempotencyRecord | None = None,
        head_hash: str | None = None,
    ) -> list[RecordedEvent]:
        """Append with the caller's connection (inside its transaction, if it has one open).

        `head_hash` is the hash of the stream's last event when the caller has
        just read it (it saves a query); a wrong one is a VersionConflict.
        """
        prev_hash = self._head_hash(conn, stream_id, expected_version) if head_hash is None else head_hash
        pending = self.prepare(stream_id, expected_version, events, prev_hash)
        return self.append_prepared(conn, pending, idempotency)

    @staticmethod
    def prepare(stream_id: str, expected_version: int, events: Sequence[NewEvent], head_hash: str) -> PendingAppend:
        """The events as they will be recorded after the stream's head (`expected_version`, `head_hash`):
        versions, time and hash chain; only `global_position` and `tx_id` (0 here) are the database's."""
        if not events:
            raise ValueError("append needs at least one event")
        now = datetime.now(UTC)
        stamp = canonical_timestamp(now)
        rows: list[EventRow] = []
        hashes = [head_hash]
        sealed_events: list[NewEvent] = []
        for offset, new in enumerate(events):
            version = expected_version + offset + 1
            if PRIVATE in new.data:
                new = NewEvent(
                    new.type,
                    seal_private(new.data, secrets.token_hex(SALT_HEX_CHARS // 2)),
                    new.deal_no,
                    new.metadata,
                    new.schema_version,
                )
            sealed_events.append(new)
            # Encoded once: the same texts go into the hash and, as json parameters, into the database.
            data, metadata = new.data, new.metadata
            data_text = canonical_text(data if type(data) is dict else dict(data))
            hashed_text = canonical_text(hashed_data(data, CURRENT_HASH_VERSION)) if PRIVATE in data else data_text
            metadata_text = canonical_text(metadata if type(metadata) is dict else dict(metadata))
            if _may_hold_float(data_text) or _may_hold_float(metadata_text):
                _refuse_floats(new.data, f"{new.type}.data")
                _refuse_floats(new.metadata, f"{new.type}.metadata")
            if _NUL_ESCAPE in data_text or _NUL_ESCAPE in metadata_text:
                _refuse_nul(new.data, f"{new.type}.data")
                _refuse_nul(new.metadata, f"{new.type}.metadata")
            prev_hash = hashes[-1]
            digest = chained_hash(
                prev_hash,
                stream_id,
                version,
                new.type,
                new.schema_version,
                new.deal_no,
                hashed_text,
                metadata_text,
                stamp,
                CURRENT_HASH_VERSION,
            )
            rows.append(
                (
                    version,
                    new.type,
                    new.schema_version,
                    new.deal_no,
                    data_text,
                    metadata_text,
                    prev_hash,
                    digest,
                    CURRENT_HASH_VERSION,
                )
            )
            hashes.append(digest)
        return PendingAppend(stream_id, expected_version, tuple(sealed_events), hashes, now, stamp, rows)

    def append_prepared(
        self, conn: Conn, pending: PendingAppend, idempotency: IdempotencyRecord | None = None
    ) -> list[RecordedEvent]:
        """Record `pending` (from `prepare`), and the idempotency record with them, in one statement.

        The statement moves the stream's head, inserts the events and the
        record only if the head is still where `prepare` was told it is: a lost
        race inserts nothing (VersionConflict), a taken idempotency key fails the
        whole statement (IdempotencyKeyTaken). One statement is atomic by
        itself, so no transaction is needed around it.
        """
        stream_id, expected_version = pending.stream_id, pending.expected_version
        # In the order of the parameters of _append_sql: the head, the idempotency record, the time, the events.
        params: list[str | int] = [
            expected_version + len(pending.new),
            pending.hashes[-1],
            stream_id,
            expected_version,
            pending.hashes[0],
        ]
        if idempotency is not None:
            response = json.dumps(dict(idempotency.response), separators=(",", ":"))
            params += [idempotency.scope, idempotency.key, idempotency.request_hash, response]
        params.append(pending.occurred_at_text)
        for event_row in pending.rows:
            params.extend(event_row)
        try:
            rows = self._execute_append(conn, len(pending.rows), idempotency is not None, params)
        except psycopg.errors.UniqueViolation as error:
            if idempotency is not None and error.diag.constraint_name == "idempotency_keys_pkey":
                raise IdempotencyKeyTaken(idempotency.scope, idempotency.key) from error
            raise
        if not rows:
            actual = conn.execute("SELECT version FROM streams WHERE stream_id = %s", (stream_id,)).fetchone()
            raise VersionConflict(stream_id, expected_version, None if actual is None else int(actual["version"]))
        # The database only numbers the events; the rest is what was sent (not read back and parsed again).
        return pending.recorded({version: (global_position, tx_id) for version, global_position, tx_id in rows})

    def _execute_append(
        self, conn: Conn, event_count: int, remember: bool, params: list[str | int]
    ) -> list[tuple[int, int, int]]:
        """Run the append statement through libpq: (version, global position, tx id) of each event inserted,
        none when the head had moved. Errors are psycopg's (UniqueViolation, OperationalError...).

        One C call, which lets the GIL go while it waits, instead of psycopg's cursor machinery: with four
        threads appending, the writers' Python was the bottleneck (PostgreSQL's backends waited for their
        clients half the time), and the cursor path was three fifths of an append's client CPU (78 of 129 us,
        one writer). Outside a transaction the statement is prepared once per connection; inside one (where a
        failed lookup of a prepared statement would abort the caller's transaction) it is sent whole.
        """
        pgconn = conn.pgconn
        if pgconn.pipeline_status:
            raise RuntimeError("an append cannot run inside a psycopg pipeline")
        values = [str(value).encode() for value in params]
        if pgconn.transaction_status == TransactionStatus.IDLE:
            result = self._execute_prepared(conn, event_count, remember, values)
        else:
            result = pgconn.exec_params(_append_sql(event_count, remember), values)
        if result.status != ExecStatus.TUPLES_OK:
            raise self._error(conn, result)
        value = result.get_value  # never NULL; an xid8 is written as its decimal number, as the integers are
        return [(int(value(i, 0)), int(value(i, 1)), int(value(i, 2))) for i in range(result.ntuples)]  # type: ignore[arg-type]

    def _execute_prepared(self, conn: Conn, event_count: int, remember: bool, values: list[bytes]) -> PGresult:
        """The append as a statement prepared on `conn`, preparing it when this store has not (or it is gone)."""
        name = _statement_name(event_count, remember)
        if name not in self._prepared_on(conn):
            failed = self._prepare(conn, name, event_count, remember)
            if failed is not None:
                return failed
        result = conn.pgconn.exec_prepared(name, values)
        if _sqlstate(result) == _UNKNOWN_PREPARED_STATEMENT:
            # psycopg sends DEALLOCATE ALL after a ROLLBACK, DROP, ALTER or DISCARD on a connection where it
            # prepared statements of its own. Nothing ran (no transaction was open): prepare it again.
            failed = self._prepare(conn, name, event_count, remember)
            result = conn.pgconn.exec_prepared(name, values) if failed is None else failed
        return result

    def _prepare(self, conn: Conn, name: bytes, event_count: int, remember: bool) -> PGresult | None:
        """Prepare the append statement `name` on `conn`: None when done (or it was there), else the failure."""
        made = conn.pgconn.prepare(name, _append_sql(event_count, remember))
        if made.status != ExecStatus.COMMAND_OK and _sqlstate(made) != _DUPLICATE_PREPARED_STATEMENT:
            return made
        self._prepared_on(conn).add(name)
        return None

    def _prepared_on(self, conn: Conn) -> set[bytes]:
        """The append statements prepared on `conn`. Those of connections the pool has closed are dropped when a
        new connection comes by."""
        names = self._prepared.get(conn)
        if names is None:
            with self._prepared_lock:
                for closed in [known for known in self._prepared if known.closed]:
                    del self._prepared[closed]
                names = self._prepared[conn] = set()
        return names

    @staticmethod
    def _error(conn: Conn, result: PGresult) -> psycopg.Error:
        if conn.pgconn.status != ConnStatus.OK:
            message = conn.pgconn.error_message.decode("utf-8", "replace").strip()
            return psycopg.OperationalError(f"the connection to PostgreSQL failed during an append: {message}")
        return psycopg.errors.error_from_result(result, encoding=conn.info.encoding)

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

    def find_idempotency(self, scope: str, key: str) -> IdempotencyRecord | None:
        with self.pool.connection() as conn:
            row = conn.execute(
                "SELECT request_hash, response FROM idempotency_keys WHERE scope = %s AND key = %s", (scope, key)
            ).fetchone()
        if row is None:
            return None
        return IdempotencyRecord(scope, key, str(row["request_hash"]), row["response"])

    # Reading ----------------------------------------------------------------

    def global_positions(self, stream_id: str, versions: Sequence[int]) -> dict[int, int]:
        """The global positions of the stream's events at `versions` (those that exist)."""
        with self.pool.connection() as conn:
            rows = conn.execute(
                "SELECT version, global_position FROM events WHERE stream_id = %s AND version = ANY(%s)",
                (stream_id, list(versions)),
            ).fetchall()
        return {int(row["version"]): int(row["global_position"]) for row in rows}

    def deal_holds_v1_private(self, stream_id: str, deal_no: int) -> bool:
        """Whether deal `deal_no` of the stream has a private block hashed whole (hash version 1, written before
        migration 006): the deal's events are read from its `deal_started` on (the partial index of deal starts),
        so the cost is one deal's, whatever the table's history."""
        with self.pool.connection() as conn:
            row = conn.execute(
                """SELECT EXISTS (
                       SELECT 1 FROM events
                       WHERE stream_id = %(stream)s AND deal_no = %(deal)s AND hash_version = 1
                         AND (data -> 'private') IS NOT NULL
                         AND version >= coalesce((SELECT version FROM events WHERE stream_id = %(stream)s
                                                  AND deal_no = %(deal)s AND type = 'deal_started'), 1)
                   ) AS held""",
                {"stream": stream_id, "deal": deal_no},
            ).fetchone()
        return bool(row is not None and row["held"])

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


_DUPLICATE_PREPARED_STATEMENT = "42P05"
_UNKNOWN_PREPARED_STATEMENT = "26000"


def _sqlstate(result: PGresult) -> str | None:
    if result.status == ExecStatus.COMMAND_OK or result.status == ExecStatus.TUPLES_OK:
        return None
    state = result.error_field(psycopg.pq.DiagnosticField.SQLSTATE)
    return None if state is None else state.decode()


# In canonical JSON (no spaces) a float is a value right after ":", "," or "[", written with a fraction or an
# exponent, or as Infinity or NaN.
_FLOAT_TOKEN = re.compile(r"[:,\[]-?(?:[0-9]+(?:\.|e[-+])|Infinity|NaN)")


def _may_hold_float(text: str) -> bool:
    """Whether canonical JSON `text` may hold a float; when it may, the walk through the value
    (`_refuse_floats`) decides. Python writes every float with a ".", an exponent ("e+" or "e-") or as
    Infinity or NaN: substring searches rule most text out at little cost, and the regular expression
    most of the rest (dots in strings such as "1.4" or "203.0.113.7" are not after ":", "," or "[")."""
    if "." in text or "e+" in text or "e-" in text or "Infinity" in text or "NaN" in text:
        return _FLOAT_TOKEN.search(text) is not None
    return False


def _refuse_floats(value: JSON, path: str) -> None:
    """Events hold no floats: amounts are integers, and jsonb rewrites some floats (1e16, -0.0), so a value read
    through a cast to jsonb would no longer match the event's hash."""
    if isinstance(value, float):
        raise ValueError(f"event field {path} is the float {value!r}; events hold integers, strings, lists and objects")
    if isinstance(value, Mapping):
        for key, item in value.items():
            _refuse_floats(item, f"{path}.{key}")
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            _refuse_floats(item, f"{path}[{index}]")


# How canonical JSON writes the NUL character. A string holding a backslash followed by "u0000" is written with
# it too (after an escaped backslash), so finding it only means the walk through the value (`_refuse_nul`) decides.
_NUL_ESCAPE = "\\u0000"


def _refuse_nul(value: JSON, path: str) -> None:
    """Events hold no NUL character: the json column would take it, but PostgreSQL turns it into neither text nor
    jsonb, so every query reading the event's fields (`->`, `->>`, as the reports do) would fail on it."""
    if isinstance(value, str):
        at = value.find("\x00")
        if at >= 0:
            raise ValueError(f"event field {path} holds the NUL character (at index {at})")
    elif isinstance(value, Mapping):
        for key, item in value.items():
            if "\x00" in key:
                raise ValueError(f"event field {path} has a key holding the NUL character: {key!r}")
            _refuse_nul(item, f"{path}.{key}")
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            _refuse_nul(item, f"{path}[{index}]")


def read_stream_in(
    conn: Conn, stream_id: str, from_version: int = 1, to_version: int | None = None, limit: int | None = None
) -> list[RecordedEvent]:
    upper = "" if to_version is None else " AND version <= %(to)s"
    return fetch_events(
        conn,
        f"""SELECT {_COLUMNS} FROM events WHERE stream_id = %(stream)s AND version >= %(from)s{upper}
            ORDER BY version LIMIT %(limit)s""",
        {"stream": stream_id, "from": from_version, "to": to_version, "limit": limit},
    )


def read_log_in(conn: Conn, after: LogPosition, limit: int) -> list[RecordedEvent]:
    """Committed events after `after`, in commit-safe order.

    Only events whose writing transaction is older than the oldest transaction
    still running are returned (pg_snapshot_xmin), ordered by (tx_id,
    global_position). Every transaction that could still commit has a larger
    tx_id than anything returned, so it lands after the reader's position.
    """
    return fetch_events(conn, READ_LOG_SQL, (str(after.tx_id), after.global_position, limit))


READ_LOG_SQL = f"""SELECT {_COLUMNS} FROM events
    WHERE (tx_id, global_position) > (%s::text::xid8, %s)
      AND tx_id < pg_snapshot_xmin(pg_current_snapshot())
    ORDER BY events.tx_id, events.global_position
    LIMIT %s"""
