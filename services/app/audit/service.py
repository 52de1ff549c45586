"""History, audit and reports (API.md "History, audit, reports"), and the offline checks for the CLI.

`Audit(pool, store)` serves the API:

- `deal_record(caller, table_id, deal_no)`: commitment, client seeds, the
  server seed once the deal has ended (null before: it is secret), the result,
  and the service's re-check of its own record (`services.app.audit.verify`).
- `dispute_report(caller, table_id, deal_no)`: the deal step by step (one step
  per write transaction: who acted, their legal choices, each event redacted
  for the caller, the public state after it) with the verification;
  `dispute_html(report, generated_at)` renders it as a page.
- `table_ledger(caller, table_id, after, limit)`: a page of the double-entry
  ledger of the table, with the whole table's totals.
- `settlement_report(caller, player_id, table_id, date_from, date_to, after,
  limit)`: a page of the net per player per table over a period;
  `settlement_csv(report)` renders it as CSV.

Access: the deal record, dispute report and ledger of a table are for its
seated players and the auditor (others: Forbidden; unknown table or deal:
NotFound). A player's settlement report covers only themselves.

For the CLI (no HTTP, auditor rights): `verify_tables(pool, table_id, progress)`
for `cardledger verify [--table ID] [--all]` (print `summary.render()`, exit 1
unless `summary.ok`), and `settlement_report_offline(pool, date_from, date_to,
player_id, fmt, wait)` for `cardledger report settlement --from --to [--player]
--format csv|json --wait S` (print the returned text; its coverage says whether
every event committed when it started is in it).

The ledger and the settlement report read the projections (`ledger_lines`;
`deal_settlements` and `closing_refunds`, both built by the deal_settlements
projection), so they are as fresh as those and cost what their page asks for,
not what the log holds (`services.app.audit.reports`); the offline report first
catches the deal_settlements projection up with the log. Deal records and dispute
reports read the deal's own events.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, replace
from math import ceil
from typing import Any

from psycopg_pool import ConnectionPool

from domain import table as tables
from domain.events import JSON, Event
from domain.redaction import AUDITOR, Viewer
from domain.table import TableState
from infra.db import Conn, one_snapshot
from infra.event_store import EventStore, LogPosition, RecordedEvent, read_stream_in
from infra.players import players_by_id
from infra.projections import catch_up
from infra.projections.checkpoint import checkpoint_name, read_position
from infra.receipts import parse_receipts
from infra.sql.deal_events import first_version_of_write, one_deal_start_and_end_rows, timed_out_counts
from infra.sql.log_horizon import HorizonHolder, horizon_holder, horizon_passed, newest_writer, unread_through
from infra.table_loader import load_table
from services.app.answers import event_json
from services.app.audit.html import dispute_html
from services.app.audit.receipts import check_table_receipts, receipts_section
from services.app.audit.reports import (
    LEDGER_PAGE_DEFAULT,
    SETTLEMENT_PAGE_DEFAULT,
    PeriodBound,
    TableInfo,
    ledger_page,
    settlement_csv,
    settlement_report_whole,
    table_infos,
)
from services.app.audit.reports import settlement_report as compute_settlement
from services.app.audit.verify import DealBounds, deal_bounds, verify_deal
from services.app.audit.verify_tables import VerifySummary, verify_tables
from services.app.callers import Caller
from services.app.errors import Forbidden, NotFound, Unprocessable

__all__ = [
    "Audit",
    "LogCoverage",
    "OfflineReport",
    "VerifySummary",
    "dispute_html",
    "settlement_csv",
    "settlement_report_offline",
    "verify_tables",
]

# Static parts of the public view, shown once per report rather than after every event.
_STATIC_VIEW_KEYS = ("id", "game", "seats", "options", "players")


class Audit:
    def __init__(self, pool: ConnectionPool[Any], store: EventStore) -> None:
        self.pool = pool
        self.store = store

    # Deal record -------------------------------------------------------------------

    def deal_record(self, caller: Caller, table_id: str, deal_no: int) -> dict[str, JSON]:
        with self.pool.connection() as conn:
            info = _table_info(conn, table_id)
            bounds = _bounds(conn, table_id, deal_no)
            started, ended = _deal_ends(conn, table_id, bounds)
            _viewer(info, caller, started.data.get("players"))
            verdict = verify_deal(conn, table_id, bounds)
            timed_out = _timed_out_by_seat(conn, table_id, bounds, info.seats)
        return {
            "table_id": table_id,
            "game": info.game,
            "deal_no": deal_no,
            **_seed_fields(started, ended),
            # The deal's players by seat (deals begun before seats could change hands: as seated at the table).
            "players": started.data.get("players") or [info.players.get(seat) for seat in range(info.seats)],
            "timed_out_actions": timed_out,
            "verification": verdict.to_json(),
        }

    # Dispute report --------------------------------------------------------------------

    def dispute_with_receipts(
        self, caller: Caller, table_id: str, deal_no: int, receipts: list[Any]
    ) -> dict[str, JSON]:
        """The dispute report plus each submitted receipt checked against the listed keys and the log's hash at
        its version (authorized as the report; the receipts are read only then)."""
        report = self.dispute_report(caller, table_id, deal_no)
        parsed = parse_receipts(receipts)
        with self.pool.connection() as conn:
            viewer = _viewer(_table_info(conn, table_id), caller)
            _, checks = check_table_receipts(
                conn, table_id, parsed, withheld_deal=lambda deal: self._hashes_withheld(conn, table_id, deal, viewer)
            )
        return {**report, "receipts": receipts_section(checks)}

    def _hashes_withheld(self, conn: Conn, table_id: str, deal_no: int, viewer: Viewer) -> bool:
        """Whether `viewer` may not see the hashes of the table's deal `deal_no`: a running deal begun before hash
        version 2 (its private blocks hashed whole), for anyone but the auditor. Every answer that carries a hash
        of the log asks this, so what one answer withholds no other tells."""
        if viewer is AUDITOR or not self.store.deal_holds_v1_private(table_id, deal_no):
            return False
        kinds = {str(row["type"]) for row in one_deal_start_and_end_rows(conn, table_id, deal_no)}
        return tables.DEAL_STARTED in kinds and tables.DEAL_ENDED not in kinds

    def dispute_report(self, caller: Caller, table_id: str, deal_no: int) -> dict[str, JSON]:
        with self.pool.connection() as conn:
            info = _table_info(conn, table_id)
            bounds = _bounds(conn, table_id, deal_no)
            started, ended = _deal_ends(conn, table_id, bounds)
            viewer = _viewer(info, caller, started.data.get("players"))
            verdict = verify_deal(conn, table_id, bounds)
            first = _first_version_of_write(conn, table_id, bounds.started_version)
            events = read_stream_in(conn, table_id, first, bounds.ended_version)
            try:
                # The whole fold, the previous deal's game events included: the public state after each event
                # before deal_started (the write that dealt) shows the previous deal's table, as the table's view
                # showed it then. The verification above needs no game state of that deal and reads none.
                before: TableState | None = load_table(conn, table_id, first - 1)
                start_error = None
            except Exception as error:  # a tampered earlier event can make the state unbuildable
                before, start_error = None, repr(error)
            players = _named_players(conn, info, started.data.get("players"))
        over = ended is not None
        withheld = not over and viewer is not AUDITOR and self.store.deal_holds_v1_private(table_id, deal_no)
        steps = _steps(events, before, deal_no, viewer, over, start_error, withheld)
        return {
            "table_id": table_id,
            "game": info.game,
            "seats": info.seats,
            "options": dict(info.options),
            "players": players,
            "deal_no": deal_no,
            "viewer": "auditor" if viewer is AUDITOR else f"seat {viewer}",
            **_seed_fields(started, ended),
            "alternatives_note": None
            if over
            else "legal choices are shown once the deal has ended (before that they would reveal hands)",
            "steps": steps,
            "verification": verdict.to_json(),
        }

    # Ledger and settlement ------------------------------------------------------------------

    def table_ledger(
        self,
        caller: Caller,
        table_id: str,
        after: tuple[int, int] | None = None,
        limit: int = LEDGER_PAGE_DEFAULT,
    ) -> dict[str, JSON]:
        """A page of the table's ledger lines after the cursor `after` (global position, line number), with the
        totals of the whole table."""
        with self.pool.connection() as conn, one_snapshot(conn):
            info = _table_info(conn, table_id)
            if not caller.is_auditor and (caller.player_id or "") not in info.ever_seated:
                _viewer(info, caller)  # refused, naming why
            return ledger_page(conn, info, after, limit)

    def settlement_report(
        self,
        caller: Caller,
        player_id: str | None,
        table_id: str | None,
        date_from: PeriodBound,
        date_to: PeriodBound,
        after: str | None = None,
        limit: int = SETTLEMENT_PAGE_DEFAULT,
    ) -> dict[str, JSON]:
        """A page (at most `limit` tables, after the table id `after`) of the net per player and per table over
        `[date_from, date_to)` (a date as `date_to` includes that day)."""
        show_only_player = not caller.is_auditor
        if show_only_player:
            if player_id is not None and player_id != caller.player_id:
                raise Forbidden(
                    f"player {caller.player_id} may see only their own settlement, not player {player_id}'s",
                    "not_your_report",
                )
            player_id = caller.player_id
        with self.pool.connection() as conn:
            if table_id is not None:
                _table_info(conn, table_id)
            # Read before the model: the page covers the log at least this far (the workers keep moving it).
            position = read_position(conn, checkpoint_name("deal_settlements"))
            try:
                report = compute_settlement(
                    conn, date_from, date_to, player_id, table_id, show_only_player, after, limit
                )
            except ValueError as error:
                raise Unprocessable(str(error), "invalid_period") from error
        report["log_position"] = log_position_json(position)
        return report


def log_position_json(position: LogPosition) -> dict[str, JSON]:
    """A report's `log_position`: the deal_settlements read model holds every event up to it in commit-safe order."""
    return {"tx_id": str(position.tx_id), "global_position": position.global_position}


