"""The double-entry ledger and the settlement figures per player and table.

Every event whose data carries "transfers" (deal ends, in-play bonuses) makes
two ledger lines per transfer: the payer debited, the payee credited. Account
"seat:N" is mapped to the player seated there; "pool" has no player. The unit
is the event's data["unit"], "cents" when absent (in-play bonuses are cents);
amount_cents is the amount for cents, amount * options["chip_value_cents"] for
points.

Settlements: per player and table, net_cents (all lines), net_amount (lines
in the game's money unit, which is `unit`), and deals (deal_ended events
since the player sat down). A row appears when the player sits.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from domain.events import Event
from domain.games import game_named
from domain.table import DEAL_ENDED, PLAYER_SEATED, deal_transfers
from infra.db import Conn
from infra.event_store import RecordedEvent
from infra.json_codec import dumps_text
from infra.projections.base import ModelTable, Projection
from infra.projections.heads import ProjectionCaches, TableHead, table_heads

CENTS = "cents"

# A batch's rows go as one jsonb array (see infra/projections/tables.py), where executemany sent a statement a row.
_INSERT_LINES = """
INSERT INTO ledger_lines (global_position, line_no, table_id, game, deal_no, account, player_id,
                          amount, unit, amount_cents, reason, occurred_at, version, event_type)
SELECT global_position, line_no, table_id, game, deal_no, account, player_id,
       amount, unit, amount_cents, reason, occurred_at, version, event_type
FROM jsonb_to_recordset(%s::jsonb)
     AS row (global_position bigint, line_no integer, table_id text, game text, deal_no integer, account text,
             player_id text, amount bigint, unit text, amount_cents bigint, reason text, occurred_at timestamptz,
             version integer, event_type text)
"""

_ADD_SETTLEMENTS = """
INSERT INTO settlements (player_id, table_id, game, net_cents, net_amount, unit, deals)
SELECT player_id, table_id, game, net_cents, net_amount, unit, deals
FROM jsonb_to_recordset(%s::jsonb)
     AS row (player_id text, table_id text, game text, net_cents bigint, net_amount bigint, unit text,
             deals integer)
ON CONFLICT (player_id, table_id) DO UPDATE
SET net_cents = settlements.net_cents + EXCLUDED.net_cents,
    net_amount = settlements.net_amount + EXCLUDED.net_amount,
    deals = settlements.deals + EXCLUDED.deals
