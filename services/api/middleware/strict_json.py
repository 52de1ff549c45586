"""Request bodies parsed strictly: what JSON allows but the service cannot hold is a 400 naming the place.

Python's parser accepts integers of thousands of digits (and raises a plain ValueError past 4,300, which
webargs does not map), lone surrogates such as "\\ud800" (which no UTF-8 encoder, PostgreSQL's included,
takes), duplicate keys (the last one silently wins) and nesting as deep as the recursion limit. Each of those
is refused here, before any schema or rule sees the body, with the JSON path of the offending value.
"""

from __future__ import annotations

import json
import re
from typing import Any

import flask
from webargs import core
from webargs.flaskparser import FlaskParser, is_json_request

from services.api.middleware.problems import ApiError

MAX_INTEGER_DIGITS = 18  # every integer the API takes fits a signed 64-bit column
MAX_DEPTH = 32


class _Refused(ValueError):
    def __init__(self, code: str, detail: str) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail


class _LongInteger:
    """Stands for an integer too long to take, until the walk names where it is."""

    def __init__(self, digits: int) -> None:
        self.digits = digits


class _NotJson:
    def __init__(self, name: str) -> None:
        self.name = name


class _Duplicated(dict[str, Any]):
    """An object that named a key twice (`key`)."""

    key = ""


def _integer(text: str) -> int | _LongInteger:
    digits = len(text.lstrip("-"))
    return _LongInteger(digits) if digits > MAX_INTEGER_DIGITS else int(text)


def _number(text: str) -> int | float:
    """A number written with a fraction or an exponent. JSON has one kind of number, and JSON Schema (so the
    OpenAPI document) counts 2.0 as the integer 2: an integral one is taken as that integer, so `"seat": 2.0`
    means seat 2 wherever an integer is expected. Beyond 2**53 a float no longer holds an exact integer."""
    value = float(text)
    return int(value) if value.is_integer() and abs(value) <= 2**53 else value


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            duplicated = _Duplicated(seen)
            duplicated.key = key
            return duplicated
        seen[key] = value
    return seen


def _check(value: Any, path: str, depth: int) -> None:
    if depth > MAX_DEPTH:
        raise _Refused("nesting_too_deep", f"the body nests deeper than {MAX_DEPTH} levels at {path}")
    if isinstance(value, str):
        _check_text(value, path)
    elif isinstance(value, _LongInteger):
        raise _Refused(
            "number_too_large",
            f"{path} is an integer of {value.digits} digits; integers in a request have at most {MAX_INTEGER_DIGITS}",
        )
    elif isinstance(value, _NotJson):
        raise _Refused("malformed_json", f"{path} is {value.name}, which is not JSON")
    elif isinstance(value, dict):
        if isinstance(value, _Duplicated):
            raise _Refused("duplicate_key", f"the object at {path} has the key {value.key!r} twice")
        for key, item in value.items():
            _check_text(key, f"a key of {path}")
            _check(item, f"{path}.{key}", depth + 1)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _check(item, f"{path}[{index}]", depth + 1)


def _check_text(text: str, path: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        lone = text[error.start]
        raise _Refused(
            "invalid_text", f"the string at {path} holds the lone surrogate \\u{ord(lone):04x}, which is not Unicode"
        ) from None


class _DuplicateSeen(Exception):
    """A key named twice, met while parsing without walking: parsed again to name where."""


def _unique_keys_or_stop(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found = dict(pairs)
    if len(found) != len(pairs):
        raise _DuplicateSeen
    return found


# What the walk could refuse shows in a body's text: an integer of more digits than taken, a constant that is not
# JSON, an escape (which could be a lone surrogate), more brackets than the depth allowed. A UTF-8 body without
# any of them (most) needs no walk, unless it names a key twice (`_DuplicateSeen`).
_MAY_REFUSE = re.compile(rf"\d{{{MAX_INTEGER_DIGITS + 1}}}|NaN|Infinity|\\u")


def strict_loads(body: bytes | str) -> Any:
    """The JSON value of `body`, or ApiError 400 naming what is wrong and where ($ is the whole body)."""
    try:
        text = body.decode("utf-8") if isinstance(body, bytes) else body
    except UnicodeDecodeError as error:
        raise ApiError(400, "malformed_json", f"the request body is not UTF-8 (at byte {error.start})") from None
    plain = (
        isinstance(body, bytes)  # decoded UTF-8 holds no lone surrogate but by an escape
        and text.count("{") + text.count("[") <= MAX_DEPTH
        and _MAY_REFUSE.search(text) is None
    )
    if plain:
        try:
            return _loads(text, _PLAIN_DECODER)
        except _DuplicateSeen:
            pass
    value = _loads(text, _STRICT_DECODER)
    try:
        _check(value, "$", 0)
    except _Refused as refused:
        raise ApiError(400, refused.code, refused.detail) from None
    return value


def _decoder(object_pairs_hook: Any) -> json.JSONDecoder:
    return json.JSONDecoder(
        parse_int=_integer, parse_float=_number, parse_constant=_NotJson, object_pairs_hook=object_pairs_hook
    )


# Made once: `json.loads` with these arguments makes a decoder on every call (the stdlib shares its own default
# decoder between threads the same way).
_PLAIN_DECODER = _decoder(_unique_keys_or_stop)
_STRICT_DECODER = _decoder(_unique_keys)
BOM = "\ufeff"


def _loads(text: str, decoder: json.JSONDecoder) -> Any:
    try:
        if text.startswith(BOM):  # as json.loads refuses it, before decoding
            raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
        return decoder.decode(text)
    except RecursionError:
        raise ApiError(400, "nesting_too_deep", f"the request body nests deeper than {MAX_DEPTH} levels") from None
    except json.JSONDecodeError as error:
        raise ApiError(
            400, "malformed_json", f"the request body is not valid JSON: {error.msg} (at {error.pos})"
        ) from None


class StrictParser(FlaskParser):
    """webargs' parser for flask-smorest, reading JSON bodies through `strict_loads`."""

    def load_json(self, req: flask.Request, schema: Any) -> Any:
        if not is_json_request(req):
            if req.get_data(cache=True):  # a body the service would not read: say what to send
                sent = req.headers.get("Content-Type") or "no Content-Type"
                raise ApiError(
                    415,
                    "unsupported_media_type",
                    "the request body must be JSON sent with Content-Type: application/json "
                    f"(it came with {sent[:80]})",
                )
            return core.missing
        body = req.get_data(cache=True)
        if not body:
            return core.missing  # as webargs: no body is no arguments, for the schema to judge
        return strict_loads(body)
