"""The TableState copies `domain.table` spells out instead of `dataclasses.replace` (`stamped`, `_with_deal`)
carry every field: a field added to TableState and not to them fails here."""

from __future__ import annotations

from dataclasses import fields, replace
from datetime import UTC, datetime

from domain import table as tables
from domain.table import TableState, _with_deal, stamped

# A distinct value of each field's type (the compiled domain checks them); a field missing here fails too.
VALUES: dict[str, object] = {
    "table_id": "value of table_id",
    "game": "value of game",
    "seats": 3,
    "options": {"value of": "options"},
    "status": "value of status",
    "players": ("value of players", None),
    "version": 7,
    "deal_no": 5,
    "next_commitment": "value of next_commitment",
    "next_client_seeds": ("value of next_client_seeds",),
    "deal_client_seeds": ("value of deal_client_seeds",),
    "ready": frozenset({2}),
    "carry": {"value of": "carry"},
    "deal": "value of deal",
    "last_result": {"value of": "last_result"},
}


def a_state_with_every_field_set(clock_since: datetime | None) -> TableState:
    values = {field.name: VALUES[field.name] for field in fields(TableState) if field.name != "clock_since"}
    return TableState(**values, clock_since=clock_since)  # type: ignore[arg-type]


def test_stamped_is_replace_of_clock_since() -> None:
    at = datetime(2026, 12, 2, 2, 0, tzinfo=UTC)
    state = a_state_with_every_field_set(None)
    assert stamped(state, at) == replace(state, clock_since=at)
    timed = a_state_with_every_field_set(datetime(2026, 12, 1, tzinfo=UTC))
    assert stamped(timed, at) is timed


def test_with_deal_is_replace_of_version_deal_and_clock() -> None:
    at = datetime(2026, 12, 2, 2, 0, tzinfo=UTC)
    state = a_state_with_every_field_set(None)
    assert _with_deal(state, "deal", 3, at) == replace(state, version=10, deal="deal", clock_since=at)
    assert tables.stamped is stamped
