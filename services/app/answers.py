"""How events are shown to a caller (API.md): redacted for the viewer, with their hashes unless a running
deal's hashes must be withheld, and the answer of a write built from them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from domain import table as tables
from domain.events import JSON
from domain.hashchain import CURRENT_HASH_VERSION, canonical_timestamp
from domain.redaction import AUDITOR, Viewer, redact_data
from domain.table import TableState
from infra.config import CacheSizes
from infra.event_store import EventStorage, PendingAppend, RecordedEvent
from infra.lru import Lru


def deal_is_over(state: TableState, deal_no: int) -> bool:
    return deal_no < state.deal_no or (deal_no == state.deal_no and state.status != tables.PLAYING)


def event_json(event: RecordedEvent, viewer: Viewer, deal_over: bool, hashes_withheld: bool = False) -> dict[str, JSON]:
    """An event as API.md shows it, redacted for `viewer`: with everything its hash covers but a private block
    the viewer may not see (`occurred_at` is the exact text hashed), so anyone can recompute the chain.

    `hashes_withheld`: the event belongs to a running deal that holds a private block hashed whole (hash version
    1, written before migration 006). Every hash after such a block chains from it, so a few thousand guesses
    would give its cards back from any of them: `hash` and `prev_hash` are null until the deal ends."""
    return shown_event(event, redact_data(event.data, viewer, deal_over), hashes_withheld)


def shown_event(event: RecordedEvent, data: JSON, hashes_withheld: bool) -> dict[str, JSON]:
    """`event` as API.md shows it with `data` as the viewer sees it."""
    return _shown(
        event.version,
        event.global_position,
        event.type,
        event.deal_no,
        canonical_timestamp(event.occurred_at),
        data,
        event.metadata,
        event.schema_version,
        event.hash_version,
        None if hashes_withheld else event.prev_hash,
        None if hashes_withheld else event.hash,
    )


def _shown(
    position: int,
    global_position: int | None,
    type_: str,
    deal_no: int,
    occurred_at: str,
    data: JSON,
    metadata: Mapping[str, JSON],
    schema_version: int,
    hash_version: int,
    prev_hash: str | None,
    hash_: str | None,
) -> dict[str, JSON]:
    """The one place that orders an event's keys."""
    return {
        "position": position,
        "global_position": global_position,
        "type": type_,
        "deal_no": deal_no,
        "occurred_at": occurred_at,
        "data": data,
        "metadata": dict(metadata),
        "schema_version": schema_version,
        "hash_version": hash_version,
        "prev_hash": prev_hash,
        "hash": hash_,
    }


class WithheldHashes:
    """Which running deal's hashes a viewer may not see (see `event_json`); the auditor sees them all."""

    def __init__(self, store: EventStorage, size: int = CacheSizes().deals) -> None:
        self.store = store
        self._v1_private_deals: Lru[tuple[str, int], bool] = Lru(size)

    def deal_for(self, table_id: str, state: TableState, viewer: Viewer) -> int | None:
        """The running deal whose hashes `viewer` may not see, or None."""
        if viewer is AUDITOR or state.status != tables.PLAYING:
            return None
        return state.deal_no if self.deal_holds_v1_private(table_id, state.deal_no) else None

    def deal_begins(self, table_id: str, deal_no: int) -> None:
        """Deal `deal_no` is being started now: its events are written at the current hash version, so it holds
        no private block hashed whole, whether or not this write commits (no query needed)."""
        self._v1_private_deals.put((table_id, deal_no), False)

    def deal_holds_v1_private(self, table_id: str, deal_no: int) -> bool:
        """Cached: a deal's events written from now on are version 2, so the answer never changes."""
        key = (table_id, deal_no)
        held = self._v1_private_deals.get(key)
        if held is None:
            held = self.store.deal_holds_v1_private(table_id, deal_no)
            self._v1_private_deals.put(key, held)
        return held

    def clear(self) -> None:
        self._v1_private_deals.clear()


def events_json(
    state: TableState, events: Sequence[RecordedEvent], viewer: Viewer, withheld: int | None
) -> list[dict[str, JSON]]:
    """`events` as `viewer` sees them from `state` (the table now), hashes of deal `withheld` left out."""
    return [event_json(e, viewer, deal_is_over(state, e.deal_no), e.deal_no == withheld) for e in events]


def write_answer(
    state: TableState, pending: PendingAppend, viewer: Viewer, withheld: int | None, receipt: JSON
) -> dict[str, JSON]:
    """The answer to an action, before the database numbers its events (`global_position` null): each event of
    `pending` as `event_json` shows it once recorded. It is stored as it is with the idempotency key, and the
    positions are filled in for the first answer (`numbered`, or in place) and for every replay alike. The
    receipt is left out when the answer withholds its last event's hash (a running deal begun before hash
    version 2): the receipt holds that hash, and its signature would test guesses."""
    shown: list[dict[str, JSON]] = []
    hashes = pending.hashes
    for offset, new in enumerate(pending.new):
        hidden = new.deal_no == withheld
        data = redact_data(new.data, viewer, deal_is_over(state, new.deal_no))
        shown.append(
            _shown(
                pending.expected_version + offset + 1,
                None,
                new.type,
                new.deal_no,
                pending.occurred_at_text,
                data,
                new.metadata,
                new.schema_version,
                CURRENT_HASH_VERSION,
                None if hidden else hashes[offset],
                None if hidden else hashes[offset + 1],
            )
        )
    last_hash_shown = bool(shown) and shown[-1]["hash"] is not None
    return {"version": state.version, "events": list(shown), "receipt": receipt if last_hash_shown else None}


def numbered(answer: Mapping[str, Any], positions: Mapping[int, int]) -> dict[str, JSON]:
    """`answer` (from `write_answer`) with each event's global position, by its position in the stream."""
    shown = [dict(event) for event in answer.get("events") or [] if isinstance(event, Mapping)]
    for event in shown:
        event["global_position"] = positions.get(int(event["position"]))
    return {**answer, "events": list(shown)}
