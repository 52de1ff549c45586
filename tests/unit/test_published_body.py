"""What the relay sends to Redis, byte for byte: an event's published body (`redis_bus.encode`) is the sorted compact
UTF-8 JSON of its public form, as `json.dumps(..., ensure_ascii=False)` writes it."""

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
from infra.event_store import RecordedEvent

# No floats: orjson and json.dumps write some differently (1e16 and 1e+16), both read back as the same number.
scalars = st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.text(max_size=12)
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
    expected = json.dumps(reference_body(event), separators=(",", ":"), sort_keys=True, ensure_ascii=False)
    assert redis_bus.encode(event) == expected.encode()
    assert PRIVATE not in redis_bus.message_body(event)["data"]


def test_a_private_part_never_reaches_the_published_text() -> None:
    event = recorded({"seat": 1, PRIVATE: {"cards": ["SECRET"]}, "private_commitment": "c", "é": "ü"})
    text = redis_bus.encode(event).decode()
    assert "SECRET" not in text and '"private"' not in text
    assert text == json.dumps(reference_body(event), separators=(",", ":"), sort_keys=True, ensure_ascii=False)
    assert '"occurred_at":"2026-12-02T01:30:01.000250Z"' in text and '"é":"ü"' in text
    assert event.occurred_at.astimezone(UTC).microsecond == 250
