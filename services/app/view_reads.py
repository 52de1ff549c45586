"""What a long-poll (services.api.pushes.long_poll) reads of one view: the view now (the table's committed state, read
from the store), and whether the state this process keeps of the table is below the version asked for."""

from __future__ import annotations

from typing import Protocol

from domain.events import JSON
from domain.table import TableState
from services.app.callers import Caller
from services.app.queries import TableQueries


class ViewReads(Protocol):
    def now(self) -> dict[str, JSON]:
        """The view of the table's committed state now (reads the store; raises what the read raises)."""
        ...

    def kept(self) -> TableState | None:
        """The newest state of the table this process keeps (committed, maybe older than the store's), or None."""
        ...

    def admits(self, state: TableState) -> bool:
        """Whether the caller may read the view of `state` (a seat view needs the caller's seat there)."""
        ...


class SeatViewReads:
    def __init__(self, queries: TableQueries, caller: Caller, table_id: str) -> None:
        self.queries, self.caller, self.table_id = queries, caller, table_id

    def now(self) -> dict[str, JSON]:
        return self.queries.seat_view(self.caller, self.table_id)

    def kept(self) -> TableState | None:
        return self.queries.kept_state(self.table_id)

    def admits(self, state: TableState) -> bool:
        player_id = self.caller.player_id
        return player_id is not None and state.seat_of(player_id) is not None


class TableViewReads:
    def __init__(self, queries: TableQueries, table_id: str) -> None:
        self.queries, self.table_id = queries, table_id

    def now(self) -> dict[str, JSON]:
        return self.queries.table_view(self.table_id)

    def kept(self) -> TableState | None:
        return self.queries.kept_state(self.table_id)

    def admits(self, state: TableState) -> bool:
        return True
