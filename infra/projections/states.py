"""`ProjectionStates`: a projector's folded table states (`infra.table_states.TableStates`, two per table: the
state before a batch, for the next projection folding it, and after), the state at an exact version (`at`: kept,
folded on from a kept older state, or loaded; a state at a version never changes, so it is never stale), and the
folds of whole slices of the log (`slice`), which the table projections of one batch share. Part of
`ProjectionCaches`, made by whoever runs the projections."""

from __future__ import annotations

from domain.table import TableState
from infra.lru import Lru
from infra.table_loader import KnownTable, TableEventRows, evolve_recorded, fold_recorded
from infra.table_states import CATCH_UP_LIMIT, DEFAULT_SIZE, TableStates

SliceKey = tuple[str, int, int]  # (table, first version, last version) of a slice of the log


class ProjectionStates(TableStates):
    def __init__(self, size: int = DEFAULT_SIZE, states_per_table: int = 1, slices: int = 0) -> None:
        super().__init__(size, states_per_table)
        self._slices: Lru[SliceKey, tuple[TableState, ...]] | None = Lru(slices) if slices else None

    def at(self, conn: TableEventRows, table_id: str, version: int) -> TableState | None:
        """The table's state at `version` (None when the stream has no table at it): kept here, or folded on
        from a kept older state with the events between (one indexed query), or loaded (bounded cost)."""
        kept = self.kept(table_id)
        for known in kept:
            if known.state.version == version:
                return known.state
        older = [known.state for known in kept if known.state.version < version]
        if older and version - older[-1].version <= CATCH_UP_LIMIT:
            between = conn.events_after(table_id, older[-1].version, version - older[-1].version)
            if len(between) == version - older[-1].version:
                state = evolve_recorded(older[-1], between)
                self.remember(table_id, KnownTable(state, between[-1].hash))
                return state
        events = conn.table_events(table_id, up_to_version=version)
        loaded = fold_recorded(events)
        if loaded is not None:
            self.remember(table_id, KnownTable(loaded, events[-1].hash))
        return loaded

    def slice(self, key: SliceKey) -> tuple[TableState, ...] | None:
        """The states folded from a table's slice of the log (see `remember_slice`), when kept."""
        return None if self._slices is None else self._slices.get(key)

    def remember_slice(self, key: SliceKey, states: tuple[TableState, ...]) -> None:
        """Keep what folding a slice gave (a stream's events never change, so neither does this)."""
        if self._slices is not None:
            self._slices.put(key, states)

    def clear(self) -> None:
        super().clear()
        if self._slices is not None:
            self._slices.clear()
