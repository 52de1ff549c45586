"""Money reports, read from the projections: a table's double-entry ledger, and settlements.

Both come from the transfers the events carry (`domain.table.deal_transfers`:
the `deal_ended` settlement, in Cholek Tiga in-play `bonus_paid` events, and
the pool refund of the `table_closed` event that closes an abandoned Cha Kau
Tsz table). Each transfer is two lines: the payer debited (negative), the payee
credited (positive). Accounts are `seat:N` (the player seated there in the
deal), `pool` (the Cha Kau Tsz pool) and `player:<id>` (a player by id, who
need not hold a seat: where a closing refunds the pool). Reports read the read
models the projection workers build (`ledger_lines`; `deal_settlements`, one
row per deal and account, and `closing_refunds`, one row per account a
closing's refund touched), so they are as fresh as those (normally
milliseconds behind the log), and what a request costs is bounded by what it
asks for, never by the size of the log: every query goes through an index on
the request's filters, and every answer is a page.

Amounts are in the game's unit (Cholek Tiga cents, Cha Kau Tsz chip points);
`*_cents` figures convert points at the table option `chip_value_cents`.

Ledger: a page of at most `LEDGER_PAGE_MAX` lines in log order, after a cursor
(`<global_position>:<line_no>` of the last line read), with the totals and the
balance of the whole table.

Settlement counts finished deals, each dated by its `deal_ended` event
(in-play bonuses of a deal go with the deal), and closings' pool refunds, each
dated by its `table_closed` event. A report over a period holds, for each table
with deals or a closing in it, one row per account of the table the period
moved money for, which is what the ledger holds for those accounts: every seat
and the pool of a table whose deals it counts (at zero when untouched), the
sum of `result.net` of the deals that ended in it; and, when the table's
closing falls in it, the pool's refund (on the `pool` row) and one row per
player refunded, account `player:<id>` with that player's id. A refund is
kept on its own row, not added to a seat's: money follows the player, not the
seat, a refunded player may hold no seat any more (or have held several), and a
row is always one ledger account, so a closed table's rows over all time equal
its ledger totals. A player's figure is the sum of their rows (`players`). A
closing is not a deal: `deals` counts `deal_ended` events only, and the check
of each deal's transfers against its `result.net` (`discrepancies`) is the
deals' alone. Every table's rows still sum to zero (the refund leaves the pool
for the players), so `balanced` holds. Periods are half-open `[from, to)`; a
bare date as `to` means the end of that day (UTC). A page holds at most
`SETTLEMENT_PAGE_MAX` tables, in table id order after a cursor (the last table
id of the page before); its figures cover its tables. A table has at most
`MAX_ACCOUNTS_PER_TABLE` rows for its deals (its seats and the pool) and, in a
period with its closing, one more per player refunded (the players who paid
into the pool since it was last won: at most one per seat, unless seats
changed hands while the pool was carried over).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from domain.events import JSON
from domain.games import GAMES, game_named
from domain.ledger import PLAYER_PREFIX, POOL_ACCOUNT
from domain.table import TABLE_OPENED
from infra.db import Conn
from infra.players import players_by_id
from infra.sql import ledger_lines, settlements
from infra.sql.deal_events import opening_and_seating_rows
from infra.sql.settlements import SettlementFilter as SettlementQuery

PeriodBound = date | datetime | str | None


@dataclass(frozen=True, slots=True)
class TableInfo:
    table_id: str
    game: str
    options: Mapping[str, JSON]
    players: dict[int, str]  # seat -> player id
    seats: int
    ever_seated: set[str] = field(default_factory=set)  # every player who sat at the table, leavers included

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
    rows = opening_and_seating_rows(conn, table_ids)
    infos: dict[str, TableInfo] = {}
    for row in rows:
        tid, data = str(row["stream_id"]), row["data"]
        if row["type"] == TABLE_OPENED:
            infos[tid] = TableInfo(tid, str(data["game"]), dict(data["options"]), {}, int(data["seats"]))
        elif tid in infos:
            infos[tid].players[int(data["seat"])] = str(data["player_id"])
            infos[tid].ever_seated.add(str(data["player_id"]))
    return infos


# Ledger -------------------------------------------------------------------------

LEDGER_PAGE_DEFAULT = 200
LEDGER_PAGE_MAX = 1000


def ledger_cursor(global_position: int, line_no: int) -> str:
    """The cursor after a ledger line: "<global_position>:<line_no>" (line_no as shown, from 1)."""
    return f"{global_position}:{line_no}"


def parse_ledger_cursor(text: str) -> tuple[int, int]:
    """(global_position, line_no) of a cursor made by `ledger_cursor`; ValueError for anything else."""
    position, sep, line = text.partition(":")
    if not (sep and position.isascii() and position.isdigit() and line.isascii() and line.isdigit()):
        raise ValueError(f"{text!r} is not a ledger cursor (<global_position>:<line_no>, as next_after gave it)")
    if len(position) > 19 or len(line) > 10 or int(position) >= 2**63 or not 1 <= int(line) < 2**31:
        raise ValueError(f"{text!r} is out of range for a ledger cursor")
    return int(position), int(line)


def ledger_page(
    conn: Conn, info: TableInfo, after: tuple[int, int] | None = None, limit: int = LEDGER_PAGE_DEFAULT
) -> dict[str, JSON]:
    """A page of the table's ledger lines (from the ledger projection), in log order after the cursor `after`,
    with the totals of the whole table (aggregated by PostgreSQL through the (table_id, global_position) index,
    so a page still says whether the table balances). `next_after` is the cursor of the page's last line when
    more follow, else null."""
    if not 1 <= limit <= LEDGER_PAGE_MAX:
        raise ValueError(f"limit must be 1 to {LEDGER_PAGE_MAX}, not {limit}")
    if after is None:
        rows = ledger_lines.first_lines(conn, info.table_id, limit + 1)
    else:
        position, line_no = after
        rows = ledger_lines.lines_after(conn, info.table_id, position, line_no - 1, limit + 1)
    lines: list[dict[str, JSON]] = [
        {
            "global_position": int(row["global_position"]),
            "line_no": int(row["line_no"]) + 1,  # stored from 0, shown from 1 (as the ledger always was)
            "version": int(row["version"]),
            "event_type": str(row["event_type"]),
            "deal_no": int(row["deal_no"]),
            "account": str(row["account"]),
            "player_id": row["player_id"],
            "amount": int(row["amount"]),
            "unit": str(row["unit"]),
            "amount_cents": int(row["amount_cents"]),
            "reason": str(row["reason"]),
            "occurred_at": row["occurred_at"].isoformat(),
        }
        for row in rows[:limit]
    ]
    totals = ledger_lines.account_totals(conn, info.table_id)
    by_account = sorted(totals, key=lambda row: str(row["account"]))
    sum_amount = sum(int(row["amount"]) for row in totals)
    sum_cents = sum(int(row["amount_cents"]) for row in totals)
    last = lines[-1] if lines else None
    return {
        "table_id": info.table_id,
        "game": info.game,
        "unit": info.unit,
        "lines": lines,
        "totals": [
            {
                "account": str(row["account"]),
                "player_id": row["player_id"],
                "amount": int(row["amount"]),
                "amount_cents": int(row["amount_cents"]),
            }
            for row in by_account
        ],
        "sum_amount": sum_amount,
        "sum_cents": sum_cents,
        "balanced": sum_amount == 0 and sum_cents == 0,
        "line_count": sum(int(row["lines"]) for row in totals),
        "next_after": ledger_cursor(int(last["global_position"]), int(last["line_no"]))
        if last is not None and len(rows) > limit
        else None,
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


# The columns a spreadsheet reads; new ones go at the end, so that a column's place never changes.
SETTLEMENT_COLUMNS = (
    "player_id",
    "name",
    "account",
    "table_id",
    "game",
    "unit",
    "net_amount",
    "net_cents",
    "deals",
    "currency",
    "shown_as",
)

# A page of the settlement report holds at most this many tables. A table's rows for its deals are its seats (at
# most 4) and a pool: at most 5 rows a table (1000 a page), whatever the period, the filter or the log's size. In
# a period with the table's closing, each player its pool refund went to has one row more (`player:<id>`): the
# players who paid into the pool since it was last won, at most one per seat unless seats changed hands while the
# pool was carried over (then one per player who paid meanwhile).
SETTLEMENT_PAGE_DEFAULT = 100
SETTLEMENT_PAGE_MAX = 200
MAX_ACCOUNTS_PER_TABLE = max(game.max_seats + game.has_pool for game in GAMES.values())


@dataclass(frozen=True, slots=True)
class TableSettlement:
    """One table's figures over the period: every account the period moved money for (the seats and the pool
    of a table with deals in it; the pool and each `player:<id>` refunded by its closing), the deals (a closing
    is none), the deals that disagree."""

    table_id: str
    game: str
    unit: str
    accounts: tuple[tuple[str, str | None, int, int], ...]  # (account, player, amount, amount_cents), seats first
    deals: int
    discrepancies: tuple[dict[str, JSON], ...]
    currency: str | None = None  # the money the cents are of, as the table's options name it


def settlement_query(
    date_from: PeriodBound, date_to: PeriodBound, player_id: str | None, table_id: str | None
) -> SettlementQuery:
    start, end = period_start(date_from), period_end(date_to)
    if start is not None and end is not None and end <= start:
        raise ValueError(f"the period from {start.isoformat()} to {end.isoformat()} is empty")
    return SettlementQuery(start, end, player_id, table_id)


def settled_tables(
    conn: Conn, query: SettlementQuery, after: str | None, limit: int
) -> tuple[list[TableSettlement], str | None]:
    """The tables (in table id order, after the table id `after`) that settled deals or were closed with a
    refund in the period, at most `limit` of them, and the cursor of the next page (None on the last).

    Read from the deal_settlements projection's two tables: with a player, the tables where the player has a
    row, through (player_id, settled_at) and (player_id, closed_at); with a table, through (table_id,
    settled_at) and closing_refunds' primary key; else through (settled_at) and (closed_at) or, in table id
    order, (table_id, settled_at) and the primary key; each side at most `limit` + 1 tables. Each table's
    figures are then summed by PostgreSQL over its rows of both in the period, its deals counted in
    deal_settlements alone, and only the deals that disagree with their result (none, unless the log was
    tampered with) come back whole, through a partial index.
    """
    if not 1 <= limit <= SETTLEMENT_PAGE_MAX:
        raise ValueError(f"limit must be 1 to {SETTLEMENT_PAGE_MAX}, not {limit}")
    found = settlements.settled_table_ids(conn, query, after, limit + 1)
    page = found[:limit]
    next_after = page[-1] if len(found) > limit else None
    if not page:
        return [], None
    accounts = settlements.account_sums(conn, query, page)
    deal_counts = settlements.deal_counts(conn, query, page)
    disagreeing = settlements.disagreeing_rows(conn, query, page)
    by_table: dict[str, list[dict[str, Any]]] = {}
    for row in accounts:
        by_table.setdefault(str(row["table_id"]), []).append(row)
    wrong: dict[tuple[str, int], tuple[list[int], dict[str, int]]] = {}
    for row in disagreeing:
        key = (str(row["table_id"]), int(row["deal_no"]))
        wrong.setdefault(key, ([int(n) for n in row["result_net"] or []], {}))[1][str(row["account"])] = int(
            row["amount"]
        )
    tables = []
    options = {tid: info.options for tid, info in table_infos(conn, list(page)).items()}
    for table_id in page:
        rows = sorted(by_table[table_id], key=lambda row: _account_order(str(row["account"])))
        currency = options.get(table_id, {}).get("currency")
        tables.append(
            TableSettlement(
                table_id,
                str(rows[0]["game"]),
                str(rows[0]["unit"]),
                tuple((str(r["account"]), r["player_id"], int(r["amount"]), int(r["amount_cents"])) for r in rows),
                deal_counts.get(table_id, 0),  # a table with only its closing in the period: no deal
                tuple(
                    {
                        "table_id": tid,
                        "deal_no": deal_no,
                        "result_net": net,
                        "transfers_net": [amounts.get(f"seat:{seat}", 0) for seat in range(len(net))],
                    }
                    for (tid, deal_no), (net, amounts) in sorted(wrong.items())
                    if tid == table_id
                ),
                currency if isinstance(currency, str) else None,
            )
        )
    return tables, next_after


def settlement_report(
    conn: Conn,
    date_from: PeriodBound,
    date_to: PeriodBound,
    player_id: str | None,
    table_id: str | None,
    show_only_player: bool,
    after: str | None = None,
    limit: int = SETTLEMENT_PAGE_DEFAULT,
) -> dict[str, JSON]:
    """A page of the net per (player, table) over the period: at most `limit` tables (in table id order, after
    the table id `after`); `next_after` is the cursor of the next page, null on the last. See the module doc.
    Access is the caller's business.

    With `player_id`, only tables where that player has a row count (a seat in a deal that ended in the period,
    or a refund of a closing in it); with `show_only_player`, only that player's rows are shown (`balanced`
    still covers every account of the tables in the report). Every figure of a page (totals, balance,
    discrepancies) covers the tables of the page.
    """
    query = settlement_query(date_from, date_to, player_id, table_id)
    tables, next_after = settled_tables(conn, query, after, limit)
    return build_settlement(conn, query, tables, show_only_player, next_after)


def settlement_report_whole(
    conn: Conn,
    date_from: PeriodBound,
    date_to: PeriodBound,
    player_id: str | None,
    table_id: str | None,
    show_only_player: bool,
) -> dict[str, JSON]:
    """The whole report as one (every page; for the offline command): its size grows with the tables."""
    query = settlement_query(date_from, date_to, player_id, table_id)
    tables: list[TableSettlement] = []
    after: str | None = None
    while True:
        page, after = settled_tables(conn, query, after, SETTLEMENT_PAGE_MAX)
        tables.extend(page)
        if after is None:
            return build_settlement(conn, query, tables, show_only_player, None)


def build_settlement(
    conn: Conn,
    query: SettlementQuery,
    tables: list[TableSettlement],
    show_only_player: bool,
    next_after: str | None,
) -> dict[str, JSON]:
    """The report of these tables' figures."""
    ids = sorted({str(player) for table in tables for _, player, _, _ in table.accounts if player is not None})
    names = {pid: player.name for pid, player in players_by_id(conn, ids).items()} if ids else {}
    shown = shown_names(names)
    report_rows: list[dict[str, JSON]] = []
    for table in tables:
        for account, pid, amount, cents in table.accounts:
            if show_only_player and pid != query.player_id:
                continue
            report_rows.append(
                {
                    "player_id": pid,
                    "name": names.get(pid) if pid else None,
                    "shown_as": shown.get(pid) if pid else account,
                    "account": account,
                    "table_id": table.table_id,
                    "game": table.game,
                    "unit": table.unit,
                    "net_amount": amount,
                    "net_cents": cents,
                    "currency": table.currency,
                    "deals": table.deals,
                }
            )
    all_cents = sum(cents for table in tables for _, _, _, cents in table.accounts)
    start, end = query.start, query.end
    return {
        "period": {
            "from": None if start is None else start.isoformat(),
            "to": None if end is None else end.isoformat(),
            "bounds": "from inclusive, to exclusive; deals are dated by their deal_ended event, a closing's pool "
            "refund by its table_closed event",
        },
        "player_id": query.player_id,
        "table_id": query.table_id,
        "currency_unit": "cents",
        "rows": report_rows,
        "players": _player_totals(report_rows),
        "tables": _table_totals(report_rows, tables),
        "total_cents": sum(int(r["net_cents"]) for r in report_rows),
        "deals": sum(table.deals for table in tables),
        "balance_cents": all_cents,
        "balanced": all_cents == 0 and all(sum(amount for _, _, amount, _ in table.accounts) == 0 for table in tables),
        "balanced_scope": f"every account (seats and the {POOL_ACCOUNT}) of the tables in this report",
        "consistent_with_deal_results": not any(table.discrepancies for table in tables),
        "discrepancies": [d for table in tables for d in table.discrepancies],
        "next_after": next_after,
    }


