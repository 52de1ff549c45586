"""The `<uuid:...>` path converter of the app's routes (table ids): werkzeug's, with a cheaper `to_python`.

werkzeug's converter makes `uuid.UUID(value)`, which parses the text again after the route's regular expression
has already matched it (8-4-4-4-12 hex digits) and checks it with many branches. Here the value's digits are
taken as one integer and the UUID is made around it: the same object (`int`, `is_safe`) `uuid.UUID(value)`
makes. The OpenAPI document is the same: flask-smorest finds the schema of a converter by its class's MRO.
"""

from __future__ import annotations

import uuid

from werkzeug.routing import UUIDConverter

_UNKNOWN = uuid.SafeUUID.unknown
_new = object.__new__
_set = object.__setattr__  # uuid.UUID forbids setting attributes; its own __init__ sets them this way


def uuid_of_matched(value: str) -> uuid.UUID:
    """`uuid.UUID(value)` for a text the converter's regular expression matched (hex digits, dashes placed)."""
    made: uuid.UUID = _new(uuid.UUID)
    _set(made, "int", int(value.replace("-", ""), 16))
    _set(made, "is_safe", _UNKNOWN)
    return made


class TableIdConverter(UUIDConverter):
    def to_python(self, value: str) -> uuid.UUID:
        return uuid_of_matched(value)