@dataclass(frozen=True)
class LogCoverage:
    """What an offline report read of the log: every event up to `position` in commit-safe order; `unread`
    committed events, written by transactions that began before the report did, it could not read yet (an older
    transaction of the server, `holder` when PostgreSQL tells, still ran when `waited` seconds were up)."""

    position: LogPosition
    unread: int
    holder: HorizonHolder | None
    waited: float

    @property
    def complete(self) -> bool:
        return self.unread == 0

    def to_json(self) -> dict[str, JSON]:
        holder = self.holder
        return {
            "complete": self.complete,
            "log_position": log_position_json(self.position),
            "unread_events": self.unread,
            "held_back_by": None if holder is None else asdict(holder),
        }

    def message(self) -> str:
        """Why the report is not complete, naming the values, and what to do."""
        events = "1 committed event is" if self.unread == 1 else f"{self.unread} committed events are"
        holder = self.holder
        if holder is None:
            held = "an older transaction of this PostgreSQL server was still running (this role may not see which)"
        else:
            who = f"pid {holder.pid}" if holder.pid is not None else holder.application_name
            where = ", ".join(
                str(part) for part in (who, holder.database and f"database {holder.database}", holder.state) if part
            )
            age = "" if holder.open_seconds is None else f" has been open for {holder.open_seconds:.0f} s"
            held = f"transaction {holder.xid} ({where}){age}"
        again = max(60, 2 * ceil(self.waited))
        return (
            f"report settlement: incomplete: {events} not readable yet after waiting {self.waited:g} s (the report "
            f"covers the log up to transaction {self.position.tx_id}, position {self.position.global_position}): "
            f"{held}; rerun when it ends or pass --wait {again}"
        )


