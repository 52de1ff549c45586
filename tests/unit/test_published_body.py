"""What the relay sends to Redis, byte for byte: an event's published text (`redis_bus.encode`) is the sorted compact
JSON of its public form, as `json.dumps` writes it."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from domain.events import PRIVATE, Event
from domain.hashchain import canonical_timestamp
from domain.redaction import public_form
from infra import redis_bus
from infra.compact_json import compact_ascii_encoder
from infra.event_store import RecordedEvent

scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=16,
)
data = st.dictionaries(st.text(max_size=8) | st.just(PRIVATE) | st.just("seat"), values, max_size=6)


def reference_body(event: RecordedEvent) -> dict[str, Any]:
    """The message body as `redis_bus.message_body` made it before: through `public_form`."""
    public = public_form(Event(event.type, event.data))
    return {
        "global_position": event.global_position,
        "tx_id": event.tx_id,
        "table_id": event.stream_id,
        "version": event.version,
        "type": event.type,
        "deal_no": event.deal_no,
        "occurred_at": canonical_timestamp(event.occurred_at),
        "data": dict(public.data),
        "schema_version": event.schema_version,
        "hash_version": event.hash_version,
        "prev_hash": event.prev_hash,
        "hash": event.hash,
    }


def recorded(data: dict[str, Any], stream_id: str = "t-1", type_: str = "card_discarded") -> RecordedEvent:
    return RecordedEvent(
        global_position=41,
        stream_id=stream_id,
        version=7,
        type=type_,
        schema_version=1,
        deal_no=2,
        data=data,
        metadata={"request_id": "r-1"},
        occurred_at=datetime(2026, 12, 2, 9, 30, 1, 250, tzinfo=timezone(timedelta(hours=8))),
        prev_hash="a" * 64,
        hash="b" * 64,
        tx_id=123456789012,
        hash_version=2,
    )


@given(data, st.text(max_size=6), st.text(max_size=6))
def test_an_event_s_published_text_is_json_dumps_of_its_public_form(
    event_data: dict[str, Any], stream_id: str, type_: str
) -> None:
    event = recorded(event_data, stream_id, type_)
    expected = json.dumps(reference_body(event), separators=(",", ":"), sort_keys=True)
    assert redis_bus.encode(event) == expected
    assert PRIVATE not in redis_bus.message_body(event)["data"]


def test_a_private_part_never_reaches_the_published_text() -> None:
    event = recorded({"seat": 1, PRIVATE: {"cards": ["SECRET"]}, "private_commitment": "c", "é": "ü"})
    text = redis_bus.encode(event)
    assert "SECRET" not in text and '"private"' not in text
    assert text == json.dumps(reference_body(event), separators=(",", ":"), sort_keys=True)
    assert '"occurred_at":"2026-12-02T01:30:01.000250Z"' in text and "\\u00e9" in text
    assert event.occurred_at.astimezone(UTC).microsecond == 250


@given(st.dictionaries(st.text(max_size=8), values, max_size=6))
def test_the_sorted_encoder_is_what_json_dumps_writes_with_sorted_keys(value: dict[str, Any]) -> None:
    encode = compact_ascii_encoder(sort_keys=True)
    assert encode(value) == json.dumps(value, separators=(",", ":"), sort_keys=True)
