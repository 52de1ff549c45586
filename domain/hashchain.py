"""The per-stream hash chain: hash = SHA-256(prev_hash || canonical JSON of the event).

Two forms (`docs/hashing.md` gives the byte layout and worked vectors):

- version 1 (events written before hash versions existed): the JSON holds the whole data, hidden
  cards included, so a hash shown to other seats could be brute-forced back into those cards;
- version 2: an event's private block holds a random salt, and only its commitment
  (SHA-256 of the block's canonical JSON, in data["private_commitment"]) enters the hash. The JSON
  holds the data without the block, plus "hash_version": 2, so no event can pass for the other form.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from datetime import UTC, datetime

from domain.events import JSON, PRIVATE

GENESIS_HASH = "0" * 64
HASH_V1 = 1
HASH_V2 = 2
CURRENT_HASH_VERSION = HASH_V2
HASH_VERSIONS = (HASH_V1, HASH_V2)

PRIVATE_COMMITMENT = "private_commitment"
SALT = "salt"
SALT_HEX_CHARS = 64  # 256 bits


# The one JSON encoder of the chain (docs/hashing.md): sorted keys, no spaces, UTF-8 as is.
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)
HASHED_FIELDS = frozenset(
    {"stream_id", "version", "type", "schema_version", "deal_no", "data", "metadata", "occurred_at", "hash_version"}
)


def canonical_text(value: JSON) -> str:
    """The canonical JSON text of `value`; TypeError for what is not JSON."""
    return _CANONICAL.encode(value)


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
    """The hash of an event given as its `hashed_fields`: `chained_hash` of their canonical texts."""
    unknown = set(hashed_fields) - HASHED_FIELDS
    if unknown:
        raise ValueError(f"fields {sorted(unknown)} are not hashed; the hashed fields are {sorted(HASHED_FIELDS)}")
    fields: Mapping[str, object] = hashed_fields
    return chained_hash(
        prev_hash,
        str(fields["stream_id"]),
        int(fields["version"]),  # type: ignore[call-overload]
        str(fields["type"]),
        int(fields["schema_version"]),  # type: ignore[call-overload]
        int(fields["deal_no"]),  # type: ignore[call-overload]
        canonical_text(hashed_fields["data"]),
        canonical_text(hashed_fields["metadata"]),
        str(fields["occurred_at"]),
        int(fields.get("hash_version", HASH_V1)),  # type: ignore[call-overload]
    )


def private_commitment(private: Mapping[str, JSON]) -> str:
    """SHA-256 (hex) of the canonical JSON of a private block, its salt included."""
    return hashlib.sha256(canonical_json(dict(private))).hexdigest()


def seal_private(data: Mapping[str, JSON], salt: str) -> dict[str, JSON]:
    """`data` with its private block salted and committed to (hash version 2); data without one unchanged.

    The salt is what makes the commitment unguessable: without it, a hand of a few cards from a known
    deck is a few thousand guesses away from its hash."""
    if PRIVATE not in data:
        return dict(data)
    private = data[PRIVATE]
    if not isinstance(private, Mapping):
        raise ValueError(f"the private block must be an object, not {type(private).__name__}")
    if SALT in private or PRIVATE_COMMITMENT in data:
        raise ValueError("the event's data is already sealed (it has a salt or a private_commitment)")
    if len(salt) != SALT_HEX_CHARS or salt.strip("0123456789abcdef"):
        raise ValueError(f"a salt is {SALT_HEX_CHARS} lowercase hex characters")
    salted = {**private, SALT: salt}
    sealed = {key: value for key, value in data.items() if key != PRIVATE}
    sealed[PRIVATE_COMMITMENT] = private_commitment(salted)
    sealed[PRIVATE] = salted
    return sealed


def unsealed(data: Mapping[str, JSON]) -> dict[str, JSON]:
    """`data` as the rules wrote it: without the salt and commitment that `seal_private` added."""
    if PRIVATE_COMMITMENT not in data:
        return dict(data)
    plain = {key: value for key, value in data.items() if key != PRIVATE_COMMITMENT}
    private = plain.get(PRIVATE)
    if isinstance(private, Mapping):
        plain[PRIVATE] = {key: value for key, value in private.items() if key != SALT}
    return plain


def hashed_data(data: Mapping[str, JSON], hash_version: int) -> dict[str, JSON]:
    """The part of an event's data its hash covers: all of it in version 1, all but the private block in 2."""
    if hash_version == HASH_V1 or PRIVATE not in data:
        return dict(data)
    return {key: value for key, value in data.items() if key != PRIVATE}


def commitment_problem(data: Mapping[str, JSON]) -> str | None:
    """Why a hash-version-2 event's private block does not match its commitment, or None when it does
    (or when the event has no private block and no commitment)."""
    private, committed = data.get(PRIVATE), data.get(PRIVATE_COMMITMENT)
    if private is None and committed is None:
        return None
    if committed is None:
        return "the private block has no private_commitment"
    if private is None:
        return "the private block is not shown (the deal has not ended, or the viewer may not see it)"
    if not isinstance(private, Mapping):
        return f"the private block is a {type(private).__name__}, not an object"
    if not isinstance(private.get(SALT), str) or len(private[SALT]) < 32:
        return "the private block has no salt of at least 128 bits"
    actual = private_commitment(private)
    if actual != committed:
        return f"SHA-256 of the private block is {actual}, but private_commitment says {committed}"
    return None


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
    hash_version: int = HASH_V1,
) -> str:
    """The one writer of the chain's hashed text: SHA-256 of `prev_hash` and the canonical JSON of the event's
    hashed fields (docs/hashing.md), from the canonical texts of its data and metadata (for hash version 2,
    `data_text` is the text of `hashed_data`: without the private block).

    The event store needs those texts anyway (they are what it sends to the database), so the data is encoded
    once. The keys are written in sorted order, so the text is the canonical JSON of the whole event.
    """
    version_field = "" if hash_version == HASH_V1 else f'"hash_version":{int(hash_version)},'
    text = (
        f'{{"data":{data_text},"deal_no":{int(deal_no)},{version_field}"metadata":{metadata_text},'
        f'"occurred_at":{canonical_text(occurred_at_text)},"schema_version":{int(schema_version)},'
        f'"stream_id":{canonical_text(stream_id)},"type":{canonical_text(type_)},"version":{int(version)}}}'
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
    occurred_at: datetime | str,
    hash_version: int = HASH_V1,
) -> dict[str, JSON]:
    """Everything about an event that the chain protects (`occurred_at` as a time, or its canonical text)."""
    if hash_version not in HASH_VERSIONS:
        raise ValueError(f"unknown hash version {hash_version}; known: {list(HASH_VERSIONS)}")
    fields: dict[str, JSON] = {
        "stream_id": stream_id,
        "version": version,
        "type": type_,
        "schema_version": schema_version,
        "deal_no": deal_no,
        "data": hashed_data(data, hash_version),
        "metadata": dict(metadata),
        "occurred_at": occurred_at if isinstance(occurred_at, str) else canonical_timestamp(occurred_at),
    }
    if hash_version != HASH_V1:
        fields["hash_version"] = hash_version
    return fields
