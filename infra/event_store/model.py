"""What the event store takes and gives: new events, recorded events, log positions, idempotency records."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import NamedTuple

from domain.events import JSON
from domain.hashchain import CURRENT_HASH_VERSION, HASH_V1, event_hash, hashed_fields


@dataclass(frozen=True, slots=True)
class NewEvent:
    type: str
    data: Mapping[str, JSON]
    deal_no: int = 0
    metadata: Mapping[str, JSON] = field(default_factory=dict)
    schema_version: int = 1


class RecordedEvent(NamedTuple):
    """An event as the log holds it. A NamedTuple, not a frozen dataclass: reading the log makes one per event,
    and a tuple is made without a Python call per field (docs/performance.md, "Reading and appending events")."""

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


@dataclass(frozen=True, slots=True)
class IdempotencyRecord:
    scope: str  # whose key it is (the caller)
    key: str
    request_hash: str
    response: Mapping[str, JSON]


# What an append stores of each event: version, type, schema version, deal, data and metadata (canonical JSON
# texts), previous hash, hash and hash version.
EventRow = tuple[int, str, int, int, str, str, str, str, int]


@dataclass(frozen=True, slots=True)
class PendingAppend:
    """Events numbered and chained by `prepare`, with the rows that carry them to the store.

    The RecordedEvents are made once the store has numbered them (`recorded`), not before: an append makes
    them once.
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
        """The events as they will be recorded, before the store numbers them (positions 0)."""
        return self.recorded(None)

    def recorded(self, numbers: Mapping[int, tuple[int, int]] | None) -> list[RecordedEvent]:
        """The events with the (global position, tx id) the store gave each version; (0, 0) when `numbers`
        is None. A version missing from `numbers` is a KeyError: the store numbers every event it takes."""
        events = []
        stream_id, occurred_at, hashes = self.stream_id, self.occurred_at, self.hashes
        for offset, new in enumerate(self.new):
            version = self.expected_version + offset + 1
            global_position, tx_id = (0, 0) if numbers is None else numbers[version]
            event = RecordedEvent(
                global_position,
                stream_id,
                version,
                new.type,
                new.schema_version,
                new.deal_no,
                new.data,
                new.metadata,
                occurred_at,
                hashes[offset],
                hashes[offset + 1],
                tx_id,
                CURRENT_HASH_VERSION,
            )
            events.append(event)
        return events


@dataclass(frozen=True, slots=True)
class DealFacts:
    """What a deal's start and end events say of it: its players by seat (None: not named, a deal begun before
    seats could change hands) and whether it has ended."""

    players: tuple[str | None, ...] | None
    ended: bool

    def seat_of(self, player_id: str) -> int | None:
        if self.players is None or player_id not in self.players:
            return None
        return self.players.index(player_id)
