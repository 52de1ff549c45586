"""The service's JSON on the wire and in storage: answers, pushed views, Redis bodies, jsonb columns.

One library, orjson, through its public API: compact UTF-8 text (non-ASCII as is, not \\u-escaped), keys in
insertion order unless sorted. Two places keep the standard json module on purpose: the event hash's canonical
encoder (domain.hashchain, docs/hashing.md) and the strict parsing of request bodies
(services.api.middleware.strict_json), which refuses what orjson would silently take.

orjson refuses integers beyond 64 bits and lone surrogates, which the standard module writes (escaped as
ASCII); such a value is written by it, with the same separators, so nothing becomes unwritable.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import orjson

__all__ = ["dumps", "dumps_text", "loads"]

_KEYS_AS_TEXT = orjson.OPT_NON_STR_KEYS  # {1: x} becomes {"1": x}, as the standard module writes it


def dumps(
    value: Any, *, sort_keys: bool = False, default: Callable[[Any], Any] | None = None, option: int = 0
) -> bytes:
    """Compact JSON of `value` as UTF-8 bytes; TypeError for what is not JSON (after `default`)."""
    flags = _KEYS_AS_TEXT | option | (orjson.OPT_SORT_KEYS if sort_keys else 0)
    try:
        return orjson.dumps(value, default=default, option=flags)
    except orjson.JSONEncodeError:
        return json.dumps(value, separators=(",", ":"), sort_keys=sort_keys, default=default).encode()


def dumps_text(value: Any, *, sort_keys: bool = False) -> str:
    """`dumps` as text, for what takes a str (a server-sent event's data line, a statement's parameter)."""
    return dumps(value, sort_keys=sort_keys).decode()


loads: Callable[[bytes | bytearray | memoryview | str], Any] = orjson.loads
