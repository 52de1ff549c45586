"""The response schemas' plain dump (`services/api/plain_dump.py`) answers the same bytes as marshmallow's dump:
every answer and view of whole deals of both games, with the app's JSON settings (keys in dump order)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from marshmallow import Schema, fields

from domain import table as tables
from services.api.plain_dump import PlainDump, schema_dump
from services.api.schemas import ActionResultSchema, OpenedTableSchema, OpenSchema, SeatViewSchema, TableSchema
from services.bootstrap import in_memory_application
from tests.app.test_application import Table
from tests.play import next_move

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
        same_bytes(table_schema, ledger.table_view(table.table_id))
        for player in table.players:
            same_bytes(view_schema, ledger.seat_view(player, table.table_id))
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
    from services.api import plain_dump

    schema = _Shaped()
    plan = schema.plain()
    assert plan is not None
    for n in range(plain_dump.MAX_SHAPES * 2):
        value = {f"extra-{n}": n, "name": "x"}
        assert schema.dump(value) == Schema.dump(schema, value)
    assert len(plan.shapes) == plain_dump.MAX_SHAPES  # type: ignore[attr-defined]
    assert schema.dump({"name": "late", "count": 1}) == {"name": "late", "count": 1}