def _account_order(account: str) -> tuple[int, int, str]:
    """Seats in seat order, then the pool, then any other account (the `player:<id>` of refunds) by name."""
    if account.startswith("seat:"):
        return (0, int(account.removeprefix("seat:")), "")
    if account == POOL_ACCOUNT:
        return (1, 0, "")
    return (2, 0, account)


def _player_totals(rows: list[dict[str, JSON]]) -> list[dict[str, JSON]]:
    """Each player's net over their rows, and the tables they have rows at (a refunded player may have two rows
    at a table: a seat's and their `player:<id>`)."""
    totals: dict[str, dict[str, JSON]] = {}
    tables: dict[str, set[str]] = {}
    for row in rows:
        if row["player_id"] is None:
            continue
        entry = totals.setdefault(
            str(row["player_id"]), {"player_id": row["player_id"], "name": row["name"], "net_cents": 0, "tables": 0}
        )
        entry["net_cents"] = int(entry["net_cents"]) + int(row["net_cents"])
        tables.setdefault(str(row["player_id"]), set()).add(str(row["table_id"]))
        entry["tables"] = len(tables[str(row["player_id"])])
    return [totals[p] for p in sorted(totals)]


def _table_totals(rows: list[dict[str, JSON]], tables: list[TableSettlement]) -> list[dict[str, JSON]]:
    shown: dict[str, int] = {}
    for row in rows:
        shown[str(row["table_id"])] = shown.get(str(row["table_id"]), 0) + int(row["net_cents"])
    known = {table.table_id: table for table in tables}
    return [
        {"table_id": tid, "game": known[tid].game, "deals": known[tid].deals, "net_cents_shown": cents}
        for tid, cents in sorted(shown.items())
    ]


def shown_names(names: Mapping[str, str]) -> dict[str, str]:
    """player id -> how a report shows the player: its name, with the first 8 digits of its id when another
    player of the report has the same name (two players named alice are told apart at a glance)."""
    counts: dict[str, int] = {}
    for name in names.values():
        counts[name] = counts.get(name, 0) + 1
    return {pid: name if counts[name] == 1 else f"{name} ({pid[:8]})" for pid, name in names.items()}


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
