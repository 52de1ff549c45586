"""`TableStates`: a bounded cache of folded table states, the piece the application's cache
(`services.app.folded_states.FoldedStates`) and a projector's (`infra.projections.states.ProjectionStates`)
share. Each is made by its owner and handed to whoever uses it; this module keeps none.

It keeps the `states_per_table` newest states it met per table (the projections fold a batch one projection
after another, and need the state before it as well as after). Whether a kept state is still the table's
latest is the application's question (`FoldedStates.current`); the state at an exact version, the projector's
(`ProjectionStates.at`). States are immutable, so threads share them.
"""

from __future__ import annotations

from collections.abc import Callable

from infra.config import DEFAULT_CACHE_TABLES
from infra.lru import Lru
from infra.table_loader import KnownTable

DEFAULT_SIZE = DEFAULT_CACHE_TABLES
CATCH_UP_LIMIT = 200  # further behind than this, a fresh bounded load is cheaper than folding every event


class TableStates:
    def __init__(self, size: int = DEFAULT_SIZE, states_per_table: int = 1) -> None:
        if states_per_table < 1:
            raise ValueError(f"a folded-state cache keeps at least 1 state per table, got {states_per_table}")
        self.states_per_table = states_per_table
        self._known: Lru[str, tuple[KnownTable, ...]] = Lru(size)  # oldest first

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

    def kept(self, table_id: str) -> tuple[KnownTable, ...]:
        """The table's kept states, oldest first (none when it is not known)."""
        return self._known.get(table_id) or ()

    def is_known(self, table_id: str) -> bool:
        return self._known.get(table_id) is not None

    def clear(self) -> None:
        self._known.clear()

    def __len__(self) -> int:
        return len(self._known)


def _is(seen: tuple[KnownTable, ...] | None) -> Callable[[tuple[KnownTable, ...]], bool]:
    """Replace only what was seen (compare-and-set)."""
    return lambda existing: existing is seen
