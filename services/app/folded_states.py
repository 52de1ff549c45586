"""`FoldedStates`: the application's cache of folded table states, bounded, made by `services.bootstrap` and
shared by the application's reads and writes (the audit folds from the store every time).

A cached state is never trusted as current: `current` reads the stream's events after the cached version
(usually none or one or two, one indexed query) and folds them on, so the answer is the committed state
however many processes write to the table. A table not cached, or too far behind, is loaded with
`table_events` (bounded cost). The events come from a `TableEvents` port (`services.app.ports`): a PostgreSQL
session, or the in-memory storage. What it keeps, and how, is `infra.table_states.TableStates`, the piece it
shares with a projector's cache.
"""

from __future__ import annotations

from infra.table_loader import KnownTable, evolve_recorded, fold_recorded
from infra.table_states import CATCH_UP_LIMIT, TableStates
from services.app.ports import TableEvents


class FoldedStates(TableStates):
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
