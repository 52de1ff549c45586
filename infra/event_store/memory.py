"""An event store in memory, under the same contract as PostgreSQL's (`EventStorage`), for tests with no server.

Events are prepared exactly as PostgreSQL's store prepares them (`chain.prepare`: versions, salted private
blocks, hash chain) and kept as their canonical texts, decoded on every read as a json column is. Each append
is one transaction under one lock: one transaction id, added to the log in commit order.
"""

from __future__ import annotations

import bisect
import threading
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime

from domain.events import PRIVATE
from domain.hashchain import GENESIS_HASH, HASH_V1
from domain.table import DEAL_ENDED, DEAL_STARTED
from infra import json_codec
from infra.errors import IdempotencyKeyTaken, VersionConflict
from infra.event_store.chain import prepare
from infra.event_store.model import (
    START,
    DealFacts,
    EventRow,
    IdempotencyRecord,
    LogPosition,
    NewEvent,
    PendingAppend,
    RecordedEvent,
)
from infra.event_store.read import deal_facts_of


@dataclass(frozen=True, slots=True)
class _Stored:
    """One event as stored: its numbers and the row an append sends (canonical JSON texts)."""

    log_position: LogPosition
    stream_id: str
    row: EventRow
    occurred_at: datetime

    @property
    def version(self) -> int:
        return self.row[0]

    @property
    def hash(self) -> str:
        return self.row[7]

    def event(self) -> RecordedEvent:
        version, type_, schema_version, deal_no, data, metadata, prev_hash, hash_, hash_version = self.row
        return RecordedEvent(
            self.log_position.global_position,
            self.stream_id,
            version,
            type_,
            schema_version,
            deal_no,
            json_codec.loads(data),
            json_codec.loads(metadata),
            self.occurred_at,
            prev_hash,
            hash_,
            self.log_position.tx_id,
            hash_version,
        )


class InMemoryEventStore:
    def __init__(self) -> None:
        self._log: list[_Stored] = []
        self._streams: dict[str, list[_Stored]] = {}
        self._keys: dict[tuple[str, str], str] = {}  # (scope, key) -> [request hash, response] as JSON
        self._lock = threading.Lock()

    def append(
        self,
        stream_id: str,
        expected_version: int,
        events: Sequence[NewEvent],
        idempotency: IdempotencyRecord | None = None,
        head_hash: str | None = None,
    ) -> list[RecordedEvent]:
        # The checks come in PostgreSQL's order: with a known head the events are prepared first (a ValueError
        # before a VersionConflict); without one the head is read first.
        if head_hash is not None:
            return self.append_prepared(prepare(stream_id, expected_version, events, head_hash), idempotency)
        with self._lock:
            stream = self._streams.get(stream_id, [])
            actual = len(stream) if stream else None
            if expected_version != (actual or 0):
                raise VersionConflict(stream_id, expected_version, actual)
            pending = prepare(stream_id, expected_version, events, stream[-1].hash if stream else GENESIS_HASH)
            return self._record(pending, idempotency)

    prepare = staticmethod(prepare)

    def append_prepared(
        self, pending: PendingAppend, idempotency: IdempotencyRecord | None = None
    ) -> list[RecordedEvent]:
        """Record `pending` (from `prepare`) with the idempotency record, atomically, only while the stream's
        head is where `prepare` was told it is, as PostgreSQL's guarded append: a known head needs a stream."""
        with self._lock:
            stream = self._streams.get(pending.stream_id, [])
            actual = len(stream) if stream else None
            if actual is None or pending.expected_version != actual or pending.hashes[0] != stream[-1].hash:
                raise VersionConflict(pending.stream_id, pending.expected_version, actual)
            return self._record(pending, idempotency)

    def _record(self, pending: PendingAppend, idempotency: IdempotencyRecord | None) -> list[RecordedEvent]:
        """Keep `pending` and the record (the caller holds the lock and has checked the head)."""
        if idempotency is not None and (idempotency.scope, idempotency.key) in self._keys:
            raise IdempotencyKeyTaken(idempotency.scope, idempotency.key)
        tx_id = self._log[-1].log_position.tx_id + 1 if self._log else 1
        stored = [
            _Stored(LogPosition(tx_id, len(self._log) + offset + 1), pending.stream_id, row, pending.occurred_at)
            for offset, row in enumerate(pending.rows)
        ]
        if idempotency is not None:
            kept = json_codec.dumps_text([idempotency.request_hash, dict(idempotency.response)])
            self._keys[(idempotency.scope, idempotency.key)] = kept
        self._log.extend(stored)
        self._streams[pending.stream_id] = [*self._streams.get(pending.stream_id, []), *stored]
        return [entry.event() for entry in stored]

    def find_idempotency(self, scope: str, key: str) -> IdempotencyRecord | None:
        with self._lock:
            kept = self._keys.get((scope, key))
        if kept is None:
            return None
        request_hash, response = json_codec.loads(kept)
        return IdempotencyRecord(scope, key, request_hash, response)

    def stream_version(self, stream_id: str) -> int | None:
        with self._lock:
            stream = self._streams.get(stream_id)
        return len(stream) if stream else None

    def read_stream(
        self, stream_id: str, from_version: int = 1, to_version: int | None = None, limit: int | None = None
    ) -> list[RecordedEvent]:
        with self._lock:
            stream = self._streams.get(stream_id, [])
        chosen = [
            entry for entry in stream[max(from_version, 1) - 1 :] if to_version is None or entry.version <= to_version
        ]
        return [entry.event() for entry in (chosen if limit is None else chosen[:limit])]

    def read_log(self, after: LogPosition = START, limit: int = 500) -> list[RecordedEvent]:
        with self._lock:
            start = bisect.bisect_right(self._log, after, key=lambda entry: entry.log_position)
            chosen = self._log[start : start + limit]
        return [entry.event() for entry in chosen]

    def iterate_log(self, after: LogPosition = START, batch_size: int = 1000) -> Iterator[list[RecordedEvent]]:
        while True:
            batch = self.read_log(after, batch_size)
            if not batch:
                return
            yield batch
            after = batch[-1].log_position

    def global_positions(self, stream_id: str, versions: Sequence[int]) -> dict[int, int]:
        with self._lock:
            stream = self._streams.get(stream_id, [])
        return {v: stream[v - 1].log_position.global_position for v in set(versions) if 1 <= v <= len(stream)}

    def deal_facts(self, stream_id: str, deal_numbers: Iterable[int]) -> dict[int, DealFacts]:
        """As PostgreSQL's: from the deals' deal_started and deal_ended events."""
        wanted = set(deal_numbers)
        with self._lock:
            stream = list(self._streams.get(stream_id, []))
        return deal_facts_of(
            (entry.row[3], entry.row[1], json_codec.loads(entry.row[4]).get("players"))
            for entry in stream
            if entry.row[3] in wanted and entry.row[1] in (DEAL_STARTED, DEAL_ENDED)
        )

    def deal_holds_v1_private(self, stream_id: str, deal_no: int) -> bool:
        """As PostgreSQL's: a private block of hash version 1 among the deal's events from its deal_started on."""
        with self._lock:
            stream = self._streams.get(stream_id, [])
        deal = [entry for entry in stream if entry.row[3] == deal_no]
        start = next((entry.version for entry in deal if entry.row[1] == DEAL_STARTED), 1)
        return any(
            entry.version >= start and entry.row[8] == HASH_V1 and PRIVATE in json_codec.loads(entry.row[4])
            for entry in deal
        )