"""


@dataclass(frozen=True, slots=True)
class Line:
    global_position: int
    line_no: int
    table_id: str
    game: str
    deal_no: int
    account: str
    player_id: str | None
    amount: int
    unit: str
    amount_cents: int
    reason: str
    occurred_at: Any
    version: int  # of the event in the table's stream
    event_type: str


def ledger_lines(event: RecordedEvent, head: TableHead) -> list[Line]:
    """The ledger lines of one event (none when it carries no transfers)."""
    transfers = deal_transfers(Event(event.type, event.data))
    if not transfers:
        return []
    unit = str(event.data.get("unit") or CENTS)
    factor = 1 if unit == CENTS else int(head.options.get("chip_value_cents", 0))
    lines = []
    for index, transfer in enumerate(transfers):
        for offset, (account, amount) in enumerate(transfer.entries()):
            lines.append(
                Line(
                    event.global_position,
                    2 * index + offset,
                    event.stream_id,
                    head.game,
                    event.deal_no,
                    account,
                    head.player_at(account, event.deal_no),  # the deal's players: seats change hands between deals
                    amount,
                    unit,
                    amount * factor,
                    transfer.reason,
                    event.occurred_at,
                    event.version,
                    event.type,
                )
            )
    return lines


def _heads_for(
    conn: Conn, caches: ProjectionCaches, events: list[RecordedEvent], types: frozenset[str]
) -> dict[str, TableHead]:
    wanted = [event for event in events if event.type in types or "transfers" in event.data]
    tables = {event.stream_id for event in wanted}
    return table_heads(conn, caches, tables, {(event.stream_id, event.deal_no) for event in wanted}) if tables else {}


def apply_ledger(conn: Conn, events: list[RecordedEvent], caches: ProjectionCaches) -> None:
    heads = _heads_for(conn, caches, events, frozenset())
    rows = []
    for event in events:
        head = heads.get(event.stream_id)
        if head is None:
            continue
        for line in ledger_lines(event, head):
            rows.append(
                {
                    "global_position": line.global_position,
                    "line_no": line.line_no,
                    "table_id": line.table_id,
                    "game": line.game,
                    "deal_no": line.deal_no,
                    "account": line.account,
                    "player_id": line.player_id,
                    "amount": line.amount,
                    "unit": line.unit,
                    "amount_cents": line.amount_cents,
                    "reason": line.reason,
                    "occurred_at": line.occurred_at.isoformat(),
                    "version": line.version,
                    "event_type": line.event_type,
                }
            )
    if rows:
        conn.execute(_INSERT_LINES, (dumps_text(rows),))


def moves_no_money(events: list[RecordedEvent]) -> bool:
    """Whether no event of the batch carries transfers (the ledger's lines, and the deal settlements' too)."""
    return not any("transfers" in event.data for event in events)


def settles_nothing(events: list[RecordedEvent]) -> bool:
    """Whether the batch leaves the settlements as they are: no transfers, nobody seated, no deal ended."""
    return moves_no_money(events) and not any(event.type in (PLAYER_SEATED, DEAL_ENDED) for event in events)


def _money_unit(game: str) -> str:
    try:
        return game_named(game).money_unit
    except Exception:
        return CENTS


def apply_settlements(conn: Conn, events: list[RecordedEvent], caches: ProjectionCaches) -> None:
    heads = _heads_for(conn, caches, events, frozenset({PLAYER_SEATED, DEAL_ENDED}))
    # (player, table) -> [net_cents, net_amount, deals]
    deltas: dict[tuple[str, str], list[int]] = {}
    for event in events:
        head = heads.get(event.stream_id)
        if head is None:
            continue
        if event.type == PLAYER_SEATED:
            deltas.setdefault((str(event.data["player_id"]), head.table_id), [0, 0, 0])
        if event.type == DEAL_ENDED:
            for player in head.players_in(event.deal_no):
                if player is not None:
                    deltas.setdefault((player, head.table_id), [0, 0, 0])[2] += 1
        unit = _money_unit(head.game)
        for line in ledger_lines(event, head):
            if line.player_id is None:
                continue
            delta = deltas.setdefault((line.player_id, head.table_id), [0, 0, 0])
            delta[0] += line.amount_cents
            if line.unit == unit:
                delta[1] += line.amount
    rows = []
    for (player, table_id), (net_cents, net_amount, deals) in sorted(deltas.items()):
        game = heads[table_id].game
        rows.append(
            {
                "player_id": player,
                "table_id": table_id,
                "game": game,
                "net_cents": net_cents,
                "net_amount": net_amount,
                "unit": _money_unit(game),
                "deals": deals,
            }
        )
    if rows:
        conn.execute(_ADD_SETTLEMENTS, (dumps_text(rows),))


LEDGER = Projection(
    "ledger",
    (
        ModelTable(
            "ledger_lines",
            "global_position, line_no, table_id, game, deal_no, account, player_id, amount, unit, amount_cents, "
            "reason, occurred_at, version, event_type",
            "global_position, line_no",
        ),
    ),
    apply_ledger,
    idle_for=moves_no_money,
)
SETTLEMENTS = Projection(
    "settlements",
    (
        ModelTable(
            "settlements", "player_id, table_id, game, net_cents, net_amount, unit, deals", "player_id, table_id"
        ),
    ),
    apply_settlements,
    idle_for=settles_nothing,
)
