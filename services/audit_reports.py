"""Money reports computed from the event log: a table's double-entry ledger, and settlements.

Both read the transfers the events carry (`domain.table.deal_transfers`: the
`deal_ended` settlement and, in Cholek Tiga, in-play `bonus_paid` events), so
they are exact whatever state the projections are in. Each transfer is two
lines: the payer debited (negative), the payee credited (positive). Accounts
are `seat:N` (the player seated there) and `pool` (the Cha Kau Tsz pool).

Amounts are in the game's unit (Cholek Tiga cents, Cha Kau Tsz chip points);
`*_cents` figures convert points at the table option `chip_value_cents`.

Settlement counts finished deals only, each dated by its `deal_ended` event
(in-play bonuses of a deal go with the deal), so a report over a period equals
the sum of `result.net` of the deals that ended in it. Periods are half-open
`[from, to)`; a bare date as `to` means the end of that day (UTC).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from domain.events import JSON, Event
from domain.games import game_named
from domain.ledger import POOL_ACCOUNT
from domain.table import DEAL_ENDED, PLAYER_SEATED, TABLE_OPENED, deal_transfers
from infra.event_store import Conn
from infra.players import players_by_id

PeriodBound = date | datetime | str | None


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


def ledger_lines(conn: Conn, info: TableInfo) -> list[dict[str, JSON]]:
    """Two lines per transfer of the table, in log order."""
    rows = conn.execute(
        """SELECT global_position, version, type, deal_no, data, occurred_at FROM events
           WHERE stream_id = %s AND data -> 'transfers' IS NOT NULL ORDER BY version""",
        (info.table_id,),
    ).fetchall()
    lines: list[dict[str, JSON]] = []
    for row in rows:
        line_no = 0
        for transfer in deal_transfers(Event(str(row["type"]), row["data"])):
            for account, amount in transfer.entries():
                line_no += 1
                lines.append(
                    {
                        "global_position": int(row["global_position"]),
                        "line_no": line_no,
                        "version": int(row["version"]),
                        "event_type": str(row["type"]),
                        "deal_no": int(row["deal_no"]),
                        "account": account,
                        "player_id": info.player_of(account),
                        "amount": amount,
                        "unit": info.unit,
                        "amount_cents": info.to_cents(amount),
                        "reason": transfer.reason,
                        "occurred_at": row["occurred_at"].isoformat(),
                    }
                )
    return lines


def ledger_report(conn: Conn, info: TableInfo) -> dict[str, JSON]:
    lines = ledger_lines(conn, info)
    totals: dict[str, dict[str, JSON]] = {}
    for line in lines:
        account = str(line["account"])
        entry = totals.setdefault(
            account, {"account": account, "player_id": line["player_id"], "amount": 0, "amount_cents": 0}
        )
        entry["amount"] = int(entry["amount"]) + int(line["amount"])
        entry["amount_cents"] = int(entry["amount_cents"]) + int(line["amount_cents"])
    sum_amount = sum(int(line["amount"]) for line in lines)
    sum_cents = sum(int(line["amount_cents"]) for line in lines)
    return {
        "table_id": info.table_id,
        "game": info.game,
        "unit": info.unit,
        "lines": lines,
        "totals": [totals[a] for a in sorted(totals)],
        "sum_amount": sum_amount,
        "sum_cents": sum_cents,
        "balanced": sum_amount == 0 and sum_cents == 0,
    }


# Settlement -----------------------------------------------------------------------


def period_start(bound: PeriodBound) -> datetime | None:
    return _moment(bound, end=False)


def period_end(bound: PeriodBound) -> datetime | None:
    return _moment(bound, end=True)


def _moment(bound: PeriodBound, end: bool) -> datetime | None:
    if bound is None or bound == "":
        return None
    if isinstance(bound, str):
        text = bound.strip()
        try:
            bound = datetime.fromisoformat(text) if "T" in text or " " in text else date.fromisoformat(text)
        except ValueError as error:
            raise ValueError(f"{text!r} is not an ISO date (YYYY-MM-DD) or date-time") from error
    if isinstance(bound, datetime):
        return bound if bound.tzinfo is not None else bound.replace(tzinfo=UTC)
    day = bound + timedelta(days=1) if end else bound
    return datetime.combine(day, time.min, tzinfo=UTC)


SETTLEMENT_COLUMNS = ("player_id", "name", "account", "table_id", "game", "unit", "net_amount", "net_cents", "deals")


def settlement_report(
    conn: Conn,
    date_from: PeriodBound,
    date_to: PeriodBound,
    player_id: str | None,
    table_id: str | None,
    show_only_player: bool,
) -> dict[str, JSON]:
    """Net per (player, table) over the period; see the module doc. Access is the caller's business.

    With `player_id`, only tables where that player sat count; with `show_only_player`, only that
    player's rows are shown (`balanced` still covers every account of the tables in the report).
    """
    start, end = period_start(date_from), period_end(date_to)
    if start is not None and end is not None and end <= start:
        raise ValueError(f"the period from {start.isoformat()} to {end.isoformat()} is empty")
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
             AND (%(player)s::text IS NULL OR d.stream_id IN (
                    SELECT stream_id FROM events WHERE type = %(seated)s AND data ->> 'player_id' = %(player)s::text))
           ORDER BY d.stream_id, d.deal_no, e.version""",
        {
            "ended": DEAL_ENDED,
            "start": start,
            "end": end,
            "table": table_id,
            "player": player_id,
            "seated": PLAYER_SEATED,
        },
    ).fetchall()
    infos = table_infos(conn, sorted({str(r["stream_id"]) for r in rows}))
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
    discrepancies = _discrepancies(deal_nets, stored_nets)
    deals_by_table: dict[str, set[int]] = {}
    for tid, deal_no in deal_nets:
        deals_by_table.setdefault(tid, set()).add(deal_no)
    names = _names(conn, infos)
    for tid in deals_by_table:  # every seat (and the pool) of a table that settled deals, at zero if untouched
        info = infos[tid]
        accounts = [f"seat:{seat}" for seat in range(info.seats)]
        for account in accounts + ([POOL_ACCOUNT] if info.game == "cha-kau-tsz" else []):
            nets.setdefault((tid, account), 0)
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
                "account": account,
                "table_id": tid,
                "game": info.game,
                "unit": info.unit,
                "net_amount": amount,
                "net_cents": info.to_cents(amount),
                "deals": len(deals_by_table[tid]),
            }
        )
    all_cents = sum(infos[tid].to_cents(amount) for (tid, _), amount in nets.items())
    return {
        "period": {
            "from": None if start is None else start.isoformat(),
            "to": None if end is None else end.isoformat(),
            "bounds": "from inclusive, to exclusive; deals are dated by their deal_ended event",
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


def _account_order(account: str) -> tuple[int, int]:
    """Seats in seat order, then the pool."""
    if account.startswith("seat:"):
        return (0, int(account.removeprefix("seat:")))
    return (1, 0)


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


def _names(conn: Conn, infos: Mapping[str, TableInfo]) -> dict[str, str]:
    ids = sorted({pid for info in infos.values() for pid in info.players.values()})
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
        entry["tables"] = int(entry["tables"]) + 1
    return [totals[p] for p in sorted(totals)]


def _table_totals(
    rows: list[dict[str, JSON]], infos: Mapping[str, TableInfo], deals: Mapping[str, set[int]]
) -> list[dict[str, JSON]]:
    shown: dict[str, int] = {}
    for row in rows:
        shown[str(row["table_id"])] = shown.get(str(row["table_id"]), 0) + int(row["net_cents"])
    return [
        {"table_id": tid, "game": infos[tid].game, "deals": len(deals[tid]), "net_cents_shown": cents}
        for tid, cents in sorted(shown.items())
    ]


def _cell(value: JSON) -> str:
    """A CSV cell; text that a spreadsheet would run as a formula is prefixed with a quote."""
    if value is None:
        return ""
    text = str(value)
    if isinstance(value, str) and text[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + text
    return text


def settlement_csv(report: Mapping[str, Any]) -> str:
    """The report's rows as CSV: a header, one row per player (or pool) per table, and a TOTAL row."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(SETTLEMENT_COLUMNS)
    for row in report["rows"]:
        writer.writerow([_cell(row[column]) for column in SETTLEMENT_COLUMNS])
    total = dict.fromkeys(SETTLEMENT_COLUMNS, "")
    total["player_id"] = "TOTAL"
    total["net_cents"] = str(report["total_cents"])
    total["deals"] = str(report["deals"])
    writer.writerow([total[column] for column in SETTLEMENT_COLUMNS])
    return out.getvalue()
