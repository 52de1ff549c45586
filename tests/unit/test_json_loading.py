"""The json/jsonb loader against json.loads: the same values, the same refusals."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from infra import json_loading

text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(text, inner, max_size=4),
    max_leaves=16,
)


@given(values, st.sampled_from([(", ", ": "), (",", ":")]), st.sampled_from(["", " ", "\n  "]))
def test_loads_gives_what_json_loads_gives(value: object, separators: tuple[str, str], padding: str) -> None:
    encoded = (padding + json.dumps(value, separators=separators, ensure_ascii=False) + padding).encode()
    assert json_loading.loads(encoded) == json.loads(encoded)
    assert json_loading.loads(encoded.decode()) == json.loads(encoded)


def test_loads_keeps_what_json_loads_keeps() -> None:
    loaded = json_loading.loads(b'{"big": 123456789012345678901234567890, "x": 1.5e300, "inf": Infinity}')
    assert loaded["big"] == 123456789012345678901234567890
    assert loaded["x"] == 1.5e300
    assert math.isinf(loaded["inf"])
    assert json_loading.loads('{"a": {"a": 1}, "b": ["\\u00e9"]}') == {"a": {"a": 1}, "b": ["é"]}


@pytest.mark.parametrize("broken", [b"", b"{", b'{"a": }', b"[1, 2] 3", b"nul", b"{} {}", b"\xff"])
def test_loads_refuses_what_json_loads_refuses(broken: bytes) -> None:
    with pytest.raises(ValueError) as expected:
        json.loads(broken)
    with pytest.raises(type(expected.value)):
        json_loading.loads(broken)
