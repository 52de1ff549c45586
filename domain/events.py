"""Events are immutable facts: a type and a JSON object of data.

Convention for hidden information: when an event's data has a key "private",
that part is seen only by the seat named in data["seat"] until the deal ends
(see `domain.redaction`). Everything else in an event is public.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

JSON = Any  # a JSON-compatible value: dict, list, str, int, bool or None

PRIVATE = "private"


@dataclass(frozen=True, slots=True)
class Event:
    type: str
    data: Mapping[str, JSON]

    def to_json(self) -> dict[str, JSON]:
        return {"type": self.type, "data": dict(self.data)}

    @staticmethod
    def from_json(raw: Mapping[str, JSON]) -> Event:
        return Event(type=str(raw["type"]), data=dict(raw["data"]))
