"""`PlainLoad`: a schema whose `load` of plain input (every value a string: a query string, request headers)
takes a plan compiled once from its fields instead of marshmallow's per-field machinery, and hands anything
else to marshmallow's `load`: a value the plan does not take as it is, one a validator refuses, an unknown
key where unknown keys are refused, `many` or `partial`. So the plan only ever answers what marshmallow would
answer (the same keys, in the same order, and values); every error is marshmallow's.

It knows String and Integer fields (not strict, not `as_string`), optional, without a default or a hook; a
schema with any other field or hook loads as before. tests/unit/test_plain_load.py compares both loads.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from marshmallow import RAISE, Schema, ValidationError, fields, missing
from marshmallow.decorators import POST_LOAD, PRE_LOAD, VALIDATES, VALIDATES_SCHEMA

MAX_PLAIN_DIGITS = 18  # a longer integer goes through marshmallow, whatever it makes of it

Step = tuple[str, str, bool, Sequence[Any]]  # (key in the input, key in the result, integer, validators)


def load_plan(schema: Schema) -> tuple[Step, ...] | None:
    """The steps of a plain load of `schema`, or None when it has a field or hook the plan does not know."""
    hooks = schema._hooks  # marshmallow keeps a schema's processors only there
    if any(hooks[kind] for kind in (PRE_LOAD, POST_LOAD, VALIDATES, VALIDATES_SCHEMA)):
        return None
    steps: list[Step] = []
    for name, field in schema.load_fields.items():
        kind = type(field)
        integer = kind is fields.Integer and not field.strict and not field.as_string  # type: ignore[attr-defined]
        if not (integer or kind is fields.String):
            return None
        if field.required or field.load_default is not missing or field.attribute is not None or "." in name:
            return None
        steps.append((field.data_key if field.data_key is not None else name, name, integer, field.validators))
    return tuple(steps)


class PlainLoad(Schema):
    _plan: tuple[Step, ...] | None

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._plan = load_plan(self)
        self._keys = frozenset(step[0] for step in self._plan or ())

    def load(  # type: ignore[override]
        self,
        data: Mapping[str, Any],
        *,
        many: bool | None = None,
        partial: bool | Sequence[str] | None = None,
        unknown: Literal["exclude", "include", "raise"] | None = None,
    ) -> Any:
        if self._plan is not None and not many and not partial and isinstance(data, Mapping):
            loaded = self._plain(data, unknown if unknown is not None else self.unknown)
            if loaded is not None:
                return loaded
        return super().load(data, many=many, partial=partial, unknown=unknown)

    def _plain(self, data: Mapping[str, Any], unknown: str) -> dict[str, Any] | None:
        if unknown == RAISE and any(key not in self._keys for key in data):
            return None
        loaded: dict[str, Any] = {}
        for key, name, integer, validators in self._plan or ():
            value = data.get(key, missing)
            if value is missing:
                continue
            if type(value) is not str:
                return None
            if integer:
                if not (value.isascii() and value.isdigit() and len(value) <= MAX_PLAIN_DIGITS):
                    return None
                value = int(value)
            try:
                if any(validator(value) is False for validator in validators):
                    return None
            except ValidationError:
                return None  # marshmallow's load says so, in its words
            loaded[name] = value
        return loaded
