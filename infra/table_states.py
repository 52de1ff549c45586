"""This process's recently used table states, brought up to date from the store each time they are used.

A cached state is never trusted as current: `current` reads the stream's events after the cached
version (usually none or one or two, one indexed query) and folds them on, so the answer is the
committed state however many processes write to the table. A table not cached, or too far behind,
is loaded with `load_table_events` (bounded cost). States are immutable, so threads share them.
"""

from __future__ import annotations

from dataclasses import dataclass

from domain.table import TableState
from infra.db import Conn
from infra.lru import Lru
from infra.table_loader import evolve_recorded, fold_recorded, load_events_after, load_table_events

DEFAULT_SIZE = 10_000
CATCH_UP_LIMIT = 200  # further behind than this, a fresh bounded load is cheaper than folding every event


@dataclass(frozen=True, slots=True)
class KnownTable:
    state: TableState  # state.version is the stream's version
    last_hash: str  # the hash of the stream's event at that version


class TableStates:
    def __init__(self, size: int = DEFAULT_SIZE) -> None:
        self._known: Lru[str, KnownTable] = Lru(size)

    def current(self, conn: Conn, table_id: str) -> KnownTable | None:
        """The table as committed now, or None when there is no such table."""
        known = self._known.get(table_id)
        if known is not None:
            newer = load_events_after(conn, table_id, known.state.version, CATCH_UP_LIMIT + 1)
            if not newer:
                return known
            if len(newer) <= CATCH_UP_LIMIT:
                known = KnownTable(evolve_recorded(known.state, newer), newer[-1].hash)
                self.remember(table_id, known)
                return known
        loaded = load_table_events(conn, table_id)
        state = fold_recorded(loaded)
        if state is None:
            return None
        known = KnownTable(state, loaded[-1].hash)
        self.remember(table_id, known)
        return known

    def remember(self, table_id: str, known: KnownTable) -> None:
        """Keep `known` (read from the store, or just committed) unless a newer state is kept already."""
        self._known.put(table_id, known, replaces=lambda kept: kept.state.version <= known.state.version)

    def is_known(self, table_id: str) -> bool:
        return self._known.get(table_id) is not None

    def clear(self) -> None:
        self._known.clear()
