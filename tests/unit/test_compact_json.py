"""The texts written by the encoders made once (`infra.compact_json`) and the receipts' time (`utc_timestamp`) are
those of the calls they stand for, byte for byte."""

from __future__ import annotations

import json
import math
import uuid
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from infra.compact_json import compact_ascii, compact_ascii_encoder
from infra.signing import utc_timestamp

# Any text (lone surrogates and NUL included: json.dumps escapes them), any number json.dumps writes.
scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(max_size=8) | st.integers() | st.booleans() | st.none(), inner, max_size=4)
    ),
    max_leaves=16,
)


@given(values)
def test_compact_ascii_is_what_json_dumps_writes(value: Any) -> None:
    assert compact_ascii(value) == json.dumps(value, separators=(",", ":"))


def test_compact_ascii_writes_non_finite_numbers_and_refuses_what_json_dumps_refuses() -> None:
    assert compact_ascii([math.nan, math.inf, -math.inf]) == "[NaN,Infinity,-Infinity]"
    with pytest.raises(TypeError, match="Object of type UUID is not JSON serializable"):
        compact_ascii({"id": uuid.UUID(int=1)})


def test_a_given_default_is_called_for_what_json_cannot_hold() -> None:
    encode = compact_ascii_encoder(lambda value: sorted(value))
    assert encode({"s": {3, 1, 2}}) == '{"s":[1,2,3]}'


# A day from the ends of datetime's range: a time zone may move the moment out of it (an error either way).
within = {"min_value": datetime(1, 1, 2), "max_value": datetime(9999, 12, 30)}


@given(st.datetimes(**within, timezones=st.just(UTC) | st.timezones() | st.none()))
def test_a_receipts_time_is_what_strftime_writes_in_utc(moment: datetime) -> None:
    assert utc_timestamp(moment) == moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def test_a_receipts_time_defaults_to_now() -> None:
    before = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    stamp = utc_timestamp()
    after = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    assert before <= stamp <= after and len(stamp) == len("2026-12-01T13:27:02.123456Z")