@dataclass(frozen=True)
class OfflineReport:
    text: str
    coverage: LogCoverage


def settlement_report_offline(
    pool: ConnectionPool[Any],
    date_from: PeriodBound,
    date_to: PeriodBound,
    player_id: str | None,
    fmt: str,
    wait: float = 0.0,
) -> OfflineReport:
    """The settlement report with auditor rights, as text: `fmt` is "csv" or "json"; and what of the log it covers.

    For `cardledger report settlement --from --to [--player] --format csv|json --wait S`. Every event committed
    when it starts is in the report once each transaction that began before its newest one has ended (the log is
    read in commit-safe order): it waits for that at most `wait` seconds, catches the read model up with the log
    (as the projection workers would) and reports every page as one. The JSON says what it covers (`complete`,
    `log_position`, `unread_events`, `held_back_by`). Raises ValueError for an unknown format.
    """
    if fmt not in ("csv", "json"):
        raise ValueError(f"unknown report format {fmt!r}; use csv or json")
    started = time.monotonic()
    with pool.connection() as conn:
        newest = newest_writer(conn)
        deadline = started + wait
        pause = 0.01
        while newest is not None and not horizon_passed(conn, newest) and time.monotonic() < deadline:
            time.sleep(min(pause, max(0.0, deadline - time.monotonic())))
            pause = min(pause * 2, 0.5)
        catch_up(conn, "deal_settlements")
        # Read before the model: the report covers at least this far (a worker may move it further meanwhile).
        position = read_position(conn, checkpoint_name("deal_settlements"))
        unread = 0 if newest is None else unread_through(conn, position, newest)
        holder = horizon_holder(conn) if unread else None
        report = settlement_report_whole(conn, date_from, date_to, player_id, None, show_only_player=False)
    coverage = LogCoverage(position, unread, holder, round(min(time.monotonic() - started, wait), 1))
    report.update(coverage.to_json())
    text = settlement_csv(report) if fmt == "csv" else json.dumps(report, indent=2, ensure_ascii=False) + "\n"
    return OfflineReport(text, coverage)


