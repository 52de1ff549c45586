"""The loader of json and jsonb columns (`infra.db.configure`): the standard library's C scanner, called directly.

`json.loads` spends most of its time around the parser on small documents (docs/performance.md). PostgreSQL
writes json and jsonb as UTF-8 JSON without surrounding whitespace, so the scan alone is enough; anything else
goes through the full decoder, which accepts or refuses it exactly as `json.loads` does.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

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
