"""Numbering, sealing and chaining an append before any store takes it: the same for every implementation."""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from datetime import UTC, datetime

from domain.events import PRIVATE
from domain.hashchain import (
    CURRENT_HASH_VERSION,
    SALT_HEX_CHARS,
    canonical_text,
    canonical_timestamp,
    chained_hash,
    hashed_data,
    seal_private,
)
from infra.event_store.model import EventRow, NewEvent, PendingAppend
from infra.event_store.validation import NUL_ESCAPE, may_hold_float, refuse_floats, refuse_nul


def prepare(
    stream_id: str, expected_version: int, events: Sequence[NewEvent], head_hash: str, at: datetime | None = None
) -> PendingAppend:
    """The events as they will be recorded after the stream's head (`expected_version`, `head_hash`): versions,
    time (`at`, a UTC time, or now), private blocks sealed with fresh salts, and the hash chain; only the global
    position and the transaction id (0 here) are the store's. Raises ValueError for no events, or a float or NUL
    in one."""
    if not events:
        raise ValueError("append needs at least one event")
    now = datetime.now(UTC) if at is None else at
    stamp = canonical_timestamp(now)
    rows: list[EventRow] = []
    hashes = [head_hash]
    sealed_events: list[NewEvent] = []
    # The events of an append often share one metadata object: encoded and checked once.
    metadata: object = None
    metadata_text = ""
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
        # Encoded once: the same texts go into the hash and into the store.
        data = new.data
        data_text = canonical_text(data if type(data) is dict else dict(data))
        hashed_text = canonical_text(hashed_data(data, CURRENT_HASH_VERSION)) if PRIVATE in data else data_text
        fresh = new.metadata is not metadata  # else the same object as the last event's, checked with it
        if fresh:
            metadata = new.metadata
            metadata_text = canonical_text(metadata if type(metadata) is dict else dict(new.metadata))
        # The texts rule most events out cheaply; only a suspect one is walked through.
        if may_hold_float(data_text) or (fresh and may_hold_float(metadata_text)):
            refuse_floats(new.data, f"{new.type}.data")
            refuse_floats(new.metadata, f"{new.type}.metadata")
        if NUL_ESCAPE in data_text or (fresh and NUL_ESCAPE in metadata_text):
            refuse_nul(new.data, f"{new.type}.data")
            refuse_nul(new.metadata, f"{new.type}.metadata")
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
