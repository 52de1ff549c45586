"""The TableState copies `domain.table` spells out instead of `dataclasses.replace` (`stamped`, `_with_deal`)
carry every field: a field added to TableState and not to them fails here."""

from __future__ import annotations

from dataclasses import fields, replace
from datetime import UTC, datetime

from domain import table as tables
from domain.table import TableState, _with_deal, stamped


def a_state_with_every_field_set(clock_since: datetime | None) -> TableState:
    values = {field.name: f"value of {field.name}" for field in fields(TableState)}
    values["version"] = 7
    values["clock_since"] = clock_since
    return TableState(**values)  # type: ignore[arg-type]


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
