"""The per-stream hash chain: hash = SHA-256(prev_hash || canonical JSON of the event)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from datetime import UTC, datetime

from domain.events import JSON

GENESIS_HASH = "0" * 64


def canonical_json(value: JSON) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def canonical_timestamp(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def event_hash(prev_hash: str, hashed_fields: Mapping[str, JSON]) -> str:
    return hashlib.sha256(prev_hash.encode("ascii") + canonical_json(dict(hashed_fields))).hexdigest()


def hashed_fields(
    stream_id: str,
    version: int,
    type_: str,
    schema_version: int,
    deal_no: int,
    data: Mapping[str, JSON],
    metadata: Mapping[str, JSON],
    occurred_at: datetime,
) -> dict[str, JSON]:
    """Everything about an event that the chain protects."""
    return {
        "stream_id": stream_id,
        "version": version,
        "type": type_,
        "schema_version": schema_version,
        "deal_no": deal_no,
        "data": dict(data),
        "metadata": dict(metadata),
        "occurred_at": canonical_timestamp(occurred_at),
    }
