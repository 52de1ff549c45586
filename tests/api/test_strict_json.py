"""`strict_loads` takes a body without walking it only when the walk could refuse nothing: every body gives the
value or the error answer the walk gives (`services/api/middleware/strict_json.py`)."""

from __future__ import annotations

import json
import re
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from services.api.middleware import strict_json
from services.api.middleware.problems import ApiError
from services.api.middleware.strict_json import MAX_DEPTH, strict_loads


def walked(body: bytes) -> Any:
    """The body as the walk takes it (what every body went through before the unwalked path)."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as error:
        return ("error", 400, "malformed_json", f"the request body is not UTF-8 (at byte {error.start})")
    try:
        value = strict_json._loads(text, strict_json._STRICT_DECODER)
        strict_json._check(value, "$", 0)
    except ApiError as error:
        return ("error", error.status, error.code, error.detail)
    except strict_json._Refused as refused:
        return ("error", 400, refused.code, refused.detail)
    return ("value", json.dumps(value), type(value).__name__)


def taken(body: bytes) -> Any:
    try:
        value = strict_loads(body)
    except ApiError as error:
        return ("error", error.status, error.code, error.detail)
    return ("value", json.dumps(value), type(value).__name__)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=10,
)


@given(json_values, st.booleans())
def test_json_bodies_are_taken_as_the_walk_takes_them(value: Any, ascii_only: bool) -> None:
    body = json.dumps(value, ensure_ascii=ascii_only).encode("utf-8", "surrogatepass")
    assert taken(body) == walked(body)


pieces = st.sampled_from(
    [
        '{"a":',
        '"a":1,',
        "[",
        "]",
        "{",
        "}",
        ",",
        '"\\ud800"',
        '"\\u00e9"',
        "NaN",
        "-Infinity",
        "1" * 19,
        "12",
        '"a":2',
        '"b"',
        ":",
        " ",
        '"é"',
        "2.0",
        "1e400",
        "\\",
        '"',
    ]
)


@given(st.lists(pieces, max_size=12))
def test_pieced_bodies_are_taken_as_the_walk_takes_them(parts: list[str]) -> None:
    body = "".join(parts).encode()
    assert taken(body) == walked(body)


def test_each_kind_of_refusal_is_still_named() -> None:
    deep = ("[" * (MAX_DEPTH + 2)) + ("]" * (MAX_DEPTH + 2))  # the innermost list at depth MAX_DEPTH + 1
    for body, code in [
        (b'{"a":1,"a":2}', "duplicate_key"),
        (b'{"b":{"a":1,"a":2}}', "duplicate_key"),
        (b'{"a":1234567890123456789}', "number_too_large"),
        (b'{"a":NaN}', "malformed_json"),
        (b'{"a":"\\ud800"}', "invalid_text"),
        (deep.encode(), "nesting_too_deep"),
    ]:
        assert taken(body)[:3] == ("error", 400, code), body
    assert taken(b'{"type":"discard","card":"7H"}') == ("value", '{"type": "discard", "card": "7H"}', "dict")


def shown(value: Any) -> str:
    """`repr` without objects' addresses (the walk's markers, `_NotJson` say, are objects)."""
    return re.sub(r" at 0x[0-9a-f]+", "", repr(value))


def loaded_by_json_loads(text: str, hook: Any) -> Any:
    """What `_loads` answered when it called `json.loads` with the hooks (a decoder made per call)."""
    try:
        value = json.loads(
            text,
            parse_int=strict_json._integer,
            parse_float=strict_json._number,
            parse_constant=strict_json._NotJson,
            object_pairs_hook=hook,
        )
    except json.JSONDecodeError as error:
        return ("error", f"the request body is not valid JSON: {error.msg} (at {error.pos})")
    except Exception as error:
        return ("raised", type(error).__name__)
    return ("value", shown(value))


def loaded_by_decoder(text: str, decoder: Any) -> Any:
    try:
        value = strict_json._loads(text, decoder)
    except ApiError as error:
        return ("error", error.detail)
    except Exception as error:
        return ("raised", type(error).__name__)
    return ("value", shown(value))


@given(st.lists(pieces | st.sampled_from(["\ufeff", " \ufeff", "\t"]), max_size=12))
def test_the_decoders_made_once_decode_as_json_loads_did(parts: list[str]) -> None:
    text = "".join(parts)
    for hook, decoder in (
        (strict_json._unique_keys, strict_json._STRICT_DECODER),
        (strict_json._unique_keys_or_stop, strict_json._PLAIN_DECODER),
    ):
        assert loaded_by_decoder(text, decoder) == loaded_by_json_loads(text, hook)
    assert loaded_by_decoder("\ufeff{}", strict_json._STRICT_DECODER) == (
        "error",
        "the request body is not valid JSON: Unexpected UTF-8 BOM (decode using utf-8-sig) (at 0)",
    )
