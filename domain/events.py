"""Events are immutable facts: a type and a JSON object of data.

Convention for hidden information: when an event's data has a key "private",
that part is seen only by the seat named in data["seat"] until the deal ends
(see `domain.redaction`). Everything else in an event is public.

`occurred_at` is the time the log gave the event, when the event comes from
the log (None for an event just decided): the turn clock runs from it
(`domain.table.turn_deadline`). It is not part of an event's identity, so
events compare equal with or without it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

JSON = Any  # a JSON-compatible value: dict, list, str, int, bool or None

PRIVATE = "private"


@dataclass(frozen=True, slots=True)
class Event:
    type: str
    data: Mapping[str, JSON]
    occurred_at: datetime | None = field(default=None, compare=False)

    def to_json(self) -> dict[str, JSON]:
        return {"type": self.type, "data": dict(self.data)}

    @staticmethod
    def from_json(raw: Mapping[str, JSON]) -> Event:
        return Event(type=str(raw["type"]), data=dict(raw["data"]))
