"""What no event may hold: floats (jsonb rewrites some, which would break the hash) and the NUL character
(PostgreSQL cannot read it out of a json field). `chain.prepare` checks each event before anything is stored."""

from __future__ import annotations

import re
from collections.abc import Mapping

from domain.events import JSON

# In canonical JSON (no spaces) a float is a value right after ":", "," or "[", written with a fraction or an
# exponent, or as Infinity or NaN.
_FLOAT_TOKEN = re.compile(r"[:,\[]-?(?:[0-9]+(?:\.|e[-+])|Infinity|NaN)")

# How canonical JSON writes the NUL character. A string holding a backslash followed by "u0000" is written with
# it too (after an escaped backslash), so finding it only means the walk through the value decides.
NUL_ESCAPE = "\\u0000"


def may_hold_float(text: str) -> bool:
    """Whether canonical JSON `text` may hold a float; when it may, the walk through the value
    (`refuse_floats`) decides. Python writes every float with a ".", an exponent ("e+" or "e-") or as
    Infinity or NaN: substring searches rule most text out, and the regular expression most of the rest
    (dots in strings such as "1.4" or "203.0.113.7" are not after ":", "," or "[")."""
    if "." in text or "e+" in text or "e-" in text or "Infinity" in text or "NaN" in text:
        return _FLOAT_TOKEN.search(text) is not None
    return False


def refuse_floats(value: JSON, path: str) -> None:
    """Events hold no floats: amounts are integers, and jsonb rewrites some floats (1e16, -0.0), so a value read
    through a cast to jsonb would no longer match the event's hash."""
    if isinstance(value, float):
        raise ValueError(f"event field {path} is the float {value!r}; events hold integers, strings, lists and objects")
    if isinstance(value, Mapping):
        for key, item in value.items():
            refuse_floats(item, f"{path}.{key}")
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            refuse_floats(item, f"{path}[{index}]")


def refuse_nul(value: JSON, path: str) -> None:
    """Events hold no NUL character: the json column would take it, but PostgreSQL turns it into neither text nor
    jsonb, so every query reading the event's fields (`->`, `->>`, as the reports do) would fail on it."""
    if isinstance(value, str):
        at = value.find("\x00")
        if at >= 0:
            raise ValueError(f"event field {path} holds the NUL character (at index {at})")
    elif isinstance(value, Mapping):
        for key, item in value.items():
            if "\x00" in key:
                raise ValueError(f"event field {path} has a key holding the NUL character: {key!r}")
            refuse_nul(item, f"{path}.{key}")
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            refuse_nul(item, f"{path}[{index}]")
