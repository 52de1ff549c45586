"""Who is asking: a player, the auditor, or the service's own turn clock, and what each may see of a table."""

from __future__ import annotations

from dataclasses import dataclass

from domain import table as tables
from domain.redaction import AUDITOR, PUBLIC, Viewer
from domain.table import TableState


@dataclass(frozen=True, slots=True)
class Caller:
    player_id: str | None  # None for the auditor
    name: str

    @property
    def is_auditor(self) -> bool:
        return self.player_id is None


AUDITOR_CALLER = Caller(None, "auditor")
CLOCK_CALLER = Caller(None, tables.CLOCK_ACTOR)  # the service acting by itself; never an API caller


def viewer_for(state: TableState, caller: Caller) -> Viewer:
    if caller.is_auditor:
        return AUDITOR
    seat = state.seat_of(caller.player_id or "")
    return PUBLIC if seat is None else seat
