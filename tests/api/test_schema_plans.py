"""The one equivalence test of `services/api/schemas/plain.py`: the schemas' plans load and dump exactly as webargs
and marshmallow do.

Loading: the action POST's body and headers, and the view GET's query and headers, give the same dict (keys,
order, values) for what they take, and the same error answer (status, headers, problem JSON bytes) for what
they refuse, over the spec's examples, hand-written edge cases and hypothesis' bodies, queries and headers.
Dumping: every answer and view of whole deals of both games gives the same bytes as marshmallow's dump."""

from __future__ import annotations

import functools
import json
import random
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import urlencode

import pytest
from flask import Flask, request
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from marshmallow import Schema, fields

from domain import table as tables
from domain.cards import CHERKI_TYPES, SAMPEN_TYPES
from services.api import create_app
from services.api.middleware.strict_json import StrictParser
from services.api.schemas import plain as plain_schemas
from services.api.schemas.answers import (
    ActionHeadersSchema,
    ActionResultSchema,
    ConditionalReadHeadersSchema,
    MinVersionQuerySchema,
    OpenedTableSchema,
    OpenSchema,
    SeatViewSchema,
    TableSchema,
)
from services.api.schemas.game import ActionSchema
from services.api.schemas.plain import NOT_PLAIN, PlainDump, PlainParser, plain_load, schema_dump, schema_load
from services.api.spec.examples import ACTIONS
from services.bootstrap import Container, in_memory_application
from tests.api.conftest import TEST_CONFIG
from tests.play import Table, next_move

