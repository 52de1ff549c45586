"""The settlement report as it was computed before migration 009: from the event log, by joining the log with
itself on type = 'deal_ended' (no index: every call read the whole log). Kept as the oracle of
tests/integration/test_audit_reports.py, which checks that the report from the deal_settlements read model
gives exactly the same answer. (A module of helpers, not tests.)

Since migration 011 the report also holds the pool refunds of closed tables (`table_closed` events with
transfers, from `pool` to `player:<id>`), dated by the closing and not counted as deals; this oracle reads them
from the log too (`services.app.audit.reports` says how the report shows them): a table with its closing in the
period has the pool's refund on its `pool` row and a `player:<id>` row per player refunded, and with a player
filter, a table counts when the player sat there and it has deals in the period, or its closing in the period
refunded the player.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from domain.events import JSON, Event
from domain.games import game_named
from domain.ledger import PLAYER_PREFIX, POOL_ACCOUNT, Transfer, player_account
from domain.table import DEAL_ENDED, PLAYER_SEATED, TABLE_CLOSED, TABLE_OPENED, deal_transfers
from infra.db import Conn
from infra.players import players_by_id
from services.app.audit.reports import PeriodBound, period_end, period_start, shown_names


@dataclass(frozen=True, slots=True)
class TableInfo:
    table_id: str
    game: str
    options: Mapping[str, JSON]
    players: dict[int, str]  # seat -> player id
    seats: int

    def seat_of(self, player_id: str) -> int | None:
        return next((seat for seat, pid in self.players.items() if pid == player_id), None)

    @property
    def unit(self) -> str:
        return game_named(self.game).money_unit

    def to_cents(self, amount: int) -> int:
        if self.unit == "cents":
            return amount
        return amount * int(self.options.get("chip_value_cents", 1))

    def player_of(self, account: str) -> str | None:
        if account.startswith("seat:"):
            return self.players.get(int(account.removeprefix("seat:")))
        if account.startswith(PLAYER_PREFIX):
            return account.removeprefix(PLAYER_PREFIX)
        return None


def table_infos(conn: Conn, table_ids: list[str]) -> dict[str, TableInfo]:
    """Game, options and seated players of each table, from its opening and seating events."""
    rows = conn.execute(
        """SELECT stream_id, type, data FROM events
           WHERE stream_id = ANY(%s) AND type IN (%s, %s) ORDER BY stream_id, version""",
        (table_ids, TABLE_OPENED, PLAYER_SEATED),
    ).fetchall()
    infos: dict[str, TableInfo] = {}
    for row in rows:
        tid, data = str(row["stream_id"]), row["data"]
        if row["type"] == TABLE_OPENED:
            infos[tid] = TableInfo(tid, str(data["game"]), dict(data["options"]), {}, int(data["seats"]))
        elif tid in infos:
            infos[tid].players[int(data["seat"])] = str(data["player_id"])
    return infos


# Ledger -------------------------------------------------------------------------


def settlement_from_the_log(
    conn: Conn,
    date_from: PeriodBound,
    date_to: PeriodBound,
    player_id: str | None,
    table_id: str | None,
    show_only_player: bool,
) -> dict[str, JSON]:
    """Net per (player, table) over the period; see the module doc. Access is the caller's business.

    With `player_id`, only tables where that player sat and that have deals in the period count, and those
    whose closing in the period refunded the player; with `show_only_player`, only that player's rows are shown
    (`balanced` still covers every account of the tables in the report).
    """
    start, end = period_start(date_from), period_end(date_to)
    if start is not None and end is not None and end <= start:
        raise ValueError(f"the period from {start.isoformat()} to {end.isoformat()} is empty")
    closings = conn.execute(
        """SELECT stream_id, type, data -> 'transfers' AS transfers FROM events
           WHERE type = %(closed)s AND data -> 'transfers' IS NOT NULL
             AND (%(start)s::timestamptz IS NULL OR occurred_at >= %(start)s::timestamptz)
             AND (%(end)s::timestamptz IS NULL OR occurred_at < %(end)s::timestamptz)
             AND (%(table)s::text IS NULL OR stream_id = %(table)s::text)
           ORDER BY stream_id, version""",
        {"closed": TABLE_CLOSED, "start": start, "end": end, "table": table_id},
    ).fetchall()
    refunded = sorted(
        {
            str(row["stream_id"])
            for row in closings
            if player_id is not None
            and any(t.payee == player_account(player_id) for t in _transfers(row["type"], row["transfers"]))
        }
    )
    rows = conn.execute(
        """SELECT d.stream_id, d.deal_no, d.data -> 'result' -> 'net' AS result_net,
                  e.type, e.data -> 'transfers' AS transfers
           FROM events d
           JOIN events e ON e.stream_id = d.stream_id AND e.deal_no = d.deal_no AND e.version <= d.version
                        AND e.data -> 'transfers' IS NOT NULL
           WHERE d.type = %(ended)s
             AND (%(start)s::timestamptz IS NULL OR d.occurred_at >= %(start)s::timestamptz)
             AND (%(end)s::timestamptz IS NULL OR d.occurred_at < %(end)s::timestamptz)
             AND (%(table)s::text IS NULL OR d.stream_id = %(table)s::text)
             AND (%(player)s::text IS NULL OR d.stream_id = ANY(%(refunded)s::text[]) OR d.stream_id IN (
                    SELECT stream_id FROM events WHERE type = %(seated)s AND data ->> 'player_id' = %(player)s::text))
           ORDER BY d.stream_id, d.deal_no, e.version""",
        {
            "ended": DEAL_ENDED,
            "start": start,
            "end": end,
            "table": table_id,
            "player": player_id,
            "seated": PLAYER_SEATED,
            "refunded": refunded,
        },
    ).fetchall()
    if player_id is not None:  # a closing counts with the table's deals in the period, or for its own refund
        with_deals = {str(r["stream_id"]) for r in rows}
        closings = [c for c in closings if str(c["stream_id"]) in with_deals or str(c["stream_id"]) in refunded]
    infos = table_infos(conn, sorted({str(r["stream_id"]) for r in rows} | {str(c["stream_id"]) for c in closings}))
    nets: dict[tuple[str, str], int] = {}  # (table, account) -> amount
    deal_nets: dict[tuple[str, int], dict[str, int]] = {}
    stored_nets: dict[tuple[str, int], list[int]] = {}
    for row in rows:
        tid, deal_no = str(row["stream_id"]), int(row["deal_no"])
        per_deal = deal_nets.setdefault((tid, deal_no), {})
        stored_nets[(tid, deal_no)] = [int(n) for n in row["result_net"] or []]
        for transfer in deal_transfers(Event(str(row["type"]), {"transfers": row["transfers"]})):
            for account, amount in transfer.entries():
                nets[(tid, account)] = nets.get((tid, account), 0) + amount
                per_deal[account] = per_deal.get(account, 0) + amount
    for closing in closings:  # after the last deal_ended, and no deal: its own entries, in no deal's check
        tid = str(closing["stream_id"])
        for transfer in _transfers(closing["type"], closing["transfers"]):
            for account, amount in transfer.entries():
                nets[(tid, account)] = nets.get((tid, account), 0) + amount
    discrepancies = _discrepancies(deal_nets, stored_nets)
    deals_by_table: dict[str, set[int]] = {}
    for tid, deal_no in deal_nets:
        deals_by_table.setdefault(tid, set()).add(deal_no)
    names = _names(conn, infos, nets)
    for tid in deals_by_table:  # every seat (and the pool) of a table that settled deals, at zero if untouched
        info = infos[tid]
        accounts = [f"seat:{seat}" for seat in range(info.seats)]
        for account in accounts + ([POOL_ACCOUNT] if info.game == "cha-kau-tsz" else []):
            nets.setdefault((tid, account), 0)
    shown = shown_names(names)
    report_rows: list[dict[str, JSON]] = []
    for (tid, account), amount in sorted(nets.items(), key=lambda item: (item[0][0], _account_order(item[0][1]))):
        info = infos[tid]
        pid = info.player_of(account)
        if show_only_player and pid != player_id:
            continue
        report_rows.append(
            {
                "player_id": pid,
                "name": names.get(pid) if pid else None,
                "shown_as": shown.get(pid) if pid else account,
                "account": account,
                "table_id": tid,
                "game": info.game,
                "unit": info.unit,
                "net_amount": amount,
                "net_cents": info.to_cents(amount),
                "currency": info.options.get("currency"),
                "deals": len(deals_by_table.get(tid, ())),
            }
        )
    all_cents = sum(infos[tid].to_cents(amount) for (tid, _), amount in nets.items())
    return {
        "period": {
            "from": None if start is None else start.isoformat(),
            "to": None if end is None else end.isoformat(),
            "bounds": "from inclusive, to exclusive; deals are dated by their deal_ended event, a closing's pool "
            "refund by its table_closed event",
        },
        "player_id": player_id,
        "table_id": table_id,
        "currency_unit": "cents",
        "rows": report_rows,
        "players": _player_totals(report_rows),
        "tables": _table_totals(report_rows, infos, deals_by_table),
        "total_cents": sum(int(r["net_cents"]) for r in report_rows),
        "deals": sum(len(d) for d in deals_by_table.values()),
        "balance_cents": all_cents,
        "balanced": all_cents == 0 and all(sum(v for (t, _), v in nets.items() if t == tid) == 0 for tid in infos),
        "balanced_scope": f"every account (seats and the {POOL_ACCOUNT}) of the tables in this report",
        "consistent_with_deal_results": not discrepancies,
        "discrepancies": discrepancies,
    }


def _transfers(event_type: object, transfers: object) -> list[Transfer]:
    return deal_transfers(Event(str(event_type), {"transfers": transfers}))


def _account_order(account: str) -> tuple[int, int, str]:
    """Seats in seat order, then the pool, then the players refunded by a closing (by account)."""
    if account.startswith("seat:"):
        return (0, int(account.removeprefix("seat:")), "")
    if account == POOL_ACCOUNT:
        return (1, 0, "")
    return (2, 0, account)


def _discrepancies(
    deal_nets: Mapping[tuple[str, int], Mapping[str, int]], stored: Mapping[tuple[str, int], list[int]]
) -> list[dict[str, JSON]]:
    """Deals whose transfers do not add up to their stored result.net."""
    found: list[dict[str, JSON]] = []
    for (tid, deal_no), per_account in sorted(deal_nets.items()):
        net = stored.get((tid, deal_no), [])
        from_transfers = [per_account.get(f"seat:{seat}", 0) for seat in range(len(net))]
        if from_transfers != net:
            found.append({"table_id": tid, "deal_no": deal_no, "result_net": net, "transfers_net": from_transfers})
    return found


def _names(conn: Conn, infos: Mapping[str, TableInfo], nets: Mapping[tuple[str, str], int]) -> dict[str, str]:
    seated = {pid for info in infos.values() for pid in info.players.values()}
    refunded = {account.removeprefix(PLAYER_PREFIX) for _, account in nets if account.startswith(PLAYER_PREFIX)}
    ids = sorted(seated | refunded)
    return {pid: player.name for pid, player in players_by_id(conn, ids).items()} if ids else {}


def _player_totals(rows: list[dict[str, JSON]]) -> list[dict[str, JSON]]:
    totals: dict[str, dict[str, JSON]] = {}
    for row in rows:
        if row["player_id"] is None:
            continue
        entry = totals.setdefault(
            str(row["player_id"]), {"player_id": row["player_id"], "name": row["name"], "net_cents": 0, "tables": 0}
        )
        entry["net_cents"] = int(entry["net_cents"]) + int(row["net_cents"])
    for pid, entry in totals.items():  # a refunded player may have two rows at a table: a seat's and their own
        entry["tables"] = len({str(row["table_id"]) for row in rows if row["player_id"] == pid})
    return [totals[p] for p in sorted(totals)]


def _table_totals(
    rows: list[dict[str, JSON]], infos: Mapping[str, TableInfo], deals: Mapping[str, set[int]]
) -> list[dict[str, JSON]]:
    shown: dict[str, int] = {}
    for row in rows:
        shown[str(row["table_id"])] = shown.get(str(row["table_id"]), 0) + int(row["net_cents"])
    return [
        {"table_id": tid, "game": infos[tid].game, "deals": len(deals.get(tid, ())), "net_cents_shown": cents}
        for tid, cents in sorted(shown.items())
    ]
