"""The event store as the rest of cardledger uses it, whichever implementation is behind it."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from datetime import datetime
from typing import Protocol

from infra.event_store.model import (
    START,
    DealFacts,
    IdempotencyRecord,
    LogPosition,
    NewEvent,
    PendingAppend,
    RecordedEvent,
)


class EventStorage(Protocol):
    """Optimistic appends per stream and a global log in commit order.

    The suite in tests/integration/test_event_store_contract.py holds every implementation to this contract.
    PostgreSQL (`EventStore`) is the production store; `InMemoryEventStore` runs domain-level tests with no
    server. Appending on a caller's connection (`EventStore.append_in`, `append_prepared`) is PostgreSQL's own; the
    application appends what it prepared through its session (`services.app.ports.GuardedAppend`).
    """

    def prepare(
        self,
        stream_id: str,
        expected_version: int,
        events: Sequence[NewEvent],
        head_hash: str,
        at: datetime | None = None,
    ) -> PendingAppend:
        """`chain.prepare`: the events numbered, sealed and chained after the head, before any store takes them."""
        ...

    def append(
        self,
        stream_id: str,
        expected_version: int,
        events: Sequence[NewEvent],
        idempotency: IdempotencyRecord | None = None,
        head_hash: str | None = None,
    ) -> list[RecordedEvent]:
        """Append all `events` after `expected_version` atomically, numbered and hash-chained, with the
        idempotency record if any. Raises VersionConflict when the stream is not at `expected_version` (or its
        last hash is not `head_hash`, when given), IdempotencyKeyTaken when the record's key is taken in its
        scope (nothing is written either way), and ValueError for no events or an event holding a float or a
        NUL character."""
        ...

    def find_idempotency(self, scope: str, key: str) -> IdempotencyRecord | None: ...

    def stream_version(self, stream_id: str) -> int | None:
        """The version of the stream's last event; None for a stream with none."""
        ...

    def read_stream(
        self, stream_id: str, from_version: int = 1, to_version: int | None = None, limit: int | None = None
    ) -> list[RecordedEvent]: ...

    def read_log(self, after: LogPosition = START, limit: int = 500) -> list[RecordedEvent]:
        """Committed events after `after`, in commit order: a reader that moves its position to the last event
        it read never skips an event committed later."""
        ...

    def iterate_log(self, after: LogPosition = START, batch_size: int = 1000) -> Iterator[list[RecordedEvent]]: ...

    def global_positions(self, stream_id: str, versions: Sequence[int]) -> dict[int, int]: ...

    def deal_holds_v1_private(self, stream_id: str, deal_no: int) -> bool: ...

    def deal_facts(self, stream_id: str, deal_numbers: Iterable[int]) -> dict[int, DealFacts]:
        """Of each of the stream's deals in `deal_numbers` that has started: who plays it (by seat, as its
        deal_started names them; None for a deal begun before seats could change hands) and whether it has
        ended. Read from the deals' start and end events alone: nothing is folded."""
        ...