PATH = "/v1/tables/00000000-0000-0000-0000-000000000018/actions"
VIEW_PATH = "/v1/tables/00000000-0000-0000-0000-000000000018/view"
PLAIN, WEBARGS = PlainParser(), StrictParser()
BODY, HEADERS = ActionSchema(), ActionHeadersSchema()
QUERY, READ_HEADERS = MinVersionQuerySchema(), ConditionalReadHeadersSchema()
CHECKS = settings(max_examples=400, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
VALID_HEADERS = {"Idempotency-Key": "action-1", "If-Match": '"12"', "Prefer": "return=representation"}


@pytest.fixture(scope="module")
def app(container: Container) -> Iterator[Flask]:
    yield create_app(container=container, config=TEST_CONFIG)


def outcome(app: Flask, parse: Callable[[], Any]) -> tuple[str, Any]:
    """("taken", the JSON of what `parse` returned) or ("refused", status, headers, body) of its error answer."""
    try:
        taken = parse()
    except Exception as error:  # the answer the app makes of it, as a request would get it
        answer = app.make_response(app.handle_user_exception(error))
        return "refused", (answer.status_code, sorted(answer.headers.items()), answer.get_data())
    return "taken", (type(taken).__name__, json.dumps(taken, ensure_ascii=False))


def both(app: Flask, body: bytes | None, headers: dict[str, str], content_type: str = "application/json") -> bool:
    """Both parsers over one request: the same outcome for the body and for the headers. True when the plan
    took the body itself (no fallback)."""
    with app.test_request_context(PATH, method="POST", data=body, headers=headers, content_type=content_type):
        for schema, location, status in ((BODY, "json", None), (HEADERS, "headers", 400)):
            plain = outcome(app, functools.partial(PLAIN.parse, schema, location=location, error_status_code=status))
            webargs = outcome(
                app, functools.partial(WEBARGS.parse, schema, location=location, error_status_code=status)
            )
            assert plain == webargs, f"{location} of {body!r} {headers!r}:\n{plain}\n{webargs}"
        data = request.get_json(silent=True)
        plan = plain_load(BODY, None)
        assert plan is not None
        return type(data) is dict and plan(data) is not NOT_PLAIN


def same_view_outcome(app: Flask, query: str, headers: dict[str, str]) -> bool:
    """Both parsers over one view GET: the same outcome for the query and for the headers. True when the plan
    took the query itself."""
    with app.test_request_context(f"{VIEW_PATH}?{query}", method="GET", headers=headers):
        for schema, location, options in (
            (QUERY, "query", {"unknown": "raise"}),
            (READ_HEADERS, "headers", {"error_status_code": 400}),
        ):
            plain = outcome(app, functools.partial(PLAIN.parse, schema, location=location, **options))
            webargs = outcome(app, functools.partial(WEBARGS.parse, schema, location=location, **options))
            assert plain == webargs, f"{location} of {query!r} {headers!r}:\n{plain}\n{webargs}"
        plan = plain_load(QUERY, "raise", "query")
        assert plan is not None
        return bool(plan(request.args) is not NOT_PLAIN)


def test_the_action_schemas_have_plans() -> None:
    assert plain_load(BODY, None) is not None
    assert plain_load(HEADERS, "exclude", "headers") is not None
    assert plain_load(HEADERS, "exclude", "cookies") is None
    assert plain_load(QUERY, "raise", "query") is not None
    assert plain_load(READ_HEADERS, "exclude", "headers") is not None


@pytest.mark.parametrize("name", sorted(ACTIONS))
def test_the_spec_examples_load_the_same_by_the_plan_itself(app: Flask, name: str) -> None:
    assert both(app, json.dumps(ACTIONS[name]["value"]).encode(), VALID_HEADERS)


EDGE_BODIES: list[bytes | None] = [
    None,
    b"",
    b"{}",
    b"[]",
    b"null",
    b"12",
    b'"discard"',
    b"{",
    b"\xff\xfe",
    b'{"type": "discard"}',
    b'{"type": "discard", "card": null}',
    b'{"type": "discard", "card": 7}',
    b'{"type": "discard", "card": ""}',
    b'{"type": "discard", "card": "123456789"}',
    b'{"type": "discard", "card": "7C\\n"}',
    b'{"type": "discard", "card": "\\u00e9"}',
    b'{"type": "discard", "card": "\\ud800"}',
    b'{"type": "discard", "card": "7C", "capture": null}',
    b'{"type": "discard", "card": "7C", "capture": []}',
    b'{"type": "discard", "card": "7C", "capture": ["7M"]}',
    b'{"type": "discard", "card": "7C", "capture": ["7M", null]}',
    b'{"type": "discard", "card": "7C", "capture": ["7M", 7]}',
    b'{"type": "discard", "card": "7C", "capture": "7M7S"}',
    b'{"type": "discard", "card": "7C", "capture": {"a": 1}}',
    b'{"type": "discard", "card": "7C", "capture": ["7M", "7S", "7X"]}',
    b'{"type": "discard", "card": "7C", "extra": 1}',
    b'{"type": "discard", "card": "7C", "card": "7M"}',
    b'{"type": "discard", "card": "ZZ"}',
    b'{"type": "capture", "cards": ["4C", "4S"], "card": "4C"}',
    b'{"type": "capture"}',
    b'{"type": "pass", "x": null}',
    b'{"type": "pass", "type": "pass"}',
    b'{"type": "play", "cards": []}',
    b'{"type": "play", "cards": [' + b",".join(b'"1S"' for _ in range(33)) + b"]}",
    b'{"type": "play", "cards": [' + b",".join(b'"1S"' for _ in range(32)) + b"]}",
    b'{"type": "play", "count": 2}',
    b'{"type": "ready"}',
    b'{"type": "ready", "client_seed": null}',
    b'{"type": "ready", "client_seed": ""}',
    b'{"type": "ready", "client_seed": "a\\u0000b"}',
    b'{"type": "ready", "client_seed": "\\u4e2d\\u6587 \\ud83c\\udccf"}',
    b'{"type": "ready", "client_seed": "' + b"x" * 257 + b'"}',
    b'{"type": "ready", "client_seed": "' + b"x" * 256 + b'"}',
    b'{"type": "ready", "client_seed": 12345678901234567890123}',
    b'{"type": "ready", "client_seed": 1e400}',
    b'{"type": "ready", "client_seed": NaN}',
    b'{"type": "close", "client_seed": "x"}',
    b'{"type": "leave"}',
    b'{"type": null}',
    b'{"type": 1}',
    b'{"type": "DISCARD", "card": "7C"}',
    b'{"type": ["discard"], "card": "7C"}',
    b'{"type": "discard", "card": true}',
    b'{"type": "discard", "card": ["7C"]}',
    b'{"type": "discard", "card": 2.0}',
    b'[{"type": "pass"}]',
    b"[" * 40 + b"]" * 40,
]

EDGE_HEADERS: list[dict[str, str]] = [
    {},
    {"Idempotency-Key": ""},
    {"Idempotency-Key": " "},
    {"Idempotency-Key": "k" * 128},
    {"Idempotency-Key": "k" * 129},
    {"Idempotency-Key": "caf\xe9"},
    {"Idempotency-Key": "a\tb"},
    {"Idempotency-Key": "\x7f"},
    {"Idempotency-Key": "k", "If-Match": "*"},
    {"Idempotency-Key": "k", "If-Match": "garbage"},
    {"Idempotency-Key": "k", "Prefer": "p" * 257},
    {"Idempotency-Key": "k", "Prefer": ""},
    {"Idempotency-Key": "k", "X-Other": "1"},
    {"If-Match": '"1"', "Prefer": "return=representation"},
    VALID_HEADERS,
]


@pytest.mark.parametrize("body", EDGE_BODIES)
def test_edge_bodies_give_the_same_outcome(app: Flask, body: bytes | None) -> None:
    both(app, body, VALID_HEADERS)


@pytest.mark.parametrize("headers", EDGE_HEADERS)
def test_edge_headers_give_the_same_outcome(app: Flask, headers: dict[str, str]) -> None:
    both(app, b'{"type": "pass"}', headers)


def test_other_content_types_give_the_same_outcome(app: Flask) -> None:
    for content_type in ("text/plain", "application/json; charset=latin-1", "application/x-www-form-urlencoded"):
        both(app, b'{"type": "pass"}', VALID_HEADERS, content_type)


CARDS = sorted({*CHERKI_TYPES, *SAMPEN_TYPES})
TEXT = st.text(max_size=12) | st.sampled_from(CARDS) | st.text(alphabet="\x00\x1f\x7f \t~é", max_size=4)
SCALAR = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | TEXT
JSON = st.recursive(SCALAR, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4))
CARD_LIST = st.lists(st.sampled_from(CARDS) | SCALAR, max_size=34)
ACTION_TYPES = st.sampled_from(["discard", "capture", "pass", "play", "ready", "close", "leave"]) | SCALAR
ACTION = st.fixed_dictionaries(
    {"type": ACTION_TYPES},
    optional={
        "card": st.sampled_from(CARDS) | SCALAR,
        "capture": st.none() | CARD_LIST | JSON,
        "cards": CARD_LIST | JSON,
        "count": JSON,
        "client_seed": st.none() | TEXT | st.text(min_size=250, max_size=260) | JSON,
        "extra": JSON,
    },
)
HEADER_TEXT = st.text(st.characters(min_codepoint=0x20, max_codepoint=0xFF), max_size=140) | st.text(max_size=3)
HEADER_SET = st.fixed_dictionaries(
    {},
    optional={
        "Idempotency-Key": HEADER_TEXT | st.text("ab", min_size=120, max_size=135),
        "If-Match": HEADER_TEXT,
        "Prefer": HEADER_TEXT | st.text("p", min_size=250, max_size=260),
        "X-Unrelated": HEADER_TEXT,
    },
)


