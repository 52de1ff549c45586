"""The messages of the seat view streams (`services.api.resources.seat_stream`), built cheaply: a seat view is the
table's public view (with the players' names) and the seat's own part (`domain.table.seat_private`), so the public
part is encoded once per table version in this process for every seat that follows the table here, and each
seat's message adds its own part. The text is the same, byte for byte, as the whole view encoded at once
(`view_message`): the seat's keys come after the public ones, as `domain.table.seat_view` puts them."""

from __future__ import annotations

import threading
import weakref

from domain import table as tables
from domain.events import JSON
from domain.table import TableState
from infra.json_codec import dumps_text
from infra.lru import Lru
from services.app.callers import Caller
from services.app.queries import TableQueries

PUBLIC_PARTS_KEPT = 1_000  # tables whose public part this process keeps (one version each)
SEAT_KEYS = frozenset(("seat", "hand", "legal_actions"))  # what `seat_private` adds, after the public keys

Pushed = tuple[int, str]  # a message: the view's version, its text


def view_message(view: dict[str, JSON]) -> str:
    return f"id: {view['version']}\nevent: view\ndata: {dumps_text(view)}\n\n"


def pushed(view: dict[str, JSON]) -> Pushed:
    return int(view["version"]), view_message(view)


class SeatPushes:
    """Each table's public part at its newest version pushed here, encoded (JSON without its closing brace)."""

    def __init__(self) -> None:
        self.public_parts: Lru[str, tuple[int, str]] = Lru(PUBLIC_PARTS_KEPT)

    def message(self, queries: TableQueries, caller: Caller, table_id: str, state: TableState) -> Pushed | None:
        """The caller's seat view of `state` as a message (the view `queries.seat_view_at` gives); None when the
        caller has no seat there."""
        player_id = caller.player_id
        seat = None if player_id is None else state.seat_of(player_id)
        if seat is None:
            return None
        part = self.public_parts.get(table_id)
        if part is None or part[0] != state.version:
            public = queries.public_view_at(state)
            if not SEAT_KEYS.isdisjoint(public):  # a public key named as a seat's: its value is the seat's
                view = queries.seat_view_at(caller, table_id, state)
                return None if view is None else pushed(view)
            part = (state.version, dumps_text(public)[:-1])
            self.public_parts.put(table_id, part, replaces=lambda kept: kept[0] < state.version)
        own = dumps_text(tables.seat_private(state, seat))
        return state.version, f"id: {state.version}\nevent: view\ndata: {part[1]},{own[1:]}\n\n"


_pushes: weakref.WeakKeyDictionary[TableQueries, SeatPushes] = weakref.WeakKeyDictionary()
_pushes_lock = threading.Lock()


def of(queries: TableQueries) -> SeatPushes:
    """The seat pushes of the process's reads `queries` (one per container)."""
    with _pushes_lock:
        pushes = _pushes.get(queries)
        if pushes is None:
            pushes = _pushes[queries] = SeatPushes()
        return pushes
