"""Compact ASCII JSON text, as `json.dumps(value, separators=(",", ":"), default=default)` writes it, from one C
encoder made once: `json.dumps` builds a JSONEncoder and a new C encoder on every call, which costs more than
encoding a small answer. Without the circular-reference check (no `markers`): the values encoded here are trees
of plain values built per request (a cycle would be a RecursionError rather than a ValueError)."""

from __future__ import annotations

import json
from collections.abc import Callable
from json.encoder import c_make_encoder, encode_basestring_ascii  # type: ignore[attr-defined]
from typing import Any

Encode = Callable[[Any], str]


def _not_json(value: object) -> object:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def compact_ascii_encoder(default: Callable[[Any], Any] | None = None, sort_keys: bool = False) -> Encode:
    """A function writing the same text as `json.dumps(value, separators=(",", ":"), default=default,
    sort_keys=sort_keys)` (keys in the dicts' order unless sorted, non-ASCII escaped, NaN and infinities as
    JavaScript names, as json.dumps allows)."""
    fallback = _not_json if default is None else default
    if c_make_encoder is None:  # a Python without the _json accelerator: json.dumps itself
        options: dict[str, Any] = {"separators": (",", ":"), "default": default, "sort_keys": sort_keys}
        return lambda value: json.dumps(value, **options)
    encoder = c_make_encoder(None, fallback, encode_basestring_ascii, None, ":", ",", sort_keys, False, True)

    def encode(value: Any) -> str:
        return "".join(encoder(value, 0))

    return encode


compact_ascii = compact_ascii_encoder()
