"""How psycopg turns json and jsonb columns into Python values: the standard library's C scanner, called directly.

`json.loads` on bytes spends most of its time outside the parser (finding the encoding, decoding, two
regular expressions for the whitespace around the value): on an event's small data document it took
three times as long as the scan itself. Reading the log with json.loads went at 31,000 events/s, and
at 72,000 to 82,000 with no JSON decoding at all. PostgreSQL writes json and jsonb as UTF-8 JSON
without surrounding whitespace, so the scan alone is enough; anything else (whitespace, invalid text)
goes through the full decoder, which accepts or refuses it exactly as `json.loads` does.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from psycopg.types.json import set_json_loads

_DECODER = json.JSONDecoder()
_SCAN: Callable[[str, int], tuple[Any, int]] = _DECODER.scan_once  # type: ignore[attr-defined]


def loads(data: str | bytes) -> Any:
    """The JSON value of `data` (UTF-8 if bytes), as `json.loads(data)` gives it."""
    text = data.decode() if isinstance(data, bytes) else data
    try:
        value, end = _SCAN(text, 0)
    except StopIteration:
        return _DECODER.decode(text)  # raises json.JSONDecodeError, naming where the text went wrong
    if end != len(text):
        return _DECODER.decode(text)
    return value


def install() -> None:
    """Use `loads` for every json and jsonb column this process reads (psycopg's global default)."""
    set_json_loads(loads)