# Helpers ---------------------------------------------------------------------------------


def _table_info(conn: Conn, table_id: str) -> TableInfo:
    """Game, options and players from the opening and seating events (no fold: a tampered deal must not hide them)."""
    info = table_infos(conn, [table_id]).get(table_id)
    if info is None:
        raise NotFound(f"table {table_id} does not exist", "table_not_found")
    return info


def _viewer(info: TableInfo, caller: Caller, deal_players: JSON = None) -> Viewer:
    """Who reads a deal: the auditor; a player of that deal, as the seat it held (`deal_players`, by seat, as
    its deal_started names them), whether or not it has left since; or a player seated at the table now."""
    if caller.is_auditor:
        return AUDITOR
    player = caller.player_id or ""
    if isinstance(deal_players, list) and player in deal_players:
        return deal_players.index(player)
    seat = info.seat_of(player)
    if seat is None:
        raise Forbidden(
            f"player {caller.player_id} has no seat at table {info.table_id} and did not play this deal; only its "
            "players and the auditor may read its deals and ledger",
            "not_seated",
        )
    return seat


def _named_players(conn: Conn, info: TableInfo, deal_players: JSON = None) -> list[JSON]:
    """By seat: {"id", "name"} (as the table view shows players), or None for an empty seat: the players of the
    deal when its deal_started names them (seats change hands between deals), else as seated at the table."""
    by_seat = dict(info.players)
    if isinstance(deal_players, list) and len(deal_players) == info.seats:
        by_seat = {seat: str(pid) for seat, pid in enumerate(deal_players) if pid is not None}
    known = players_by_id(conn, sorted(by_seat.values()))
    named: list[JSON] = []
    for seat in range(info.seats):
        pid = by_seat.get(seat)
        named.append(None if pid is None else {"id": pid, "name": known[pid].name if pid in known else None})
    return named


def _bounds(conn: Conn, table_id: str, deal_no: int) -> DealBounds:
    found = deal_bounds(conn, table_id, deal_no) if deal_no >= 1 else []
    if not found:
        dealt = deal_bounds(conn, table_id)
        have = f"deals 1..{dealt[-1].deal_no}" if dealt else "no deals yet"
        raise NotFound(f"table {table_id} has no deal {deal_no}; it has {have}", "deal_not_found")
    return found[0]


def _deal_ends(conn: Conn, table_id: str, bounds: DealBounds) -> tuple[RecordedEvent, RecordedEvent | None]:
    started = read_stream_in(conn, table_id, bounds.started_version, bounds.started_version)[0]
    if bounds.ended_version is None:
        return started, None
    return started, read_stream_in(conn, table_id, bounds.ended_version, bounds.ended_version)[0]


