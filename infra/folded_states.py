"""`FoldedStates`: the one cache of folded table states, bounded, shared by whoever it is handed to (the
application's reads and writes, the audit, the projections of a worker).

A cached state is never trusted as current: `current` reads the stream's events after the cached version
(usually none or one or two, one indexed query) and folds them on, so the answer is the committed state
however many processes write to the table. A table not cached, or too far behind, is loaded with
`table_events` (bounded cost). The events come from a `TableEvents` port: a PostgreSQL session or connection
(`TableEventRows`), or the in-memory storage. `at` gives the state at an exact version, folded on from a kept older
state when one is near. States are immutable, so threads share them.

It keeps the `states_per_table` newest states it met per table (the projections fold a batch one projection
after another, and need the state before it as well as after), and the folds of whole slices of the log
(`slice`), which several projections of one batch share.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from domain.table import TableState
from infra.config import DEFAULT_CACHE_TABLES
from infra.lru import Lru
from infra.table_loader import evolve_recorded, fold_recorded

if TYPE_CHECKING:  # for now: the next step moves the application's cache out of infra
    from services.app.ports import TableEvents

DEFAULT_SIZE = DEFAULT_CACHE_TABLES
CATCH_UP_LIMIT = 200  # further behind than this, a fresh bounded load is cheaper than folding every event

SliceKey = tuple[str, int, int]  # (table, first version, last version) of a slice of the log


@dataclass(frozen=True, slots=True)
class KnownTable:
    state: TableState  # state.version is the stream's version
    last_hash: str  # the hash of the stream's event at that version


class FoldedStates:
    def __init__(self, size: int = DEFAULT_SIZE, states_per_table: int = 1, slices: int = 0) -> None:
        if states_per_table < 1:
            raise ValueError(f"a folded-state cache keeps at least 1 state per table, got {states_per_table}")
        self.states_per_table = states_per_table
        self._known: Lru[str, tuple[KnownTable, ...]] = Lru(size)  # oldest first
        self._slices: Lru[SliceKey, tuple[TableState, ...]] | None = Lru(slices) if slices else None

    def current(self, conn: TableEvents, table_id: str) -> KnownTable | None:
        """The table as committed now, or None when there is no such table."""
        known = self.newest(table_id)
        if known is not None:
            newer = conn.events_after(table_id, known.state.version, CATCH_UP_LIMIT + 1)
            if not newer:
                return known
            if len(newer) <= CATCH_UP_LIMIT:
                known = KnownTable(evolve_recorded(known.state, newer), newer[-1].hash)
                self.remember(table_id, known)
                return known
        loaded = conn.table_events(table_id)
        state = fold_recorded(loaded)
        if state is None:
            return None
        known = KnownTable(state, loaded[-1].hash)
        self.remember(table_id, known)
        return known

    def at(self, conn: TableEvents, table_id: str, version: int) -> TableState | None:
        """The table's state at `version` (None when the stream has no table at it): kept here, or folded on
        from a kept older state with the events between (one indexed query), or loaded (bounded cost)."""
        kept = self._known.get(table_id) or ()
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

    def remember(self, table_id: str, known: KnownTable) -> None:
        """Keep `known` (read from the store, or just committed) among the table's newest states; an older
        state than those kept is not kept. Compare-and-set, so threads never lose a newer state."""
        while True:
            kept = self._known.get(table_id)
            others = [k for k in kept or () if k.state.version != known.state.version]
            newest = tuple(sorted([*others, known], key=lambda k: k.state.version)[-self.states_per_table :])
            if not any(k is known for k in newest):
                return
            if self._known.put(table_id, newest, replaces=_is(kept)):
                return

    def newest(self, table_id: str) -> KnownTable | None:
        kept = self._known.get(table_id)
        return kept[-1] if kept else None

    def is_known(self, table_id: str) -> bool:
        return self._known.get(table_id) is not None

    def slice(self, key: SliceKey) -> tuple[TableState, ...] | None:
        """The states folded from a table's slice of the log (see `remember_slice`), when kept."""
        return None if self._slices is None else self._slices.get(key)

    def remember_slice(self, key: SliceKey, states: tuple[TableState, ...]) -> None:
        """Keep what folding a slice gave (a stream's events never change, so neither does this)."""
        if self._slices is not None:
            self._slices.put(key, states)

    def clear(self) -> None:
        self._known.clear()
        if self._slices is not None:
            self._slices.clear()

    def __len__(self) -> int:
        return len(self._known)


def _is(seen: tuple[KnownTable, ...] | None) -> Callable[[tuple[KnownTable, ...]], bool]:
    """Replace only what was seen (compare-and-set)."""
    return lambda existing: existing is seen
