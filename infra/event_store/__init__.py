"""The event store: appends per stream with optimistic concurrency, a hash chain, and a global log in commit order.

- `model`       what goes in and comes out: NewEvent, RecordedEvent, LogPosition, IdempotencyRecord, PendingAppend
- `validation`  what no event may hold (floats, the NUL character)
- `chain`       `prepare`: numbering, salted private blocks and the hash chain, the same for every store
- `contract`    `EventStorage`, the Protocol every store meets (tests/integration/test_event_store_contract.py)
- `append`      PostgreSQL: the guarded append statement and the stream head
- `read`        PostgreSQL: one function per read query, on the caller's connection
- `postgres`    `EventStore`, the PostgreSQL store: the only one in production
- `memory`      `InMemoryEventStore`, the same contract with no server, for tests
"""

from typing import TYPE_CHECKING

from infra.db import Conn
from infra.event_store.chain import prepare
from infra.event_store.contract import EventStorage
from infra.event_store.memory import InMemoryEventStore
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
from infra.event_store.postgres import EventStore
from infra.event_store.read import (
    EVENT_COLUMNS,
    READ_LOG_SQL,
    LogTail,
    committed_after_in,
    fetch_events,
    fetch_events_kept,
    read_log_in,
    read_stream_in,
)

__all__ = [
    "EVENT_COLUMNS",
    "READ_LOG_SQL",
    "START",
    "Conn",
    "DealFacts",
    "EventRow",
    "EventStorage",
    "EventStore",
    "IdempotencyRecord",
    "InMemoryEventStore",
    "LogPosition",
    "LogTail",
    "NewEvent",
    "PendingAppend",
    "RecordedEvent",
    "committed_after_in",
    "fetch_events",
    "fetch_events_kept",
    "prepare",
    "read_log_in",
    "read_stream_in",
]

if TYPE_CHECKING:  # mypy holds both stores to the Protocol

    def _both_meet_the_contract(postgres: EventStore, memory: InMemoryEventStore) -> list[EventStorage]:
        return [postgres, memory]
