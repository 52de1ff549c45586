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


# A field's dump: what it makes of a value whose type is not among the types it passes on as they are. None for
# Raw, which passes every value on.
FieldDump = tuple[Dump | None, frozenset[type]]
NONE = type(None)
# The steps of a dump for one order of keys: the keys written; the fields to convert of a kind shared by several
# (checked together: the strings, the integers), and the other fields to convert.
Steps = tuple[
    tuple[str, ...],
    tuple[tuple[tuple[str, ...], Dump, frozenset[type]], ...],
    tuple[tuple[str, Dump, frozenset[type]], ...],
]
MAX_SHAPES = 64  # key orders whose steps a plan keeps (a view has a few per game and phase); others are worked out


def _string(value: Any) -> Any:
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def _list_of(inner: FieldDump) -> Dump:
    convert, unchanged = inner
    if convert is None:
        return list
    each_dump = convert

    def dump_list(value: Any) -> list[Any]:
        if set(map(type, value)) <= unchanged:  # every item as it is (one pass in C)
            return list(value)
        return [each if type(each) in unchanged else each_dump(each) for each in value]

    return dump_list


def _field_dump(field: fields.Field[Any]) -> FieldDump | None:
    """What marshmallow's `field._serialize` does to a value, or None for a field kind this module leaves alone."""
    kind = type(field)
    if kind is fields.Raw:
        return None, frozenset()
    if kind is fields.String:
        return _string, frozenset({NONE, str})
    if kind is fields.Integer and not field.as_string:  # type: ignore[attr-defined]
        return int, frozenset({NONE, int})
    if kind is fields.Dict and field.key_field is None and field.value_field is None:  # type: ignore[attr-defined]
        return dict, frozenset({NONE})
    if kind is fields.List:
        inner = _field_dump(field.inner)  # type: ignore[attr-defined]
        return None if inner is None else (_list_of(inner), frozenset({NONE}))
    if kind is fields.Nested:
        schema = field.schema  # type: ignore[attr-defined]
        nested = schema_dump(schema)
        if nested is None or schema.many or field.many:  # type: ignore[attr-defined]
            return None
        return nested, frozenset({NONE})
    return None


def schema_dump(schema: Schema) -> Dump | None:
    """A function dumping a dict as `schema.dump` does, or None when the schema has what it does not know.

    For each order of keys it meets (the first MAX_SHAPES), the function keeps its steps: the keys it writes,
    in the schema's order then the undeclared ones kept (OpenSchema), and the fields among them to convert. A
    dict of a known key order is then copied in one pass, and only those fields looked at."""
    hooks = schema._hooks  # marshmallow keeps a schema's processors only there
    post = [name for name, _, _ in hooks[POST_DUMP]]
    if hooks[PRE_DUMP] or post not in ([], [KEEP_UNDECLARED]):
        return None
    plan: list[tuple[str, FieldDump]] = []
    for name, field in schema.dump_fields.items():
        field_dump = _field_dump(field)
        if field_dump is None or field.data_key is not None or field.attribute is not None or "." in name:
            return None
        if field.dump_default is not missing or hasattr(dict, name):  # marshmallow reads a missing key as getattr
            return None
        plan.append((name, field_dump))
    declared = frozenset(schema.fields)
    keep_undeclared = bool(post)
    shapes: dict[tuple[Any, ...], Steps] = {}

    def steps_for(shape: tuple[Any, ...]) -> Steps:
        present = set(shape)
        names = [name for name, _ in plan if name in present]
        if keep_undeclared:
            names += [key for key in shape if key not in declared and isinstance(key, str)]
        kinds: dict[tuple[Dump, frozenset[type]], list[str]] = {}
        for name, (convert, unchanged) in plan:
            if name in present and convert is not None:
                kinds.setdefault((convert, unchanged), []).append(name)
        shared = tuple((tuple(each), *kind) for kind, each in kinds.items() if len(each) > 1)
        alone = tuple((each[0], *kind) for kind, each in kinds.items() if len(each) == 1)
        return tuple(names), shared, alone

    def dump(obj: dict[Any, Any]) -> dict[str, Any]:
        shape = tuple(obj)
        steps = shapes.get(shape)
        if steps is None:
            steps = steps_for(shape)
            if len(shapes) < MAX_SHAPES:
                shapes[shape] = steps
        names, shared, alone = steps
        out = dict(zip(names, map(obj.__getitem__, names), strict=True))
        for group, convert, unchanged in shared:
            if not set(map(type, map(out.__getitem__, group))) <= unchanged:  # all as they are, mostly
                for name in group:
                    if type(out[name]) not in unchanged:
                        out[name] = convert(out[name])
        for name, convert, unchanged in alone:
            value = out[name]
            if type(value) not in unchanged:
                out[name] = convert(value)
        return out

    def plain(obj: Any) -> Any:
        return dump(obj) if type(obj) is dict else schema.dump(obj)

    plain.shapes = shapes  # type: ignore[attr-defined]  # for tests: the bound holds
    return plain


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
