"""The hash chain's fast form and the event store's float check, against their plain definitions."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain.hashchain import (
    GENESIS_HASH,
    canonical_json,
    canonical_text,
    canonical_timestamp,
    chained_hash,
    event_hash,
    hashed_fields,
)
from infra.event_store import EventStore, NewEvent, _may_hold_float

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
)
def test_chained_hash_equals_the_hash_of_the_whole_canonical_event(
    stream_id: str,
    version: int,
    type_: str,
    schema_version: int,
    deal_no: int,
    data: dict[str, object],
    metadata: dict[str, object],
    moment: datetime,
) -> None:
    fields = hashed_fields(stream_id, version, type_, schema_version, deal_no, data, metadata, moment)  # type: ignore[arg-type]
    fast = chained_hash(
        GENESIS_HASH,
        stream_id,
        version,
        type_,
        schema_version,
        deal_no,
        canonical_text(data),  # type: ignore[arg-type]
        canonical_text(metadata),  # type: ignore[arg-type]
        canonical_timestamp(moment),
    )
    assert fast == event_hash(GENESIS_HASH, fields)


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
    assert _may_hold_float(canonical_text({**base, key: value}))  # type: ignore[dict-item]


def test_every_kind_of_float_is_seen() -> None:
    for value in (0.5, -0.0, 1e16, 1e-7, -2.5e300, float("inf"), float("-inf"), float("nan")):
        for holder in ({"x": value}, {"x": [1, value]}, {"x": [{"y": value}]}):
            assert _may_hold_float(canonical_text(holder)), holder  # type: ignore[arg-type]


def test_ids_and_card_codes_are_not_taken_for_floats() -> None:
    for value in (
        {"request_id": "req_5f1c2a9e7b3d"},
        {"cards": ["9E", "1e5", "7M"]},
        {"n": [1, -2, 10**20]},
        {"ip": "203.0.113.7", "ua": "cardledger-web/1.4", "note": "e+e-"},
    ):
        assert not _may_hold_float(canonical_text(value))  # type: ignore[arg-type]


@given(st.lists(st.tuples(text, st.integers(0, 50), objects, objects), min_size=1, max_size=4))
def test_the_prepared_rows_carry_each_event_as_recorded(events: list[tuple[str, int, dict, dict]]) -> None:  # type: ignore[type-arg]
    new = [NewEvent(type_, data, deal_no, metadata) for type_, deal_no, data, metadata in events]
    pending = EventStore.prepare("table-1", 3, new, GENESIS_HASH)
    sent = [
        (version, type_, schema_version, deal_no, json.loads(data), json.loads(metadata), prev_hash, hash_)
        for version, type_, schema_version, deal_no, data, metadata, prev_hash, hash_ in pending.rows
    ]
    assert sent == [
        (e.version, e.type, e.schema_version, e.deal_no, e.data, e.metadata, e.prev_hash, e.hash)
        for e in pending.events
    ]
    assert [e.version for e in pending.events] == list(range(4, 4 + len(events)))
    assert pending.events[0].prev_hash == GENESIS_HASH
    assert all(e.recomputed_hash() == e.hash for e in pending.events)
    assert all(a.hash == b.prev_hash for a, b in zip(pending.events, pending.events[1:], strict=False))
    assert pending.occurred_at_text == canonical_timestamp(pending.events[0].occurred_at)
