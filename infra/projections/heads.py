"""What a projection needs to know about a table besides the batch: its opening and its players.

A table's head (the `table_opened` event and the `player_seated` and
`player_left` events of deal 0) does not change once every seat is taken (that
starts deal 1), so complete heads are kept in a bounded cache
(`ProjectionCaches`, made by whoever runs the projections and handed to them).

Seats may change hands between deals, so an account "seat:N" names the player
at seat N in the deal the transfer belongs to: `table_heads(conn, caches, ids, deals)`
adds the players of the given deals (from their `deal_started` events, which
name them; a deal started before they did had the head's players, as seats
could not change then), kept in that cache too (a deal's players never
change), and `TableHead.player_at(account, deal_no)` reads them.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

from domain.events import JSON, Event
from domain.ledger import account_player
from domain.table import DEAL_STARTED, PLAYER_LEFT, PLAYER_SEATED, TABLE_OPENED, TableState, fold
from infra.db import Conn
from infra.errors import TableLogInconsistent
from infra.event_store import RecordedEvent
from infra.lru import Lru
from infra.metrics import count_error
from infra.projections.states import ProjectionStates
from infra.table_loader import KnownTable, TableEventRows, first_failing

_log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class TableHead:
    table_id: str
    game: str
    seats: int
    options: Mapping[str, JSON]
    created_seq: int  # global position of table_opened
    players: tuple[str | None, ...]  # as seated before deal 1
    deal_players: Mapping[int, tuple[str | None, ...]] = field(default_factory=dict)  # of the deals asked for

    @property
    def complete(self) -> bool:
        return None not in self.players

    def players_in(self, deal_no: int | None) -> tuple[str | None, ...]:
        """The players of deal `deal_no` (asked for from `table_heads`), else those seated before deal 1."""
        if deal_no is None:
            return self.players
        return self.deal_players.get(deal_no, self.players)

    def player_at(self, account: str, deal_no: int | None = None) -> str | None:
        """The player of account "seat:N" in deal `deal_no` (see `players_in`), or of "player:ID"; None for the
        pool or an empty seat."""
        return account_player(account, self.players_in(deal_no))


class ProjectionCaches:
    """The caches one projector shares between its projections and batches: complete table heads, the
    players of deals, and folded states (the state before a batch, for the next projection folding it, and
    after, and the folds of each table's slice of a batch, which the table projections share).

    Made by the process that runs the projections and handed down; two projectors never share one (nor two
    databases: what they hold is keyed by table and version)."""

    def __init__(
        self, heads: int = 20_000, deal_players: int = 50_000, states: int = 5_000, slices: int = 5_000
    ) -> None:
        self.heads: Lru[str, TableHead] = Lru(heads)
        self.deal_players: Lru[tuple[str, int], tuple[str | None, ...]] = Lru(deal_players)
        self.states = ProjectionStates(size=states, states_per_table=2, slices=slices)

    def clear(self) -> None:
        self.heads.clear()
        self.deal_players.clear()
        self.states.clear()


def table_heads(
    conn: Conn, caches: ProjectionCaches, table_ids: Iterable[str], deals: Iterable[tuple[str, int]] = ()
) -> dict[str, TableHead]:
    """Heads of the given tables, with the players of `deals` ((table, deal number) pairs); streams that do not
    begin with table_opened are left out."""
    heads = _table_heads(conn, caches.heads, table_ids)
    wanted = sorted({(table_id, deal_no) for table_id, deal_no in deals if table_id in heads and deal_no >= 1})
    if not wanted:
        return heads
    players: dict[tuple[str, int], tuple[str | None, ...]] = {}
    missing = []
    for key in wanted:
        kept = caches.deal_players.get(key)
        if kept is None:
            missing.append(key)
        else:
            players[key] = kept
    if missing:
        # The partial index of deal starts (migration 004) finds them; the type is in the text for its predicate.
        rows = conn.execute(
            f"""SELECT e.stream_id, e.deal_no, e.data -> 'players' AS players FROM events e
                JOIN unnest(%s::text[], %s::integer[]) AS d (stream_id, deal_no)
                  ON e.stream_id = d.stream_id AND e.deal_no = d.deal_no
                WHERE e.type = '{DEAL_STARTED}'""",
            ([t for t, _ in missing], [d for _, d in missing]),
        ).fetchall()
        for row in rows:
            key = (str(row["stream_id"]), int(row["deal_no"]))
            raw = row["players"]
            named = tuple(None if p is None else str(p) for p in raw) if isinstance(raw, list) else None
            players[key] = named if named is not None else heads[key[0]].players
            caches.deal_players.put(key, players[key])
    by_table: dict[str, dict[int, tuple[str | None, ...]]] = {}
    for (table_id, deal_no), seated in players.items():
        by_table.setdefault(table_id, {})[deal_no] = seated
    return {
        table_id: replace(head, deal_players=by_table[table_id]) if table_id in by_table else head
        for table_id, head in heads.items()
    }


# Each table's events before its first deal start (events_pkey, bounded by events_deal_starts): a filter on
# deal_no = 0 alone walked every event of the tables. OFFSET 0 keeps the per-table read a loop over the tables.
TABLE_HEAD_EVENTS_SQL = f"""SELECT e.stream_id, e.type, e.data, e.global_position
    FROM unnest(%s::text[]) AS t (stream_id),
    LATERAL (SELECT stream_id, type, data, global_position, version FROM events
             WHERE stream_id = t.stream_id AND deal_no = 0
               AND type IN ('{TABLE_OPENED}', '{PLAYER_SEATED}', '{PLAYER_LEFT}')
               AND version < coalesce((SELECT version FROM events WHERE stream_id = t.stream_id AND deal_no = 1
                                       AND type = '{DEAL_STARTED}'), 2147483647)
             OFFSET 0) AS e
    ORDER BY e.stream_id, e.version"""


def _table_heads(conn: Conn, cache: Lru[str, TableHead], table_ids: Iterable[str]) -> dict[str, TableHead]:
    wanted = sorted(set(table_ids))
    found: dict[str, TableHead] = {}
    missing = []
    for table_id in wanted:
        head = cache.get(table_id)
        if head is None:
            missing.append(table_id)
        else:
            found[table_id] = head
    if not missing:
        return found
    rows = conn.execute(TABLE_HEAD_EVENTS_SQL, (missing,)).fetchall()
    for row in rows:
        table_id, data = str(row["stream_id"]), row["data"]
        if row["type"] == TABLE_OPENED:
            seats = int(data["seats"])
            found[table_id] = TableHead(
                table_id, str(data["game"]), seats, dict(data["options"]), int(row["global_position"]), (None,) * seats
            )
        elif table_id in found:
            head = found[table_id]
            seat = int(data["seat"])
            player = str(data["player_id"]) if row["type"] == PLAYER_SEATED else None
            players = (*head.players[:seat], player, *head.players[seat + 1 :])
            found[table_id] = replace(head, players=players)
    for table_id in missing:
        head = found.get(table_id)
        if head is not None and head.complete:
            cache.put(table_id, head)
    return found


def states_before(conn: Conn, caches: ProjectionCaches, events: list[RecordedEvent]) -> dict[str, TableState]:
    """For each table stream in `events` (a contiguous slice of the global log) that had events before it, its
    state just before the slice (kept by `fold_tables` as the state before the batch, so rarely read)."""
    first: dict[str, int] = {}
    for event in events:
        first.setdefault(event.stream_id, event.version)
    found: dict[str, TableState] = {}
    for table_id, version in first.items():
        if version > 1:
            try:
                state = caches.states.at(TableEventRows(conn), table_id, version - 1)
            except ValueError:
                continue  # not a table stream
            if state is not None:
                found[table_id] = state
    return found


def fold_tables(conn: Conn, caches: ProjectionCaches, events: list[RecordedEvent]) -> dict[str, list[TableState]]:
    """For each table stream in `events` (a contiguous slice of the global log), its states in the slice.

    The list holds the state after the last event of each deal number met in
    the slice, in order; its last item is the state after the table's last
    event of the slice. A table's events in a slice of the log are consecutive
    versions and the slice before held the earlier ones, so the state just
    before the slice comes from `caches.states` when it holds that version, otherwise
    it is loaded (bounded cost). Streams that are not tables are left out.
    """
    by_table: dict[str, list[RecordedEvent]] = {}
    for event in events:
        by_table.setdefault(event.stream_id, []).append(event)
    states = caches.states
    result: dict[str, list[TableState]] = {}
    for table_id, mine in by_table.items():
        first = mine[0].version
        key = (table_id, first, mine[-1].version)
        folded = states.slice(key)
        if folded is not None:
            result[table_id] = list(folded)
            continue
        if first == 1 and mine[0].type != TABLE_OPENED:
            continue  # not a table stream
        try:
            state, found = _fold_slice(conn, states, table_id, mine)
        except TableLogInconsistent as error:
            # One altered table must not stop the read models of every other: its views stay as they were.
            _log.error("%s; its read models are left as they were", error)
            count_error("worker", error.code)
            continue
        if state is None:
            continue
        if state.version != mine[-1].version:
            raise RuntimeError(
                f"table {table_id}: state folded to version {state.version}, expected {mine[-1].version}"
            )
        states.remember(table_id, KnownTable(state, mine[-1].hash))
        states.remember_slice(key, tuple(found))
        result[table_id] = found
    return result


def _fold_slice(
    conn: Conn, states: ProjectionStates, table_id: str, mine: list[RecordedEvent]
) -> tuple[TableState | None, list[TableState]]:
    """The table's state after each deal's run of `mine` (None: not a table stream); TableLogInconsistent naming
    the first event that does not apply."""
    first = mine[0].version
    state: TableState | None = None
    if first > 1:
        try:
            state = states.at(TableEventRows(conn), table_id, first - 1)
        except TableLogInconsistent:
            raise
        except ValueError:
            return None, []  # not a table stream
        if state is None:
            return None, []
    found: list[TableState] = []
    start = 0
    for index, event in enumerate(mine):
        if index == len(mine) - 1 or mine[index + 1].deal_no != event.deal_no:
            run = mine[start : index + 1]
            try:
                state = fold(state, [Event(e.type, e.data, e.occurred_at) for e in run])
            except Exception:
                raise first_failing(state, run) from None
            found.append(state)
            start = index + 1
    return state, found