def _sendable(headers: dict[str, str]) -> dict[str, str]:
    """What a client can send: header values without line breaks, in Latin-1 (WSGI's header encoding)."""
    kept = {}
    for name, value in headers.items():
        if "\r" not in value and "\n" not in value and value == value.strip(" \t") and value.isprintable():
            try:
                value.encode("latin-1")
            except UnicodeEncodeError:
                continue
            kept[name] = value
    return kept


@CHECKS
@given(action=ACTION | JSON)
def test_generated_bodies_give_the_same_outcome(app: Flask, action: Any) -> None:
    both(app, json.dumps(action, ensure_ascii=False).encode(), VALID_HEADERS)


@CHECKS
@given(action=ACTION, duplicate=st.sampled_from(["type", "card", "cards", "client_seed"]), value=SCALAR)
def test_bodies_with_a_duplicated_key_give_the_same_outcome(
    app: Flask, action: dict[str, Any], duplicate: str, value: Any
) -> None:
    text = json.dumps(action)[:-1] + ("," if action else "") + json.dumps(duplicate) + ": " + json.dumps(value) + "}"
    both(app, text.encode(), VALID_HEADERS)


@CHECKS
@given(headers=HEADER_SET)
def test_generated_headers_give_the_same_outcome(app: Flask, headers: dict[str, str]) -> None:
    both(app, b'{"type": "pass"}', _sendable(headers))


