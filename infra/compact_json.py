"""Compact ASCII JSON text, as `json.dumps(value, separators=(",", ":"), default=default)` writes it: the
standard json module's encoder, made once per kind of call instead of once per call."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

Encode = Callable[[Any], str]


def compact_ascii_encoder(default: Callable[[Any], Any] | None = None, sort_keys: bool = False) -> Encode:
    """A function writing the same text as `json.dumps(value, separators=(",", ":"), default=default,
    sort_keys=sort_keys)`."""
    return json.JSONEncoder(separators=(",", ":"), default=default, sort_keys=sort_keys).encode


compact_ascii = compact_ascii_encoder()
