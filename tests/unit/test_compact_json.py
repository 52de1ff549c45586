"""The texts written by encoders made once (`infra.compact_json`, the API's `CompactJSONProvider`) and the receipts'
time (`utc_timestamp`) are those of the calls they replace, byte for byte."""

from __future__ import annotations

import json
import math
import uuid
from dataclasses import dataclass
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

import pytest
from flask import Flask
from hypothesis import given
from hypothesis import strategies as st

from infra.compact_json import compact_ascii, compact_ascii_encoder
from infra.signing import utc_timestamp
from services.api.json_answers import CompactJSONProvider

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


@dataclass
class Point:
    x: int


@given(values)
def test_answers_are_the_bytes_flask_writes(value: Any) -> None:
    mine, flasks = Flask("mine"), Flask("flasks")
    mine.json = CompactJSONProvider(mine)
    for app in (mine, flasks):
        app.json.sort_keys = False  # type: ignore[attr-defined]
    extras = {"when": date(2026, 12, 2), "id": uuid.UUID(int=7), "price": Decimal("1.50"), "point": Point(3)}
    for answer in (value, {"value": value, **extras}):
        with mine.app_context():
            ours = mine.json.response(answer).get_data()
        with flasks.app_context():
            theirs = flasks.json.response(answer).get_data()
        assert ours == theirs


def test_other_settings_are_flasks_own() -> None:
    app = Flask("settings")
    app.json = CompactJSONProvider(app)
    answer = {"b": 1, "a": "é"}
    with app.app_context():
        app.json.sort_keys = False  # type: ignore[attr-defined]
        assert app.json.response(answer).get_data() == b'{"b":1,"a":"\\u00e9"}\n'
        app.json.sort_keys = True  # type: ignore[attr-defined]
        assert app.json.response(answer).get_data() == b'{"a":"\\u00e9","b":1}\n'
        app.json.ensure_ascii = False  # type: ignore[attr-defined]
        assert app.json.response(answer).get_data() == '{"a":"é","b":1}\n'.encode()
        app.debug = True
        assert app.json.response(answer).get_data() == '{\n  "a": "é",\n  "b": 1\n}\n'.encode()


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
