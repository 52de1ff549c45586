"""The column lists read through `fetch_events` name RecordedEvent's fields in order (rows are passed by position)."""

from __future__ import annotations

import re

import pytest

from infra import event_store
from infra.event_store import RecordedEvent
from infra.projections import checkpoint


@pytest.mark.parametrize("columns", [event_store.EVENT_COLUMNS, checkpoint._COLUMNS], ids=["store", "projections"])
def test_event_rows_are_read_in_the_order_of_recorded_events_fields(columns: str) -> None:
    names = [re.split(r"\s+AS\s+", column.strip())[-1].split("::")[0] for column in columns.split(",")]
    assert names == list(RecordedEvent._fields)
