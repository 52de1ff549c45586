"""The one fast path of the API's schemas: plans compiled once per schema that load requests and dump answers as
marshmallow (and webargs) do, without their per-field machinery on every request. Counted, they save more than
5% of a streaming action's instructions (docs/performance.md, "What the fast paths are worth").

Loading: a plan only ever takes what marshmallow's load would take, and returns the same dict (same keys, order
and values). Whatever it cannot vouch for (a wrong type, a missing or unknown field, a failed validator, null
where none is allowed) makes it answer `NOT_PLAIN`, and the request goes through webargs and marshmallow, which
refuse it with the same error as ever. A request schema opts in with `PLAIN_LOAD = True`, which says it has no
load hooks; one with a field kind or validator the compiler does not know gets no plan.

Dumping: a response schema opts in by deriving from `PlainDump` (no dump hooks but OpenSchema's
`KEEP_UNDECLARED`); a dict is dumped by the plan, anything else by marshmallow.

tests/api/test_schema_plans.py compares both ways, result or error answer byte for byte, over the opted-in
schemas: whole deals of both games, and corpora of valid and invalid bodies, headers and queries.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any

from marshmallow import EXCLUDE, RAISE, Schema, ValidationError, fields, missing, validate

from services.api.middleware.strict_json import StrictParser
from services.api.spec.types import FullMatch, TaggedUnionSchema

# Loading ------------------------------------------------------------------

NOT_PLAIN: Any = object()  # the plan cannot vouch for this input: load it through marshmallow
Load = Callable[[Any], Any]
Check = Callable[[Any], bool]
MAX_DIGITS = 18


def _length(validator: validate.Length) -> Check:
    equal, low, high = validator.equal, validator.min, validator.max
    if equal is not None:
        return lambda value: len(value) == equal
    return lambda value: (low is None or len(value) >= low) and (high is None or len(value) <= high)


def _range(validator: validate.Range) -> Check:
    low, high = validator.min, validator.max
    low_in, high_in = validator.min_inclusive, validator.max_inclusive
    return lambda value: (value >= low if low_in else value > low) and (value <= high if high_in else value < high)


def _check(validator: Any) -> Check | None:
    """True when `validator` would let the value through; None for a validator this module does not know."""
    kind = type(validator)
    if kind is validate.Length:
        return _length(validator)
    if kind is FullMatch:
        full = validator.regex.fullmatch
        return lambda value: full(value) is not None
    if kind is validate.Regexp:
        match = validator.regex.match
        return lambda value: match(value) is not None
    if kind is validate.Range and type(validator.min) is int and type(validator.max) is int:
        return _range(validator)
    if kind is validate.OneOf and all(type(choice) is str for choice in validator.choices):
        choices = validator.choices
        return lambda value: value in choices
    return None


def _string(value: Any) -> Any:
    return value if type(value) is str else NOT_PLAIN


def _integer(value: Any) -> Any:
    if type(value) is int:
        return value
    # A query string's digits, as marshmallow's int(value) reads them (it also takes signs, spaces, underscores
    # and other scripts' digits, which are left to it).
    if type(value) is str and 0 < len(value) <= MAX_DIGITS and value.isascii() and value.isdigit():
        return int(value)
    return NOT_PLAIN


def _strict_integer(value: Any) -> Any:
    return value if type(value) is int else NOT_PLAIN


def _list_of(item: Load) -> Load:
    def load(value: Any) -> Any:
        if type(value) is not list:
            return NOT_PLAIN
        out = []
        for each in value:
            loaded = item(each)
            if loaded is NOT_PLAIN:
                return NOT_PLAIN
            out.append(loaded)
        return out

    return load


def _field_load(field: fields.Field[Any]) -> Load | None:
    """What `field.deserialize` returns for a present value, or NOT_PLAIN; None for a field it does not know."""
    kind = type(field)
    if field.pre_load or field.post_load:
        return None
    if kind is fields.String:
        convert: Load = _string
    elif kind is fields.Integer and not field.as_string:  # type: ignore[attr-defined]
        convert = _strict_integer if field.strict else _integer  # type: ignore[attr-defined]
    elif kind is fields.List:
        item = _field_load(field.inner)  # type: ignore[attr-defined]
        if item is None:
            return None
        convert = _list_of(item)
    else:
        return None
    checks = [_check(validator) for validator in field.validators]
    if any(check is None for check in checks):
        return None
    passes: tuple[Check, ...] = tuple(check for check in checks if check is not None)
    allow_none = field.allow_none
    if not passes and not allow_none:
        return convert  # each converter refuses None (no str, int or list), as `load` below would

    def load(value: Any) -> Any:
        if value is None:
            return None if allow_none else NOT_PLAIN
        converted = convert(value)
        if converted is NOT_PLAIN:
            return NOT_PLAIN
        for check in passes:
            if not check(converted):
                return NOT_PLAIN
        return converted

    return load


def _same_key(name: str) -> str:
    return name


def environ_key(header: str) -> str:
    """Where WSGI's environ holds a request header (as werkzeug's EnvironHeaders reads it)."""
    key = header.upper().replace("-", "_")
    return key if key in ("CONTENT_TYPE", "CONTENT_LENGTH") else f"HTTP_{key}"


def schema_load(schema: Schema, unknown: str | None = None, key_of: Callable[[str], str] = _same_key) -> Load | None:
    """A function loading a mapping as `schema.load(data, unknown=unknown)` does when it succeeds (NOT_PLAIN
    where it might not), or None when the schema has what the compiler does not know. The plan reads each
    field's key as `key_of` names it (the WSGI environ's key of a header, say)."""
    if isinstance(schema, TaggedUnionSchema):
        return _union_load(type(schema))
    if schema.many or schema.partial:
        return None
    unknown = schema.unknown if unknown is None else unknown
    if unknown not in (RAISE, EXCLUDE):
        return None
    plan: list[tuple[str, str, bool, Load]] = []
    for name, field in schema.load_fields.items():
        field_load = _field_load(field)
        if field_load is None or field.attribute is not None or "." in name or field.load_default is not missing:
            return None
        key = key_of(field.data_key if field.data_key is not None else name)
        plan.append((key, name, field.required, field_load))
    known = frozenset(key for key, _, _, _ in plan)
    refuse_unknown = unknown == RAISE

    def load(data: Any) -> Any:
        out: dict[str, Any] = {}
        for key, name, required, field_load in plan:
            value = data.get(key, missing)
            if value is missing:
                if required:
                    return NOT_PLAIN
                continue
            loaded = field_load(value)
            if loaded is NOT_PLAIN:
                return NOT_PLAIN
            out[name] = loaded
        if refuse_unknown and not known.issuperset(data):
            return NOT_PLAIN
        return out

    return load


@functools.cache
def _union_load(union: type[TaggedUnionSchema]) -> Load | None:
    """As `TaggedUnionSchema.load`: the variant its tag names, loaded as that variant's schema loads it."""
    variants: dict[str, Load] = {}
    for value, variant in union.VARIANTS.items():
        variant_load = schema_load(variant())
        if variant_load is None:
            return None
        variants[value] = variant_load
    tag = union.TAG

    def load(data: Any) -> Any:
        if type(data) is not dict:
            return NOT_PLAIN
        value = data.get(tag)
        variant = variants.get(value) if type(value) is str else None
        return NOT_PLAIN if variant is None else variant(data)

    return load


