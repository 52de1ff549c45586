"""The PostgreSQL event store, the only one in production: optimistic appends per stream, a commit-safe log."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from itertools import chain

import psycopg
from psycopg.rows import tuple_row
from psycopg_pool import ConnectionPool

from infra.db import Conn
from infra.errors import IdempotencyKeyTaken, VersionConflict
from infra.event_store.append import append_sql, head_hash_in
from infra.event_store.chain import prepare as prepare_append
from infra.event_store.model import (
    START,
    DealFacts,
    IdempotencyRecord,
    LogPosition,
    NewEvent,
    PendingAppend,
    RecordedEvent,
)
from infra.event_store.read import (
    deal_facts_in,
    deal_holds_v1_private_in,
    find_idempotency_in,
    global_positions_in,
    read_log_in,
    read_stream_in,
    stream_version_in,
)
from infra.json_codec import dumps_text


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

        With the stream's `head_hash` known, the append (with its idempotency
        record) is a single statement, atomic by itself, so no BEGIN/COMMIT
        round trips are needed on an autocommit connection.
        """
        if head_hash is not None:
            pending = self.prepare(stream_id, expected_version, events, head_hash)
            # getconn/putconn, not pool.connection(): its context manager and `with conn` commit, which is a
            # no-op in autocommit but not free on the hot path.
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
        prev_hash = head_hash_in(conn, stream_id, expected_version) if head_hash is None else head_hash
        pending = self.prepare(stream_id, expected_version, events, prev_hash)
        return self.append_prepared(conn, pending, idempotency)

    prepare = staticmethod(prepare_append)

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
        # In the order of the parameters of append_sql: the head, the idempotency record, the time, the events.
        params: list[str | int] = [
            expected_version + len(pending.new),
            pending.hashes[-1],
            stream_id,
            expected_version,
            pending.hashes[0],
        ]
        if idempotency is not None:
            response = dumps_text(dict(idempotency.response))
            params += [idempotency.scope, idempotency.key, idempotency.request_hash, response]
        params.append(pending.occurred_at_text)
        params.extend(chain.from_iterable(pending.rows))
        try:
            rows = self._execute_append(conn, len(pending.rows), idempotency is not None, params)
        except psycopg.errors.UniqueViolation as error:
            if idempotency is not None and error.diag.constraint_name == "idempotency_keys_pkey":
                raise IdempotencyKeyTaken(idempotency.scope, idempotency.key) from error
            raise
        if not rows:
            raise VersionConflict(stream_id, expected_version, stream_version_in(conn, stream_id))
        # The database only numbers the events; the rest is what was sent (not read back and parsed again).
        return pending.recorded({version: (global_position, tx_id) for version, global_position, tx_id in rows})

    @staticmethod
    def _execute_append(
        conn: Conn, event_count: int, remember: bool, params: list[str | int]
    ) -> list[tuple[int, int, int]]:
        """Run the append statement: (version, global position, tx id) of each event inserted, none when the
        head had moved. Prepared on the connection by psycopg, which keeps it there as long as it can."""
        with conn.cursor(row_factory=tuple_row) as cursor:
            cursor.execute(append_sql(event_count, remember), params, prepare=True)
            return cursor.fetchall()

    def find_idempotency(self, scope: str, key: str) -> IdempotencyRecord | None:
        with self.pool.connection() as conn:
            return find_idempotency_in(conn, scope, key)

    # Reading ----------------------------------------------------------------

    def global_positions(self, stream_id: str, versions: Sequence[int]) -> dict[int, int]:
        """The global positions of the stream's events at `versions` (those that exist)."""
        with self.pool.connection() as conn:
            return global_positions_in(conn, stream_id, versions)

    def deal_holds_v1_private(self, stream_id: str, deal_no: int) -> bool:
        """Whether deal `deal_no` of the stream has a private block hashed whole (hash version 1)."""
        with self.pool.connection() as conn:
            return deal_holds_v1_private_in(conn, stream_id, deal_no)

    def deal_facts(self, stream_id: str, deal_numbers: Iterable[int]) -> dict[int, DealFacts]:
        with self.pool.connection() as conn:
            return deal_facts_in(conn, stream_id, deal_numbers)

    def stream_version(self, stream_id: str) -> int | None:
        with self.pool.connection() as conn:
            return stream_version_in(conn, stream_id)

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
