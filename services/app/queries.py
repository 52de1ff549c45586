"""The reads of tables: the public state, a seat's view, the lobby, a page of events.

A read of one table's state or seat view is never older than the last committed write: this process's
cached state is brought up to date (`FoldedStates`), and a table this process has not seen is read from the
projected view when that has reached the stream's head. The lobby reads the `table_views` projection only:
a new table appears once the projection has caught up with its opening.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime, timedelta

from domain import table as tables
from domain.events import JSON
from domain.redaction import AUDITOR, PUBLIC, Viewer
from domain.table import TableState
from infra.errors import TableLogInconsistent
from infra.event_store import DealFacts, EventStorage
from infra.sql.table_views import Projected
from services.app.answers import WithheldHashes, event_json
from services.app.caches import KnownPlayers
from services.app.callers import Caller
from services.app.errors import Forbidden, NotFound
from services.app.folded_states import FoldedStates
from services.app.ports import ReadModels, Storage


class TableQueries:
    def __init__(
        self,
        storage: Storage,
        states: FoldedStates,
        withheld: WithheldHashes,
        players: KnownPlayers,
    ) -> None:
        self.storage = storage
        self.store: EventStorage = storage.store
        self.states = states
        self.withheld = withheld
        self.players = players

    def load_state(self, table_id: str) -> TableState:
        """The table's committed state now."""
        with self.storage.session() as conn:
            known = self.states.current(conn, table_id)
        if known is None:
            raise NotFound(f"table {table_id} does not exist", "table_not_found")
        return known.state

    def kept_state(self, table_id: str) -> TableState | None:
        """The newest state of the table this process keeps (no read): committed, maybe older than the store's."""
        known = self.states.newest(table_id)
        return None if known is None else known.state

    def table_view(self, table_id: str) -> dict[str, JSON]:
        """The public table state."""
        view = self._projected_view(table_id, lambda conn: conn.projected_table_view(table_id))
        return self._with_names(view if view is not None else tables.public_view(self.load_state(table_id)))

    def seat_view(self, caller: Caller, table_id: str) -> dict[str, JSON]:
        player_id = caller.player_id
        if player_id is None:
            raise Forbidden("the auditor has no seat; read the public table state instead", "no_seat")
        view = self._projected_view(table_id, lambda conn: conn.projected_seat_view(table_id, player_id))
        if view is not None:
            return self._with_names(view)
        state = self.load_state(table_id)
        seat = state.seat_of(player_id)
        if seat is None:
            raise Forbidden(f"player {player_id} has no seat at table {table_id}", "no_seat")
        return self._with_names(tables.seat_view(state, seat))

    def seat_view_at(self, caller: Caller, table_id: str, state: TableState | None) -> dict[str, JSON] | None:
        """The caller's seat view of `state` (a state a write just folded: no read of the log), or of the table's
        state now when `state` is None; None when the caller has no seat there (it left, or is the auditor).
        The same view as `seat_view` gives at that version."""
        player_id = caller.player_id
        if player_id is None:
            return None
        if state is None:
            state = self.load_state(table_id)
        seat = state.seat_of(player_id)
        if seat is None:
            return None
        return self._with_names(tables.seat_view(state, seat))

    def public_view_at(self, state: TableState) -> dict[str, JSON]:
        """The public view of `state` with the players' names: the part of every seat's view at that version
        that `seat_view_at` gives before the seat's own keys (`domain.table.seat_private`)."""
        return self._with_names(tables.public_view(state))

    def _projected_view(self, table_id: str, read: Callable[[ReadModels], Projected | None]) -> dict[str, JSON] | None:
        """The projected view when this process keeps no state of the table and the projection has reached
        the stream's head; else None, and the caller folds the state on.

        A table this process has written or read is cheaper to fold on (one query for the events after
        the cached version) than to wait for a projection that is usually a few milliseconds behind.
        """
        if self.states.is_known(table_id):
            return None
        with self.storage.session() as conn:
            found = read(conn)
        if found is None:
            return None
        version, head, view = found
        return view if version >= head else None

    def _with_names(self, view: Mapping[str, JSON]) -> dict[str, JSON]:
        shaped = dict(view)
        ids = [p for p in view.get("players", []) if p]
        if ids:
            known = self.players.known(ids)
            missing = [p for p in ids if p not in known]
            if missing:
                with self.storage.session() as conn:
                    found = conn.players_by_id(missing)
                for player in found.values():
                    self.players.remember(player)
                known |= found
            shaped["players"] = [
                None if p is None else {"id": p, "name": known[p].name if p in known else None}
                for p in view.get("players", [])
            ]
        return shaped

    def lobby(self, status: str | None, game: str | None, after: int, limit: int) -> dict[str, JSON]:
        """A page of tables, oldest first; `next_after` is the last row's `created_seq` when more may follow."""
        with self.storage.session() as conn:
            rows = conn.lobby_rows(status, game, after, limit + 1)
            page = rows[:limit]
            ids = sorted({p for row in page for p in row["view"].get("players", []) if p})
            names = conn.players_by_id(ids) if ids else {}
        shown: list[JSON] = []
        for row in page:
            view = dict(row["view"])
            view["players"] = [
                None if p is None else {"id": p, "name": names[p].name if p in names else None}
                for p in view.get("players", [])
            ]
            shown.append(view)
        next_after = int(page[-1]["created_seq"]) if len(rows) > limit else None
        return {"tables": shown, "next_after": next_after}

    def tables_due(self, now: datetime, abandon_after: timedelta, limit: int) -> list[str]:
        """Tables the read model says the clock should look at `now`: turn deadlines passed (most overdue
        first), then tables nobody has sat at for `abandon_after`; at most `limit` of each kind."""
        with self.storage.session() as conn:
            found = conn.tables_with_turn_due(now, limit)
            abandoned = conn.tables_vacant_since(now - abandon_after, limit)
        return found + [table for table in abandoned if table not in found]

    def exists(self, table_id: str) -> bool:
        return self.store.stream_version(table_id) is not None

    def signing_keys(self) -> list[dict[str, JSON]]:
        """Every key that has signed receipts, oldest first."""
        with self.storage.session() as conn:
            return conn.signing_keys()

    def events(self, caller: Caller, table_id: str, after: int, limit: int) -> dict[str, JSON]:
        """A page of the raw log, each event redacted for the caller as a reader of its deal: the seat it held
        in that deal (whether or not it has left since), else its seat now, else the public. Nothing is folded
        but what is kept already, so a table whose log no longer folds can still be read and verified."""
        recorded = self.store.read_stream(table_id, from_version=after + 1, limit=limit)
        if not recorded and not self.exists(table_id):
            raise NotFound(f"table {table_id} does not exist", "table_not_found")
        try:
            seat_now = None if caller.is_auditor else self.load_state(table_id).seat_of(caller.player_id or "")
        except TableLogInconsistent:
            seat_now = None  # the log does not fold: a reader is the seat it held in each deal, or the public
        facts = self.store.deal_facts(table_id, {event.deal_no for event in recorded})
        shown = []
        for event in recorded:
            deal = facts.get(event.deal_no)
            over = event.deal_no == 0 or (deal is not None and deal.ended)
            viewer = _reader_of_deal(caller, deal, seat_now)
            withheld = (
                not over and viewer is not AUDITOR and self.withheld.deal_holds_v1_private(table_id, event.deal_no)
            )
            shown.append(event_json(event, viewer, over, withheld))
        return {"events": shown, "next_after": recorded[-1].version if recorded else after}


def _reader_of_deal(caller: Caller, deal: DealFacts | None, seat_now: int | None) -> Viewer:
    """Who `caller` is to the events of a deal: the auditor; the seat it played in that deal; else its seat at
    the table now (a seated player reads every ended deal); else the public."""
    if caller.is_auditor:
        return AUDITOR
    played = None if deal is None else deal.seat_of(caller.player_id or "")
    if played is not None:
        return played
    return PUBLIC if seat_now is None else seat_now
