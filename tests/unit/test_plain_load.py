"""`PlainLoad` answers what marshmallow's load answers: the same dict (keys, order, values) or the same error,
for the query strings and headers of the table reads, as webargs hands them over (a proxy of the request's
multidict)."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from marshmallow import EXCLUDE, RAISE, Schema, ValidationError, fields
from webargs.multidictproxy import MultiDictProxy
from werkzeug.datastructures import Headers, MultiDict

from services.api.plain_load import PlainLoad
from services.api.schemas import ConditionalReadHeadersSchema, MinVersionQuerySchema

INTEGERS = ["0", "7", "012", "2147483647", "2147483648", "-1", "+3", " 3", "3 ", "1_0", "١٢", "1e3", "x", "", "9" * 30]
TEXTS = ["", '"12"', 'W/"3", "4"', "*", "wait=5", "return=representation", "x" * 256, "x" * 257, "é", "a\tb"]


def both(schema: Schema, data: Any, unknown: str) -> tuple[Any, Any]:
    """(what marshmallow's own load gives, what the schema's load gives): a dict or the error's messages."""
    answers = []
    for load in (Schema.load, type(schema).load):
        try:
            answers.append(load(schema, MultiDictProxy(data, schema), unknown=unknown))
        except ValidationError as error:
            answers.append(("error", error.messages))
    return answers[0], answers[1]


def test_the_read_schemas_have_a_plan() -> None:
    assert ConditionalReadHeadersSchema()._plan is not None
    assert MinVersionQuerySchema()._plan is not None


@pytest.mark.parametrize("first, second", list(itertools.product([None, *INTEGERS], [None, *INTEGERS[:6]])))
def test_a_query_loads_as_marshmallow_loads_it(first: str | None, second: str | None) -> None:
    schema = MinVersionQuerySchema()
    pairs = [(k, v) for k, v in (("wait_for_version", first), ("min_version", second)) if v is not None]
    for extra in ([], [("other", "1")], [("wait_for_version", "5")]):
        data = MultiDict(pairs + extra)
        expected, got = both(schema, data, RAISE)
        assert got == expected
        assert list(got) == list(expected) if isinstance(got, dict) else True


@pytest.mark.parametrize("if_none_match, prefer", list(itertools.product([None, *TEXTS], [None, *TEXTS[:5]])))
def test_headers_load_as_marshmallow_loads_them(if_none_match: str | None, prefer: str | None) -> None:
    schema = ConditionalReadHeadersSchema()
    headers = Headers({"Authorization": "Bearer x", "Host": "localhost"})
    for name, value in (("if-none-match", if_none_match), ("Prefer", prefer)):
        if value is not None:
            headers.add(name, value)
    expected, got = both(schema, headers, EXCLUDE)
    assert got == expected
    if isinstance(got, dict):
        assert list(got) == list(expected)


def test_a_schema_with_what_the_plan_does_not_know_loads_as_before() -> None:
    class Defaulted(PlainLoad):
        n = fields.Integer(load_default=3)

    class Listed(PlainLoad):
        n = fields.List(fields.Integer())

    assert Defaulted()._plan is None and Defaulted().load({}) == {"n": 3}
    assert Listed()._plan is None and Listed().load({"n": ["1"]}) == {"n": [1]}