@CHECKS
@given(body=st.binary(max_size=40) | st.text(max_size=40).map(str.encode))
def test_generated_bytes_give_the_same_outcome(app: Flask, body: bytes) -> None:
    both(app, body, VALID_HEADERS)


def test_a_schema_with_a_field_the_plan_does_not_know_has_no_plan() -> None:
    class Counted(Schema):
        count = fields.Float()

    class Defaulted(Schema):
        name = fields.String(load_default="x")

    class Renamed(Schema):
        name = fields.String(attribute="other")

    assert schema_load(Counted()) is None
    assert schema_load(Defaulted()) is None
    assert schema_load(Renamed()) is None
    assert plain_load(Counted(), None) is None  # nor does a schema that did not opt in


@pytest.mark.parametrize("query", ["", "wait_for_version=12", "min_version=0&wait_for_version=2147483647"])
def test_the_view_query_loads_the_same_by_the_plan_itself(app: Flask, query: str) -> None:
    assert same_view_outcome(app, query, {"If-None-Match": '"3"', "Prefer": "wait=1"})


EDGE_QUERIES = [
    "wait_for_version=",
    "wait_for_version=-1",
    "wait_for_version=+1",
    "wait_for_version=%2012",
    "wait_for_version=1_000",
    "wait_for_version=%D9%A1%D9%A2",
    "wait_for_version=2147483648",
    "wait_for_version=" + "9" * 19,
    "wait_for_version=" + "9" * 5000,
    "wait_for_version=0012",
    "wait_for_version=1.0",
    "wait_for_version=x",
    "wait_for_version=1&wait_for_version=x",
    "wait_for_version=x&wait_for_version=1",
    "wait_for_version=1&other=2",
    "other",
    "min_version=3&min_version=4",
    "&&=",
]


@pytest.mark.parametrize("query", EDGE_QUERIES)
def test_edge_queries_give_the_same_outcome(app: Flask, query: str) -> None:
    same_view_outcome(app, query, {})


@pytest.mark.parametrize("headers", [*EDGE_HEADERS, {"If-None-Match": "x" * 257}, {"If-None-Match": "*"}])
def test_edge_read_headers_give_the_same_outcome(app: Flask, headers: dict[str, str]) -> None:
    same_view_outcome(app, "", headers)


QUERY_VALUE = st.integers(-5, 2**31 + 5).map(str) | st.text(max_size=8) | st.text("0123456789_+- ", max_size=12)
QUERY_NAME = st.sampled_from(["wait_for_version", "min_version", "other"]) | st.text(max_size=4)


@CHECKS
@given(pairs=st.lists(st.tuples(QUERY_NAME, QUERY_VALUE), max_size=4))
def test_generated_queries_give_the_same_outcome(app: Flask, pairs: list[tuple[str, str]]) -> None:
    same_view_outcome(app, urlencode(pairs), {})


@CHECKS
@given(headers=st.fixed_dictionaries({}, optional={"If-None-Match": HEADER_TEXT, "Prefer": HEADER_TEXT}))
def test_generated_read_headers_give_the_same_outcome(app: Flask, headers: dict[str, str]) -> None:
    same_view_outcome(app, "", _sendable(headers))


# Dumping ------------------------------------------------------------------

GAMES = [("cholek-tiga", 2), ("cha-kau-tsz", 3), ("cha-kau-tsz", 2)]
DEALS = 3


def same_bytes(schema: PlainDump, obj: Any) -> None:
    plain = json.dumps(schema.dump(obj), ensure_ascii=False, allow_nan=False)
    marshmallow = json.dumps(Schema.dump(schema, obj), ensure_ascii=False, allow_nan=False)
    assert plain == marshmallow, f"{type(schema).__name__} dumps differ:\n{plain}\n{marshmallow}"


@pytest.mark.parametrize("schema", [ActionResultSchema, SeatViewSchema, TableSchema, OpenedTableSchema])
def test_the_answers_schemas_have_a_plan(schema: type[PlainDump]) -> None:
    assert schema().plain() is not None, f"{schema.__name__} would dump through marshmallow, not its plan"