def _seed_fields(started: RecordedEvent, ended: RecordedEvent | None) -> dict[str, JSON]:
    """Commitment, seeds and result; the server seed only from a deal_ended event (never before)."""
    fields: dict[str, JSON] = {
        "status": "ended" if ended is not None else "playing",
        "started_version": started.version,
        "ended_version": None if ended is None else ended.version,
        "commitment": started.data.get("commitment"),
        "client_seeds": started.data.get("client_seeds"),
        "server_seed": None,
        "next_commitment": None,
        "result": None,
        "net": None,
        "unit": None,
        "transfers": None,
    }
    if ended is not None:
        result = dict(ended.data.get("result") or {})
        fields.update(
            server_seed=ended.data.get("server_seed"),
            next_commitment=ended.data.get("next_commitment"),
            result=result,
            net=result.get("net"),
            unit=ended.data.get("unit"),
            transfers=ended.data.get("transfers"),
        )
    return fields


def _timed_out_by_seat(conn: Conn, table_id: str, bounds: DealBounds, seats: int) -> list[int]:
    """By seat, the actions the turn clock took for it in the deal (events marked "timed_out")."""
    counts = [0] * seats
    for seat, count in timed_out_counts(conn, table_id, bounds.started_version, bounds.ended_version).items():
        if seat.isdigit() and int(seat) < seats:
            counts[int(seat)] += count
    return counts


def _first_version_of_write(conn: Conn, table_id: str, version: int) -> int:
    """The first event written in the same transaction as `version` (the seat or ready that dealt)."""
    first = first_version_of_write(conn, table_id, version)
    return version if first is None else first


def _steps(
    events: list[RecordedEvent],
    before: TableState | None,
    deal_no: int,
    viewer: Viewer,
    over: bool,
    start_error: str | None,
    withheld: bool = False,
) -> list[dict[str, JSON]]:
    """One step per write transaction, replayed from `before` (`withheld`: the running deal's hashes are withheld
    from the viewer, see `services.app.ledger.event_json`)."""
    steps: list[dict[str, JSON]] = []
    state, error = before, start_error
    group: list[RecordedEvent] = []
    groups: list[list[RecordedEvent]] = []
    for event in events:
        if group and event.tx_id != group[0].tx_id:
            groups.append(group)
            group = []
        group.append(event)
    if group:
        groups.append(group)
    for number, members in enumerate(groups, start=1):
        actor = members[0].metadata.get("actor")
        seat = state.seat_of(str(actor)) if state is not None and actor is not None else None
        # The turn clock acted for a seat whose time ran out: the step is that seat's, marked timed out.
        timed_out = next((m for m in members if m.data.get(tables.TIMED_OUT) is True), None)
        if seat is None and timed_out is not None and isinstance(timed_out.data.get("seat"), int):
            seat = int(timed_out.data["seat"])
        alternatives: JSON = None
        if over and state is not None and seat is not None and error is None:
            alternatives = _safe(lambda s=state, seat=seat: tables.legal_actions(s, seat))
        shown: list[dict[str, JSON]] = []
        step: dict[str, JSON] = {
            "step": number,
            "actor": actor,
            "seat": seat,
            "to_act_before": None if state is None or error else _safe(lambda s=state: tables.to_act(s)),
            "legal_alternatives": alternatives,
            "timed_out": timed_out is not None,
            "events": shown,
        }
        for recorded in members:
            deal_over = over or recorded.deal_no < deal_no
            item = event_json(recorded, viewer, deal_over, withheld and not deal_over)
            item["actor"] = actor
            item["seat"] = recorded.data.get("seat")
            item["timed_out"] = recorded.data.get(tables.TIMED_OUT) is True
            if error is None:
                try:
                    state = tables.evolve(state, Event(recorded.type, recorded.data, recorded.occurred_at))
                    state = replace(state, version=recorded.version)
                except Exception as failure:  # tampered data: say where the replay stopped
                    error = f"{recorded.type} (version {recorded.version}) does not fold: {failure!r}"
                    item["replay_error"] = error
            item["public_state_after"] = None if error is not None or state is None else _public(state)
            shown.append(item)
        steps.append(step)
    return steps


def _public(state: TableState) -> JSON:
    view = _safe(lambda: tables.public_view(state))
    if isinstance(view, Mapping):
        return {key: value for key, value in view.items() if key not in _STATIC_VIEW_KEYS}
    return view


def _safe(compute: Any) -> JSON:
    try:
        return compute()
    except Exception as error:  # a view of a tampered state must not break the report
        return {"error": repr(error)}
