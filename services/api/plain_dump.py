"""Response schemas whose `dump` of a dict runs a plan compiled once from the schema's fields, instead of
marshmallow's per-field machinery on every answer; the plan does what marshmallow's dump does for the field
kinds it knows (same keys, order and values), and a schema with any other field or hook dumps as before.

tests/api/test_plain_dump.py compares both dumps, byte for byte, over whole deals of both games.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from marshmallow import Schema, fields, missing
from marshmallow.decorators import POST_DUMP, PRE_DUMP

Dump = Callable[[Any], Any]
KEEP_UNDECLARED = "_keep_undeclared"  # OpenSchema's post_dump: undeclared keys follow the declared ones


def _identity(value: Any) -> Any:
    return value


def _string(value: Any) -> Any:
    if value is None or type(value) is str:
        return value
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def _integer(value: Any) -> Any:
    return value if value is None or type(value) is int else int(value)


def _mapping(value: Any) -> Any:
    return None if value is None else dict(value)


def _field_dump(field: fields.Field[Any]) -> Dump | None:
    """What marshmallow's `field._serialize` does to a value, or None for a field kind this module leaves alone."""
    kind = type(field)
    if kind is fields.Raw:
        return _identity
    if kind is fields.String:
        return _string
    if kind is fields.Integer and not field.as_string:  # type: ignore[attr-defined]
        return _integer
    if kind is fields.Dict and field.key_field is None and field.value_field is None:  # type: ignore[attr-defined]
        return _mapping
    if kind is fields.List:
        inner = _field_dump(field.inner)  # type: ignore[attr-defined]
        if inner is None:
            return None
        if inner is _identity:
            return lambda value: None if value is None else list(value)
        return lambda value: None if value is None else [inner(each) for each in value]
    if kind is fields.Nested:
        schema = field.schema  # type: ignore[attr-defined]
        nested = schema_dump(schema)
        if nested is None or schema.many or field.many:  # type: ignore[attr-defined]
            return None
        return lambda value: None if value is None else nested(value)
    return None


def schema_dump(schema: Schema) -> Dump | None:
    """A function dumping a dict as `schema.dump` does, or None when the schema has what it does not know."""
    hooks = schema._hooks  # marshmallow keeps a schema's processors only there
    post = [name for name, _, _ in hooks[POST_DUMP]]
    if hooks[PRE_DUMP] or post not in ([], [KEEP_UNDECLARED]):
        return None
    plan: list[tuple[str, Dump]] = []
    for name, field in schema.dump_fields.items():
        field_dump = _field_dump(field)
        if field_dump is None or field.data_key is not None or field.attribute is not None or "." in name:
            return None
        if field.dump_default is not missing or hasattr(dict, name):  # marshmallow reads a missing key as getattr
            return None
        plan.append((name, field_dump))
    declared = frozenset(schema.fields)
    keep_undeclared = bool(post)

    def dump(obj: Any) -> Any:
        out: dict[str, Any] = {}
        for name, each in plan:
            if name in obj:
                out[name] = each(obj[name])
        if keep_undeclared:
            for key, value in obj.items():
                if key not in declared and isinstance(key, str):
                    out[key] = value
        return out

    return lambda obj: dump(obj) if type(obj) is dict else schema.dump(obj)


class PlainDump(Schema):
    """A response schema dumping dicts by its compiled plan (`schema_dump`); `Schema.dump` otherwise."""

    _plain: Dump | None

    def plain(self) -> Dump | None:
        """This schema's plan (compiled on first use), None when it has fields or hooks the plan does not know."""
        try:
            return self._plain
        except AttributeError:
            plain = self._plain = schema_dump(self)
            return plain

    def dump(self, obj: Any, *, many: bool | None = None) -> Any:
        plain = self.plain()
        many = self.many if many is None else bool(many)
        if plain is None or many or not isinstance(obj, Mapping) or type(obj) is not dict:
            return super().dump(obj, many=many)
        return plain(obj)
