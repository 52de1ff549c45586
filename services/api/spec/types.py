"""What marshmallow cannot say about a schema, said to apispec in one place: tagged unions (`oneOf` with a
`discriminator`), a field documented by a schema of its own, and JSON Schema keywords added to a schema.

- A field whose `metadata["openapi"]` is a dict, or a function of the converter returning one, is documented
  by exactly that (it replaces what apispec would infer; a nullable field becomes `anyOf [that, null]`).
- A schema class with `OPENAPI_DOCUMENT` (a function of the converter) is documented by what it returns: a
  `TaggedUnionSchema` documents itself as the `oneOf` of its variants.
- A schema class with `OPENAPI_EXTRA` has those keywords added to its JSON Schema (`if`/`then`, say).

`TypedMarshmallowPlugin` is the MarshmallowPlugin that knows these; `create_app` hands it to flask-smorest.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

import marshmallow
from apispec.ext.marshmallow import MarshmallowPlugin
from apispec.ext.marshmallow.openapi import OpenAPIConverter
from marshmallow import Schema, ValidationError, fields, validate

Document = dict[str, Any] | Callable[[OpenAPIConverter], dict[str, Any]]


def tag(value: str, description: str = "") -> fields.String:
    """The discriminating field of a union's variant: required, and exactly `value`."""
    metadata = {"description": description} if description else {}
    return fields.String(required=True, validate=validate.OneOf((value,)), metadata=metadata)


def one_of(tag_name: str, variants: Mapping[str, type[Schema]]) -> Callable[[OpenAPIConverter], dict[str, Any]]:
    """The `oneOf` of `variants` (components), discriminated by the property `tag_name`."""

    def document(converter: OpenAPIConverter) -> dict[str, Any]:
        mapping = {value: ref(schema)(converter)["$ref"] for value, schema in variants.items()}
        return {
            "oneOf": [{"$ref": ref} for ref in dict.fromkeys(mapping.values())],
            "discriminator": {"propertyName": tag_name, "mapping": mapping},
        }

    return document


def ref(schema: type[Schema]) -> Callable[[OpenAPIConverter], dict[str, Any]]:
    """The component of `schema` (registered when first met)."""

    def document(converter: OpenAPIConverter) -> dict[str, Any]:
        found: dict[str, Any] = converter.resolve_nested_schema(schema)  # type: ignore[no-untyped-call]
        return found

    return document


def any_of(*documents: Document) -> Callable[[OpenAPIConverter], dict[str, Any]]:
    def document(converter: OpenAPIConverter) -> dict[str, Any]:
        return {"anyOf": [_resolve(part, converter) for part in documents]}

    return document


def _resolve(document: Any, converter: OpenAPIConverter) -> Any:
    """`document` with every function of the converter in it called (a `ref` inside `items`, say)."""
    if callable(document):
        return document(converter)
    if isinstance(document, dict):
        return {key: _resolve(value, converter) for key, value in document.items()}
    if isinstance(document, list):
        return [_resolve(value, converter) for value in document]
    return document


class FullMatch(validate.Regexp):
    """A pattern the whole value must match, as JSON Schema reads `^...$` (Python's `$` also matches before a
    final line break, so `re.match` would let "name\n" through a pattern the document says refuses it)."""

    def __call__(self, value: Any) -> Any:
        if self.regex.fullmatch(value) is None:
            raise ValidationError(self.error.format(input=value, regex=self.regex.pattern))
        return value


@functools.cache
def _instance(schema: type[Schema]) -> Schema:
    """One instance per variant: building a schema copies its fields, and loads leave it as it was."""
    return schema()


class TaggedUnionSchema(Schema):
    """Loads a JSON object with the variant its `TAG` property names; documented as their `oneOf`."""

    TAG: ClassVar[str]
    VARIANTS: ClassVar[Mapping[str, type[Schema]]]

    def load(self, data: Any, *, many: bool | None = None, partial: Any = None, unknown: str | None = None) -> Any:
        if not isinstance(data, Mapping):
            raise ValidationError({"_schema": ["Invalid input type."]})
        value = data.get(self.TAG)
        variant = self.VARIANTS.get(value) if isinstance(value, str) else None
        if variant is None:
            raise ValidationError({self.TAG: [f"Must be one of: {', '.join(self.VARIANTS)}."]})
        return _instance(variant).load(data, partial=partial)

    @classmethod
    def openapi_document(cls, converter: OpenAPIConverter) -> dict[str, Any]:
        return one_of(cls.TAG, cls.VARIANTS)(converter)


class TypedConverter(OpenAPIConverter):
    def init_attribute_functions(self) -> None:
        super().init_attribute_functions()  # type: ignore[no-untyped-call]
        self.add_attribute_function(documented_field)  # type: ignore[no-untyped-call]

    def schema2jsonschema(self, schema: Any) -> dict[str, Any]:
        cls = schema if isinstance(schema, type) else type(schema)
        if issubclass(cls, TaggedUnionSchema):
            union = cls.openapi_document(self)
            return {**union, "description": inspect.cleandoc(cls.__doc__)} if cls.__doc__ else union
        jsonschema: dict[str, Any] = super().schema2jsonschema(schema)  # type: ignore[no-untyped-call]
        doc = cls.__dict__.get("__doc__")
        if "description" not in jsonschema and doc:
            jsonschema["description"] = inspect.cleandoc(doc)
        jsonschema.update(getattr(cls, "OPENAPI_EXTRA", {}))
        return jsonschema


def documented_field(
    self: OpenAPIConverter, field: marshmallow.fields.Field[Any], ret: dict[str, Any]
) -> dict[str, Any]:
    """apispec attribute function: a field's `metadata["openapi"]` replaces what was inferred of it."""
    document = field.metadata.get("openapi")
    if document is None:
        return {}
    schema: dict[str, Any] = _resolve(document, self)
    description = field.metadata.get("description")
    default = ret.get("default")
    ret.clear()
    if field.allow_none:
        schema = {"anyOf": [schema, {"type": "null"}]}
    if description:
        schema = {**schema, "description": description}
    if default is not None:
        schema["default"] = default
    return schema


class TypedMarshmallowPlugin(MarshmallowPlugin):
    Converter = TypedConverter