def _single_values(schema: Schema) -> bool:
    """No field that webargs reads as a list from a multidict (headers, query): it would call getlist."""
    return all(type(field) in (fields.String, fields.Integer) for field in schema.load_fields.values())


def _compile(schema: Schema, unknown: str | None, location: str) -> Load | None:
    if location == "json":
        return schema_load(schema, unknown)
    if location == "headers" and _single_values(schema):
        return schema_load(schema, unknown, environ_key)
    if location == "query" and _single_values(schema):
        return schema_load(schema, unknown)
    return None


def plain_load(schema: Any, unknown: str | None, location: str = "json") -> Load | None:
    """The plan of an opted-in schema instance for this `unknown` and location (compiled on first use): it
    takes the JSON body's value, the WSGI environ for the headers, the query's multidict for the query. None for
    any other schema or location."""
    if not isinstance(schema, Schema) or not getattr(schema, "PLAIN_LOAD", False):
        return None
    plans: dict[tuple[str, str | None], Load | None] = schema.__dict__.setdefault("_plain_loads", {})
    try:
        return plans[location, unknown]
    except KeyError:
        plan = plans[location, unknown] = _compile(schema, unknown, location)
        return plan


class PlainParser(StrictParser):
    """The blueprints' parser: the JSON body, headers or query of an opted-in schema by its plan; anything else, and
    anything the plan cannot vouch for, by webargs as before (its errors and all)."""

    def parse(self, argmap: Any, req: Any = None, *, location: str | None = None, **kwargs: Any) -> Any:
        where = location or self.location
        plan = None if kwargs.get("validate") is not None else plain_load(argmap, kwargs.get("unknown"), where)
        if plan is not None:
            request = req if req is not None else self.get_default_request()
            if where == "json":
                try:
                    data = self.load_json(request, argmap)
                except ValidationError:  # webargs turns it into its error answer: let it
                    data = NOT_PLAIN
                if data is missing:  # as webargs: no body is an empty object, for the schema to judge
                    data = {}
                loaded = plan(data) if type(data) is dict else NOT_PLAIN
            elif where == "headers":
                loaded = plan(request.environ)
            else:
                loaded = plan(request.args)
            if loaded is not NOT_PLAIN:
                return loaded
        return super().parse(argmap, req, location=location, **kwargs)


# Dumping ------------------------------------------------------------------

Dump = Callable[[Any], Any]


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


def _dumped_string(value: Any) -> Any:
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def _dumped_list_of(inner: FieldDump) -> Dump:
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
        return _dumped_string, frozenset({NONE, str})
    if kind is fields.Integer and not field.as_string:  # type: ignore[attr-defined]
        return int, frozenset({NONE, int})
    if kind is fields.Dict and field.key_field is None and field.value_field is None:  # type: ignore[attr-defined]
        return dict, frozenset({NONE})
    if kind is fields.List:
        inner = _field_dump(field.inner)  # type: ignore[attr-defined]
        return None if inner is None else (_dumped_list_of(inner), frozenset({NONE}))
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
    plan: list[tuple[str, FieldDump]] = []
    for name, field in schema.dump_fields.items():
        field_dump = _field_dump(field)
        if field_dump is None or field.data_key is not None or field.attribute is not None or "." in name:
            return None
        if field.dump_default is not missing or hasattr(dict, name):  # marshmallow reads a missing key as getattr
            return None
        plan.append((name, field_dump))
    declared = frozenset(schema.fields)
    keep_undeclared = bool(getattr(schema, "KEEP_UNDECLARED", False))
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
    """A response schema dumping dicts by its compiled plan (`schema_dump`); `Schema.dump` otherwise. It has no
    dump hooks but OpenSchema's keeping of undeclared keys, which it says with `KEEP_UNDECLARED`."""

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