@pytest.mark.parametrize(("game", "seats"), GAMES)
def test_whole_deals_dump_the_same_bytes_both_ways(game: str, seats: int) -> None:
    ledger = in_memory_application()
    table = Table(ledger, game, seats)
    answer_schema, view_schema, table_schema = ActionResultSchema(), SeatViewSchema(), TableSchema()
    same_bytes(OpenedTableSchema(), ledger.open_table(table.players[0], game, seats, {}))
    rng = random.Random(f"{game}-{seats}")
    answers = 0
    while True:
        state = table.state()
        if state.deal_no > DEALS or state.status == tables.CLOSED:
            break
        answer = table.act(*next_move(state, rng), with_view=True)
        assert "view" in answer
        same_bytes(answer_schema, answer)
        same_bytes(table_schema, ledger.queries.table_view(table.table_id))
        for player in table.players:
            same_bytes(view_schema, ledger.queries.seat_view(player, table.table_id))
        answers += 1
    assert answers > 20 * DEALS


def test_a_schema_with_a_field_the_plan_does_not_know_dumps_through_marshmallow() -> None:
    class Dated(PlainDump):
        at = fields.DateTime()

    class Shadowed(PlainDump):
        items = fields.Raw()  # marshmallow would dump a missing "items" as the dict's method

    assert schema_dump(Dated()) is None
    assert schema_dump(Shadowed()) is None
    assert Dated().dump({"at": None}) == {"at": None}


def test_undeclared_keys_follow_the_declared_ones_and_missing_keys_stay_missing() -> None:
    class Open(PlainDump, OpenSchema):
        a = fields.Integer()
        b = fields.List(fields.String())

    value = {"z": [1], "b": ["x", "y"], "extra": {"k": 1}}
    assert list(Open().dump(value)) == list(Schema.dump(Open(), value)) == ["b", "z", "extra"]
    assert Open().dump({"a": True}) == {"a": 1}  # an Integer field dumps int(value), as marshmallow does


class _Ref(Schema):
    id = fields.String(required=True)
    n = fields.Integer()


class _Shaped(PlainDump, OpenSchema):
    name = fields.String()
    count = fields.Integer()
    title = fields.String()
    total = fields.Integer()
    refs = fields.List(fields.Nested(_Ref, allow_none=True))
    tags = fields.List(fields.String())
    options = fields.Dict()
    ref = fields.Nested(_Ref, allow_none=True)
    raw = fields.Raw()


def test_each_key_order_converts_what_marshmallow_converts() -> None:
    """Values the plan passes on as they are and values it converts (bytes, integral types, lists and nested
    objects, None in a list of objects), in every order of keys, as marshmallow dumps them."""
    values: list[dict[str, Any]] = [
        {"name": "x", "count": 2, "refs": [{"id": "a", "n": 1}, None], "tags": ["t"], "options": {"k": 1}},
        {"title": "t", "name": "n", "total": 3, "count": None},
        {"title": b"t", "name": "n", "total": True, "count": 4, "extra": "e"},
        {"name": 5, "title": None, "count": 2.0, "total": 1},
        {"raw": [1, {"b": 2}], "ref": {"n": True, "id": b"b", "other": 1}, "count": False, "name": b"bytes"},
        {"tags": ["a", b"b"], "refs": [], "extra": 1, "name": None, "ref": None, "options": None, "more": "m"},
        {"count": 7, "name": 12, "tags": None, "refs": None, 3: "not a string key"},
    ]
    schema = _Shaped()
    for value in values:
        for order in (value, dict(reversed(list(value.items())))):
            expected = Schema.dump(schema, order)
            for _ in range(2):  # worked out, then from the kept steps
                dumped = schema.dump(order)
                assert dumped == expected and list(dumped) == list(expected)


def test_a_plan_keeps_the_steps_of_a_bounded_number_of_key_orders() -> None:
    schema = _Shaped()
    plan = schema.plain()
    assert plan is not None
    for n in range(plain_schemas.MAX_SHAPES * 2):
        value = {f"extra-{n}": n, "name": "x"}
        assert schema.dump(value) == Schema.dump(schema, value)
    assert len(plan.shapes) == plain_schemas.MAX_SHAPES  # type: ignore[attr-defined]
    assert schema.dump({"name": "late", "count": 1}) == {"name": "late", "count": 1}
