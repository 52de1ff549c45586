"""The per-stream hash chain: hash = SHA-256(prev_hash || canonical JSON of the event)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from datetime import UTC, datetime
from json.encoder import c_make_encoder, encode_basestring  # type: ignore[attr-defined]

from domain.events import JSON

GENESIS_HASH = "0" * 64


_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _refuse(value: object) -> object:
    raise TypeError(f"{type(value).__name__} {value!r} is not JSON")


# Every append encodes its events here, and json.dumps (even JSONEncoder.encode) builds a new C encoder per
# call, which costs more than encoding a small event. So one C encoder, made once with the same options, is
# called directly; without the circular-reference check (no `markers`), as event data is a tree of plain values.
_C_CANONICAL = (
    None
    if c_make_encoder is None
    else c_make_encoder(None, _refuse, encode_basestring, None, ":", ",", True, False, True)
)


def canonical_text(value: JSON) -> str:
    if _C_CANONICAL is None:
        return _CANONICAL.encode(value)
    return "".join(_C_CANONICAL(value, 0))


def canonical_json(value: JSON) -> bytes:
    return canonical_text(value).encode("utf-8")


def canonical_timestamp(moment: datetime) -> str:
    """ISO 8601 in UTC with microseconds, as strftime("%Y-%m-%dT%H:%M:%S.%fZ") writes it. isoformat, in C,
    writes the same but for the "+00:00" it ends with (strftime is a large part of an append's cost); strftime
    stays for years before 1000, which it does not pad to four digits as isoformat does."""
    t = moment if moment.tzinfo is UTC else moment.astimezone(UTC)
    if t.year < 1000:
        return t.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    return t.isoformat(timespec="microseconds")[:-6] + "Z"


def event_hash(prev_hash: str, hashed_fields: Mapping[str, JSON]) -> str:
    return hashlib.sha256(prev_hash.encode("ascii") + canonical_json(dict(hashed_fields))).hexdigest()


def chained_hash(
    prev_hash: str,
    stream_id: str,
    version: int,
    type_: str,
    schema_version: int,
    deal_no: int,
    data_text: str,
    metadata_text: str,
    occurred_at_text: str,
) -> str:
    """`event_hash(prev_hash, hashed_fields(...))` from the canonical texts of data and metadata.

    The event store needs those texts anyway (they are what it sends to the database), so encoding
    them once here instead of again inside the whole event saves a JSON encoding per appended event.
    The keys are written in sorted order, so the bytes are those `canonical_json` gives.
    """
    # A string's canonical JSON is what the encoder's own string function writes (one C call).
    text = (
        f'{{"data":{data_text},"deal_no":{int(deal_no)},"metadata":{metadata_text},'
        f'"occurred_at":{encode_basestring(occurred_at_text)},"schema_version":{int(schema_version)},'
        f'"stream_id":{encode_basestring(stream_id)},"type":{encode_basestring(type_)},"version":{int(version)}}}'
    )
    return hashlib.sha256(prev_hash.encode("ascii") + text.encode("utf-8")).hexdigest()


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
