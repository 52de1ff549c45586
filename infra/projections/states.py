"""`ProjectionStates`: a projector's folded table states (`infra.table_states.TableStates`, two per table: the
state before a batch, for the next projection folding it, and after) and the folds of whole slices of the log
(`slice`), which the table projections of one batch share. Part of `ProjectionCaches`, made by whoever runs the
projections."""

from __future__ import annotations

from domain.table import TableState
from infra.lru import Lru
from infra.table_states import DEFAULT_SIZE, TableStates

SliceKey = tuple[str, int, int]  # (table, first version, last version) of a slice of the log


class ProjectionStates(TableStates):
    def __init__(self, size: int = DEFAULT_SIZE, states_per_table: int = 1, slices: int = 0) -> None:
        super().__init__(size, states_per_table)
        self._slices: Lru[SliceKey, tuple[TableState, ...]] | None = Lru(slices) if slices else None

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
