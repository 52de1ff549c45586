"""The hash chain's fast form and the event store's float check, against their plain definitions."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain.hashchain import (
    CURRENT_HASH_VERSION,
    GENESIS_HASH,
    HASH_V2,
    canonical_json,
    canonical_text,
    canonical_timestamp,
    chained_hash,
    commitment_problem,
    event_hash,
    hashed_data,
    hashed_fields,
    private_commitment,
    seal_private,
)
from infra.event_store import EventStore, NewEvent
from infra.event_store.validation import may_hold_float

# No lone surrogates (not UTF-8) and no NUL (events refuse it: jsonb cannot hold it).
text = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=12)
whole = st.integers(-(2**53), 2**53)
json_without_floats = st.recursive(
    st.none() | st.booleans() | whole | text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(text, inner, max_size=4),
    max_leaves=12,
)
objects = st.dictionaries(text, json_without_floats, max_size=5)
moments = st.datetimes(timezones=st.just(UTC))


@given(
    st.text(min_size=1, max_size=20),
    st.integers(1, 10**6),
    text,
    st.integers(1, 9),
    st.integers(0, 500),
    objects,
    objects,
    moments,
    st.sampled_from([1, 2]),
)
def test_the_hash_is_sha256_of_the_documented_canonical_json_of_the_event(
    stream_id: str,
    version: int,
    type_: str,
    schema_version: int,
    deal_no: int,
    data: dict[str, object],
    metadata: dict[str, object],
    moment: datetime,
    hash_version: int,
) -> None:
    """The chain's one text writer (`chained_hash`, which `event_hash` calls) against docs/hashing.md's
    definition, written here with the standard library alone: SHA-256 of the previous hash and json.dumps of
    the hashed fields with sorted keys, no spaces and UTF-8 as is."""
    fields = hashed_fields(stream_id, version, type_, schema_version, deal_no, data, metadata, moment, hash_version)  # type: ignore[arg-type]
    documented = json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    expected = hashlib.sha256(GENESIS_HASH.encode() + documented.encode("utf-8")).hexdigest()
    written = chained_hash(
        GENESIS_HASH,
        stream_id,
        version,
        type_,
        schema_version,
        deal_no,
        canonical_text(fields["data"]),  # type: ignore[arg-type]
        canonical_text(metadata),  # type: ignore[arg-type]
        canonical_timestamp(moment),
        hash_version,
    )
    assert written == expected
    assert event_hash(GENESIS_HASH, fields) == expected


def test_event_hash_refuses_a_field_the_chain_does_not_hash() -> None:
    fields = hashed_fields("t", 1, "x", 1, 0, {}, {}, "2026-01-01T00:00:00.000000Z")
    with pytest.raises(ValueError, match="are not hashed"):
        event_hash(GENESIS_HASH, {**fields, "extra": 1})


@given(json_without_floats)
def test_canonical_text_is_what_json_dumps_writes(value: object) -> None:
    assert canonical_text(value) == json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)  # type: ignore[arg-type]


def test_canonical_text_refuses_what_is_not_json() -> None:
    with pytest.raises(TypeError, match="is not JSON"):
        canonical_text({"a": {1, 2}})  # type: ignore[dict-item]


@given(st.datetimes(timezones=st.just(UTC) | st.timezones() | st.none()))
def test_canonical_timestamp_is_what_strftime_writes_in_utc(moment: datetime) -> None:
    assert canonical_timestamp(moment) == moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def test_canonical_text_is_sorted_compact_and_keeps_non_ascii() -> None:
    assert canonical_text({"b": [1, "é"], "a": {"d": None, "c": True}}) == '{"a":{"c":true,"d":null},"b":[1,"é"]}'
    assert canonical_json({"b": 1, "a": "é"}) == '{"a":"é","b":1}'.encode()


floats = st.floats(allow_nan=True, allow_infinity=True)


@st.composite
def json_with_a_float(draw: st.DrawFn) -> object:
    """A float, wrapped in 0 to 3 lists or objects beside other values."""
    value: object = draw(floats)
    for _ in range(draw(st.integers(0, 3))):
        if draw(st.booleans()):
            value = [*draw(st.lists(json_without_floats, max_size=3)), value]
        else:
            value = {**draw(objects), draw(text): value}
    return value


@given(objects, text, json_with_a_float())
def test_any_float_in_an_object_is_seen_in_its_canonical_text(base: dict[str, object], key: str, value: object) -> None:
    assert may_hold_float(canonical_text({**base, key: value}))  # type: ignore[dict-item]


def test_every_kind_of_float_is_seen() -> None:
    for value in (0.5, -0.0, 1e16, 1e-7, -2.5e300, float("inf"), float("-inf"), float("nan")):
        for holder in ({"x": value}, {"x": [1, value]}, {"x": [{"y": value}]}):
            assert may_hold_float(canonical_text(holder)), holder  # type: ignore[arg-type]


def test_ids_and_card_codes_are_not_taken_for_floats() -> None:
    for value in (
        {"request_id": "req_5f1c2a9e7b3d"},
        {"cards": ["9E", "1e5", "7M"]},
        {"n": [1, -2, 10**20]},
        {"ip": "203.0.113.7", "ua": "cardledger-web/1.4", "note": "e+e-"},
    ):
        assert not may_hold_float(canonical_text(value))  # type: ignore[arg-type]


@given(
    st.lists(
        st.tuples(text, st.integers(0, 50), objects.filter(lambda data: "private" not in data), objects),
        min_size=1,
        max_size=4,
    )
)
def test_the_prepared_rows_carry_each_event_as_recorded(events: list[tuple[str, int, dict, dict]]) -> None:  # type: ignore[type-arg]
    new = [NewEvent(type_, data, deal_no, metadata) for type_, deal_no, data, metadata in events]
    pending = EventStore.prepare("table-1", 3, new, GENESIS_HASH)
    sent = [
        (version, type_, schema_version, deal_no, json.loads(data), json.loads(metadata), prev_hash, hash_, hv)
        for version, type_, schema_version, deal_no, data, metadata, prev_hash, hash_, hv in pending.rows
    ]
    assert sent == [
        (e.version, e.type, e.schema_version, e.deal_no, e.data, e.metadata, e.prev_hash, e.hash, e.hash_version)
        for e in pending.events
    ]
    assert all(e.hash_version == CURRENT_HASH_VERSION == HASH_V2 for e in pending.events)
    assert [e.version for e in pending.events] == list(range(4, 4 + len(events)))
    assert pending.events[0].prev_hash == GENESIS_HASH
    assert all(e.recomputed_hash() == e.hash for e in pending.events)
    assert all(a.hash == b.prev_hash for a, b in zip(pending.events, pending.events[1:], strict=False))
    assert pending.occurred_at_text == canonical_timestamp(pending.events[0].occurred_at)


@given(
    st.text(min_size=1, max_size=20),
    st.integers(1, 10**6),
    text,
    st.integers(0, 500),
    objects,
    objects,
    objects,
    moments,
)
def test_the_version_2_fast_form_equals_the_hash_of_the_canonical_event_without_the_private_block(
    stream_id: str,
    version: int,
    type_: str,
    deal_no: int,
    public: dict[str, object],
    private: dict[str, object],
    metadata: dict[str, object],
    moment: datetime,
) -> None:
    public = {key: value for key, value in public.items() if key not in ("private", "private_commitment")}
    private = {key: value for key, value in private.items() if key != "salt"}
    data = seal_private({**public, "private": private}, "ab" * 32)
    fields = hashed_fields(stream_id, version, type_, 1, deal_no, data, metadata, moment, HASH_V2)
    assert "private" not in fields["data"] and fields["hash_version"] == HASH_V2
    fast = chained_hash(
        GENESIS_HASH,
        stream_id,
        version,
        type_,
        1,
        deal_no,
        canonical_text(hashed_data(data, HASH_V2)),
        canonical_text(metadata),  # type: ignore[arg-type]
        canonical_timestamp(moment),
        HASH_V2,
    )
    assert fast == event_hash(GENESIS_HASH, fields)
    assert commitment_problem(data) is None


def test_a_sealed_block_is_salted_and_committed_and_the_hash_does_not_depend_on_it() -> None:
    data = seal_private({"seat": 0, "private": {"cards": ["1C", "2C", "3C"]}}, "0f" * 32)
    assert data["private"] == {"cards": ["1C", "2C", "3C"], "salt": "0f" * 32}
    assert data["private_commitment"] == private_commitment(data["private"])
    other = seal_private({"seat": 0, "private": {"cards": ["9M", "9M", "9M"]}}, "0f" * 32)
    without = {key: value for key, value in data.items() if key != "private"}
    assert hashed_data(data, HASH_V2) == without
    assert hashed_data(other, HASH_V2)["private_commitment"] != without["private_commitment"]
    assert "private" in hashed_data(data, 1)


def test_a_changed_private_block_or_salt_breaks_its_commitment() -> None:
    data = seal_private({"seat": 1, "private": {"cards": ["1C"]}}, "12" * 32)
    assert commitment_problem({**data, "private": {"cards": ["2C"], "salt": "12" * 32}}) is not None
    assert commitment_problem({**data, "private": {"cards": ["1C"], "salt": "13" * 32}}) is not None
    assert "no salt" in str(commitment_problem({**data, "private": {"cards": ["1C"]}}))
    no_commitment = {key: value for key, value in data.items() if key != "private_commitment"}
    assert "no private_commitment" in str(commitment_problem(no_commitment))


def test_sealing_refuses_a_bad_salt_or_a_block_sealed_twice() -> None:
    with pytest.raises(ValueError, match="hex"):
        seal_private({"private": {"cards": []}}, "short")
    sealed = seal_private({"private": {"cards": []}}, "00" * 32)
    with pytest.raises(ValueError, match="already sealed"):
        seal_private(sealed, "00" * 32)


def test_the_store_gives_every_private_block_a_fresh_salt() -> None:
    new = [NewEvent("cards_drawn", {"seat": 0, "private": {"cards": ["1C"]}}) for _ in range(2)]
    first, second = EventStore.prepare("table-1", 0, new, GENESIS_HASH).events
    assert first.data["private"]["salt"] != second.data["private"]["salt"]
    assert len(first.data["private"]["salt"]) == 64
    assert first.data["private_commitment"] != second.data["private_commitment"]
    assert first.recomputed_hash() == first.hash and second.recomputed_hash() == second.hash
