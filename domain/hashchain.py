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
from json.encoder import c_make_encoder, encode_basestring  # type: ignore[attr-defined]

from domain.events import JSON, PRIVATE

GENESIS_HASH = "0" * 64
HASH_V1 = 1
HASH_V2 = 2
CURRENT_HASH_VERSION = HASH_V2
HASH_VERSIONS = (HASH_V1, HASH_V2)

PRIVATE_COMMITMENT = "private_commitment"
SALT = "salt"
SALT_HEX_CHARS = 64  # 256 bits


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
    """`event_hash(prev_hash, hashed_fields(...))` from the canonical texts of data and metadata (for hash
    version 2, `data_text` is the text of `hashed_data`: without the private block).

    The event store needs those texts anyway (they are what it sends to the database), so encoding
    them once here instead of again inside the whole event saves a JSON encoding per appended event.
    The keys are written in sorted order, so the bytes are those `canonical_json` gives.
    """
    # A string's canonical JSON is what the encoder's own string function writes (one C call).
    version_field = "" if hash_version == HASH_V1 else f'"hash_version":{int(hash_version)},'
    text = (
        f'{{"data":{data_text},"deal_no":{int(deal_no)},{version_field}"metadata":{metadata_text},'
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
