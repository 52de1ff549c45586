"""The service's JSON (`infra.json_codec`, orjson) writes what the standard json module writes with compact
separators and UTF-8 as is, and reads it back; what orjson refuses is still written."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from infra import json_codec

text_keys = st.text(max_size=8)
any_keys = text_keys | st.integers(-(2**63), 2**63 - 1) | st.booleans() | st.none()


def documents(numbers: st.SearchStrategy[Any], keys: st.SearchStrategy[Any] = any_keys) -> st.SearchStrategy[Any]:
    scalars = st.none() | st.booleans() | numbers | st.text(max_size=12)
    return st.recursive(
        scalars,
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=4),
        max_leaves=16,
    )


integers = st.integers(-(2**63), 2**64 - 1)


@given(documents(integers))
def test_without_floats_the_bytes_are_what_json_dumps_writes(value: Any) -> None:
    assert json_codec.dumps(value) == json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


@given(documents(integers, text_keys))
def test_sorted_the_bytes_are_what_json_dumps_writes_with_sorted_keys(value: Any) -> None:
    expected = json.dumps(value, separators=(",", ":"), ensure_ascii=False, sort_keys=True).encode()
    assert json_codec.dumps(value, sort_keys=True) == expected


@given(documents(st.integers(-(2**63), 2**63 - 1) | st.floats(allow_nan=False, allow_infinity=False)))
def test_what_is_written_reads_back_as_the_standard_module_reads_its_own_text(value: Any) -> None:
    written = json_codec.dumps(value)
    assert json_codec.loads(written) == json.loads(json.dumps(value)) == json.loads(written)
    assert json_codec.dumps_text(value) == written.decode()


def test_what_orjson_refuses_is_written_by_the_standard_module() -> None:
    assert json_codec.dumps({"n": 2**70}) == b'{"n":1180591620717411303424}'
    assert json_codec.dumps({"s": "\ud800"}) == b'{"s":"\\ud800"}'
    assert json_codec.dumps({"é": 2**70}) == b'{"\\u00e9":1180591620717411303424}'


def test_non_ascii_is_written_as_utf8_and_control_characters_escaped() -> None:
    assert json_codec.dumps({"name": "Mẹ\u2028\x01\n"}) == '{"name":"Mẹ\u2028\\u0001\\n"}'.encode()


def test_a_given_default_is_called_for_what_json_cannot_hold_and_otherwise_type_error() -> None:
    assert json_codec.dumps({"s": {3, 1, 2}}, default=sorted) == b'{"s":[1,2,3]}'
    with pytest.raises(TypeError):
        json_codec.dumps({"s": {1}})
    with pytest.raises(TypeError):
        json_codec.dumps({"id": object()})
    assert json_codec.dumps({"id": uuid.UUID(int=1)}) == b'{"id":"00000000-0000-0000-0000-000000000001"}'
