"""Settlement reports over several tables and both games, against the sum of the deals' results, and against
the report computed from the event log (the old self-join of the log, kept here as the oracle); the pool refund
of an abandoned Cha Kau Tsz table, dated by its closing."""

from __future__ import annotations

import csv
import io
import json
import random
import uuid
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
from psycopg_pool import ConnectionPool

from domain import table as tables
from infra.event_store import EventStore
from infra.projections import catch_up
from services.app.audit.reports import parse_ledger_cursor, settlement_report_whole
from services.app.audit.reports import settlement_report as compute_settlement
from services.app.audit.service import settlement_csv, settlement_report_offline
from services.app.callers import AUDITOR_CALLER, Caller
from services.app.errors import Forbidden, NotFound, Unprocessable
from services.cli.verify_remote import expected_ledger_lines
from services.clock import Clock
from services.projector.rebuild import rebuild
from tests.horizon import wait_until_readable
from tests.integration.settlement_oracle import settlement_from_the_log
from tests.integration.test_audit_support import (
    PlayedTable,
    event_row,
    play_table,
    play_until_a_pool,
    project,
    services,
    tamper_event,
)
from tests.play import register

Pool = ConnectionPool[Any]

# (game, seats, deals, options)
SCENARIO = [
    ("cholek-tiga", 2, 2, {}),
    ("cholek-tiga", 3, 1, {"in_play_bonuses": True, "point_value_cents": 20}),
    ("cha-kau-tsz", 2, 2, {}),
    ("cha-kau-tsz", 3, 1, {"chip_value_cents": 5}),
    ("cha-kau-tsz", 4, 2, {}),
]


def expected_rows(played: list[PlayedTable]) -> dict[tuple[str, str], tuple[int, int]]:
    """(player, table) -> (net in the game's unit, net in cents), summed from each deal's result.net."""
    expected: dict[tuple[str, str], tuple[int, int]] = {}
    for table in played:
        cents = 1
        if table.game == "cha-kau-tsz":
            cents = int(table.options.get("chip_value_cents", 10))
        for seat, caller in enumerate(table.callers):
            amount = sum(int(deal["result"]["net"][seat]) for deal in table.deals)
            expected[(str(caller.player_id), table.table_id)] = (amount, amount * cents)
    return expected


@pytest.fixture
def scenario(pool: Pool, store: EventStore) -> tuple[list[Caller], list[PlayedTable]]:
    ledger, _ = services(pool, store)
    people = [register(ledger, name) for name in ("Ana", "Budi", "Chen", "Dewi", "=Eko")]
    rng = random.Random(2024)
    played = []
    for index, (game, seats, deals, options) in enumerate(SCENARIO):
        sitters = [people[(index + k) % len(people)] for k in range(seats)]
        played.append(play_table(ledger, game, sitters, deals, rng, options=options))
    project(pool)  # the reports read the projections
    return people, played


def test_settlement_equals_the_sum_of_deal_results(
    pool: Pool, store: EventStore, scenario: tuple[list[Caller], list[PlayedTable]]
) -> None:
    people, played = scenario
    _, audit = services(pool, store)
    today = datetime.now(UTC).date()
    report = audit.settlement_report(AUDITOR_CALLER, None, None, today - timedelta(days=1), today)

    expected = expected_rows(played)
    seat_rows = {
        (r["player_id"], r["table_id"]): (r["net_amount"], r["net_cents"]) for r in report["rows"] if r["player_id"]
    }
    assert seat_rows == expected
    assert report["deals"] == sum(len(t.deals) for t in played) == sum(deals for _, _, deals, _ in SCENARIO)
    assert report["balanced"] is True
    assert report["balance_cents"] == 0
    assert report["total_cents"] == 0  # the auditor sees every account, the pools included
    assert report["consistent_with_deal_results"] is True
    pools = [r for r in report["rows"] if r["account"] == "pool"]
    assert {r["table_id"] for r in pools} <= {t.table_id for t in played if t.game == "cha-kau-tsz"}
    for person in people:
        mine = sum(cents for (pid, _), (_, cents) in expected.items() if pid == person.player_id)
        total = next(p for p in report["players"] if p["player_id"] == person.player_id)
        assert total["net_cents"] == mine
        assert total["name"] == person.name
    for row in report["rows"]:
        if row["unit"] == "cents":
            assert row["net_cents"] == row["net_amount"]


def test_csv_and_json_agree(pool: Pool, store: EventStore, scenario: tuple[list[Caller], list[PlayedTable]]) -> None:
    _, audit = services(pool, store)
    report = audit.settlement_report(AUDITOR_CALLER, None, None, "2000-01-01", "2999-12-31")
    text = settlement_csv(report)
    rows = list(csv.DictReader(io.StringIO(text)))
    body, total = rows[:-1], rows[-1]
    assert len(body) == len(report["rows"])
    for parsed, row in zip(body, report["rows"], strict=True):
        assert parsed["player_id"] == (row["player_id"] or "")
        assert parsed["table_id"] == row["table_id"]
        assert parsed["account"] == row["account"]
        assert int(parsed["net_amount"]) == row["net_amount"]
        assert int(parsed["net_cents"]) == row["net_cents"]
        assert int(parsed["deals"]) == row["deals"]
        name = row["name"] or ""
        assert parsed["name"] == ("'" + name if name.startswith("=") else name)  # no formula in a spreadsheet
    assert total["player_id"] == "TOTAL"
    assert int(total["net_cents"]) == report["total_cents"] == sum(int(r["net_cents"]) for r in body)

    offline = settlement_report_offline(pool, "2000-01-01", "2999-12-31", None, "json")
    offline_json = json.loads(offline.text)
    assert offline.coverage.complete and offline_json.pop("complete") is True
    assert offline_json.pop("unread_events") == 0 and offline_json.pop("held_back_by") is None
    read, offline_read = report.pop("log_position"), offline_json.pop("log_position")
    assert (int(offline_read["tx_id"]), offline_read["global_position"]) >= (
        int(read["tx_id"]),
        read["global_position"],
    )
    assert offline_json == json.loads(json.dumps(report))
    assert settlement_report_offline(pool, "2000-01-01", "2999-12-31", None, "csv").text == text
    with pytest.raises(ValueError, match="'xml'"):
        settlement_report_offline(pool, None, None, None, "xml")


def test_a_player_sees_only_their_own_figures(
    pool: Pool, store: EventStore, scenario: tuple[list[Caller], list[PlayedTable]]
) -> None:
    people, played = scenario
    _, audit = services(pool, store)
    expected = expected_rows(played)
    chen = people[2]
    own = audit.settlement_report(chen, None, None, None, None)
    assert {r["player_id"] for r in own["rows"]} == {chen.player_id}
    assert {(r["player_id"], r["table_id"]): (r["net_amount"], r["net_cents"]) for r in own["rows"]} == {
        key: value for key, value in expected.items() if key[0] == chen.player_id
    }
    assert own["total_cents"] == sum(cents for (pid, _), (_, cents) in expected.items() if pid == chen.player_id)
    assert own["balanced"] is True
    assert audit.settlement_report(chen, chen.player_id, None, None, None)["rows"] == own["rows"]
    with pytest.raises(Forbidden, match=str(people[0].player_id)):
        audit.settlement_report(chen, people[0].player_id, None, None, None)
    one_table = played[4].table_id
    by_table = audit.settlement_report(AUDITOR_CALLER, None, one_table, None, None)
    assert {r["table_id"] for r in by_table["rows"]} == {one_table}
    assert by_table["balanced"] is True
    with pytest.raises(NotFound, match="no-such-table"):
        audit.settlement_report(AUDITOR_CALLER, None, "no-such-table", None, None)


def test_periods_select_deals_by_their_end(
    pool: Pool, store: EventStore, scenario: tuple[list[Caller], list[PlayedTable]]
) -> None:
    _, audit = services(pool, store)
    tomorrow = datetime.now(UTC).date() + timedelta(days=1)
    future = audit.settlement_report(AUDITOR_CALLER, None, None, tomorrow, None)
    assert future["rows"] == [] and future["deals"] == 0 and future["balanced"] is True
    past = audit.settlement_report(AUDITOR_CALLER, None, None, None, date(2000, 1, 1))
    assert past["rows"] == []
    with pytest.raises(Unprocessable, match="'31-12-2024'"):
        audit.settlement_report(AUDITOR_CALLER, None, None, "31-12-2024", None)
    with pytest.raises(Unprocessable, match="empty"):
        audit.settlement_report(AUDITOR_CALLER, None, None, "2024-05-02", "2024-05-01")


def test_ledger_pages_are_the_transfers_of_the_log(
    pool: Pool, store: EventStore, scenario: tuple[list[Caller], list[PlayedTable]]
) -> None:
    """The ledger, page by page from the ledger projection, is the lines the events' transfers make (as anyone
    derives them from the log, `expected_ledger_lines`); every page carries the whole table's totals."""
    _, played = scenario
    _, audit = services(pool, store)
    keys = ("version", "event_type", "deal_no", "account", "player_id", "amount", "unit", "amount_cents", "reason")
    for table in played:
        expected = expected_ledger_lines(store.read_stream(table.table_id))
        first = audit.table_ledger(AUDITOR_CALLER, table.table_id)
        assert first["next_after"] is None and len(first["lines"]) == len(expected) == first["line_count"]
        lines: list[dict[str, Any]] = []
        after = None
        while True:
            page = audit.table_ledger(AUDITOR_CALLER, table.table_id, after, limit=3)
            assert len(page["lines"]) <= 3
            assert {k: page[k] for k in ("totals", "sum_amount", "sum_cents", "balanced", "line_count")} == {
                k: first[k] for k in ("totals", "sum_amount", "sum_cents", "balanced", "line_count")
            }
            lines += page["lines"]
            if page["next_after"] is None:
                break
            last = page["lines"][-1]
            assert page["next_after"] == f"{last['global_position']}:{last['line_no']}"
            after = parse_ledger_cursor(page["next_after"])
        assert lines == first["lines"]
        assert [{k: line[k] for k in keys} for line in lines] == [{k: line[k] for k in keys} for line in expected]
        assert first["balanced"] is True and first["sum_amount"] == 0
        per_account: dict[str, int] = {}
        for line in expected:
            per_account[str(line["account"])] = per_account.get(str(line["account"]), 0) + int(line["amount"])
        assert {t["account"]: t["amount"] for t in first["totals"]} == per_account


def test_reports_agree_with_the_projected_settlements(
    pool: Pool, store: EventStore, scenario: tuple[list[Caller], list[PlayedTable]]
) -> None:
    """The settlements read model (per player and table) equals the settlement report over all time."""
    _, audit = services(pool, store)
    with pool.connection() as conn:
        projected_settlements = {
            (r["player_id"], r["table_id"]): (int(r["net_amount"]), int(r["net_cents"]))
            for r in conn.execute("SELECT player_id, table_id, net_amount, net_cents FROM settlements")
        }
    report = audit.settlement_report(AUDITOR_CALLER, None, None, None, None)
    rows = {
        (r["player_id"], r["table_id"]): (r["net_amount"], r["net_cents"]) for r in report["rows"] if r["player_id"]
    }
    assert projected_settlements == rows


def test_the_report_from_the_read_model_equals_the_report_from_the_log(
    pool: Pool, store: EventStore, db_url: str
) -> None:
    """On random played tables (both games, in-play bonuses, points at several chip values, players sharing
    tables, one deal's stored result tampered with), the read model built in small batches (so that bonuses and
    the ends of their deals fall in different batches) gives, for every filter and period and page by page,
    exactly the report the log-scanning computation gave."""
    ledger, _ = services(pool, store)
    rng = random.Random(909)
    people = [register(ledger, name) for name in ("Ana", "Budi", "Chen", "Dewi", "=Eko", "Fitri")]
    played = []
    for _ in range(9):
        game = rng.choice(["cholek-tiga", "cha-kau-tsz"])
        seats = rng.randint(2, 3 if game == "cholek-tiga" else 4)
        options: dict[str, Any] = (
            {"in_play_bonuses": rng.random() < 0.7}
            if game == "cholek-tiga"
            else {"chip_value_cents": rng.choice([1, 5, 10, 25])}
        )
        played.append(play_table(ledger, game, rng.sample(people, seats), rng.randint(1, 3), rng, options=options))
    assert any(t.options.get("in_play_bonuses") for t in played)
    ended = event_row(pool, played[2].table_id, "type = 'deal_ended'", ())
    tamper_event(pool, played[2].table_id, ended["version"], lambda data: data["result"]["net"].__setitem__(0, 7))
    wait_until_readable(db_url)
    with pool.connection() as conn:
        assert catch_up(conn, "deal_settlements", batch_size=7) > 0
        bonuses = conn.execute("SELECT count(*) AS n FROM events WHERE type = 'bonus_paid'").fetchone()
        ends = [
            row["occurred_at"]
            for row in conn.execute("SELECT occurred_at FROM events WHERE type = 'deal_ended' ORDER BY occurred_at")
        ]
    assert bonuses is not None and bonuses["n"] > 0
    periods: list[tuple[Any, Any]] = [
        (None, None),
        (None, ends[len(ends) // 2]),
        (ends[len(ends) // 2], None),
        (ends[1], ends[-2]),
        ("2000-01-01", datetime.now(UTC).date()),
    ]
    filters: list[tuple[str | None, str | None, bool]] = [(None, None, False)]
    filters += [(person.player_id, None, True) for person in people]
    filters += [(person.player_id, None, False) for person in people[:2]]
    filters += [(None, table.table_id, False) for table in played[:4]]
    filters += [(played[0].callers[0].player_id, played[0].table_id, True)]
    compared = 0
    for date_from, date_to in periods:
        for player_id, table_id, only in filters:
            with pool.connection() as conn:
                old = settlement_from_the_log(conn, date_from, date_to, player_id, table_id, only)
                new = settlement_report_whole(conn, date_from, date_to, player_id, table_id, only)
                rows: list[Any] = []
                discrepancies: list[Any] = []
                deals = 0
                after = None
                while True:
                    page = compute_settlement(conn, date_from, date_to, player_id, table_id, only, after, limit=2)
                    assert len({row["table_id"] for row in page["rows"]}) <= 2
                    rows += page["rows"]
                    discrepancies += page["discrepancies"]
                    deals += page["deals"]
                    after = page["next_after"]
                    if after is None:
                        break
            assert new.pop("next_after") is None
            assert new == old, (date_from, date_to, player_id, table_id, only)
            assert (rows, discrepancies, deals) == (old["rows"], old["discrepancies"], old["deals"])
            compared += bool(old["rows"])
    assert compared > 30
    whole = settlement_report_offline(pool, None, None, None, "json").text
    assert [(d["table_id"], d["deal_no"]) for d in json.loads(whole)["discrepancies"]] == [(played[2].table_id, 1)]
    # Built in batches of 7 or in one batch of 5000 (a rebuild), the read model is the same.
    (rebuilt,) = rebuild(db_url, ["deal_settlements"], progress=False)
    assert rebuilt.equal and rebuilt.rebuilt_rows > 0, rebuilt.summary()


ABANDON = timedelta(hours=24)


def test_the_pool_refund_of_an_abandoned_table_is_reported_at_its_closing(
    pool: Pool, store: EventStore, db_url: str
) -> None:
    """An abandoned Cha Kau Tsz table with points in its pool: the clock closes it and refunds the pool to its
    payers (table_closed, from `pool` to `player:<id>`). A period that holds the closing shows each refund on
    the player's own row (account `player:<id>`) and the pool emptied; one that ends before it does not; one
    that holds only the closing shows the refund alone. The closing is no deal, every table balances, and the
    read model (built in small batches, and rebuilt) gives the report the log gives."""
    ledger, audit = services(pool, store)
    people = [register(ledger, name) for name in ("Ana", "Budi", "Chen")]
    rng = random.Random(1011)
    other = play_table(ledger, "cholek-tiga", people[:2], 1, rng)  # deals only, beside it
    table = play_until_a_pool(ledger, people, rng, {"chip_value_cents": 5})
    pool_points = int(ledger.queries.load_state(table.table_id).carry["pool"])
    for caller in people:
        ledger.act(caller, table.table_id, {"type": "leave"}, uuid.uuid4().hex, None)
    vacant = tables.vacant_since(ledger.queries.load_state(table.table_id))
    assert vacant is not None
    written = Clock(ledger, ABANDON).tick(table.table_id, vacant + ABANDON)
    assert written is not None and written.kind == "closed"
    closed = store.read_stream(table.table_id)[-1]
    assert closed.type == tables.TABLE_CLOSED and closed.data["reason"] == tables.ABANDONED
    refunds = {str(t["payee"]): int(t["amount"]) for t in closed.data["transfers"]}
    assert refunds and sum(refunds.values()) == pool_points
    wait_until_readable(db_url)
    with pool.connection() as conn:
        assert catch_up(conn, "deal_settlements", batch_size=3) > 0  # the closing apart from the last deal's end
    project(pool)

    deals = len(table.deals)
    seat_nets = {f"seat:{seat}": sum(int(deal["result"]["net"][seat]) for deal in table.deals) for seat in range(3)}
    # Before the closing: the report as it was, the pool still holding the points.
    before = audit.settlement_report(AUDITOR_CALLER, None, table.table_id, None, closed.occurred_at)
    assert {r["account"]: r["net_amount"] for r in before["rows"]} == {**seat_nets, "pool": pool_points}
    assert before["deals"] == deals and before["balanced"] is True
    # Over a period holding it: each refund on the player's own row, the pool back to zero, no deal more.
    whole = audit.settlement_report(AUDITOR_CALLER, None, table.table_id, None, None)
    assert [r["account"] for r in whole["rows"]] == [*seat_nets, "pool", *sorted(refunds)]
    by_account = {r["account"]: r for r in whole["rows"]}
    assert {a: r["net_amount"] for a, r in by_account.items()} == {**seat_nets, "pool": 0, **refunds}
    names = {str(p.player_id): p.name for p in people}
    for account, amount in refunds.items():
        row = by_account[account]
        player = account.removeprefix("player:")
        assert (row["player_id"], row["name"], row["net_cents"], row["deals"]) == (
            player,
            names[player],
            amount * 5,
            deals,
        )
    assert whole["deals"] == deals and whole["tables"] == [
        {"table_id": table.table_id, "game": "cha-kau-tsz", "deals": deals, "net_cents_shown": 0}
    ]
    assert (whole["balanced"], whole["balance_cents"], whole["total_cents"]) == (True, 0, 0)
    assert whole["consistent_with_deal_results"] is True and whole["discrepancies"] == []
    # A player's figure is the sum of their rows: what the settlements read model and the ledger hold.
    with pool.connection() as conn:
        settled = {
            str(row["player_id"]): int(row["net_cents"])
            for row in conn.execute(
                "SELECT player_id, net_cents FROM settlements WHERE table_id = %s", (table.table_id,)
            )
        }
    assert {p["player_id"]: p["net_cents"] for p in whole["players"]} == settled
    assert all(p["tables"] == 1 for p in whole["players"])
    totals = {t["account"]: t["amount"] for t in audit.table_ledger(AUDITOR_CALLER, table.table_id)["totals"]}
    assert {a: totals.get(a, 0) for a in by_account} == {a: r["net_amount"] for a, r in by_account.items()}
    assert set(totals) <= set(by_account)
    text = settlement_csv(whole)
    assert [line.split(",")[2] for line in text.splitlines()[1:-1]] == list(by_account)
    # Over a period holding the closing alone: the refund, and no deal.
    after = audit.settlement_report(AUDITOR_CALLER, None, None, closed.occurred_at, None)
    assert [(r["table_id"], r["account"], r["net_amount"], r["deals"]) for r in after["rows"]] == [
        (table.table_id, "pool", -pool_points, 0),
        *[(table.table_id, account, refunds[account], 0) for account in sorted(refunds)],
    ]
    assert (after["deals"], after["balanced"], after["total_cents"]) == (0, True, 0)
    # A refunded player sees their refund for a period that holds the closing, and not before it.
    account = sorted(refunds)[0]
    payee = next(p for p in people if f"player:{p.player_id}" == account)
    own = audit.settlement_report(payee, None, None, None, None)
    assert {r["account"]: r["net_amount"] for r in own["rows"] if r["table_id"] == table.table_id} == {
        **{a: n for a, n in seat_nets.items() if by_account[a]["player_id"] == payee.player_id},
        account: refunds[account],
    }
    own_before = audit.settlement_report(payee, None, None, None, closed.occurred_at)
    assert not [r for r in own_before["rows"] if r["account"].startswith("player:")]
    assert own["total_cents"] - own_before["total_cents"] == refunds[account] * 5
    own_after = audit.settlement_report(payee, None, None, closed.occurred_at, None)
    assert [(r["account"], r["net_cents"]) for r in own_after["rows"]] == [(account, refunds[account] * 5)]
    # The read model's report is the log's, for every filter and period, page by page.
    with pool.connection() as conn:
        ends = [
            row["occurred_at"]
            for row in conn.execute(
                "SELECT occurred_at FROM events WHERE stream_id = %s AND type = 'deal_ended' ORDER BY version",
                (table.table_id,),
            )
        ]
    assert len(ends) == deals
    periods: list[tuple[Any, Any]] = [(None, None), (None, closed.occurred_at), (closed.occurred_at, None)]
    periods += [
        (vacant, None),
        ("2000-01-01", closed.occurred_at + timedelta(microseconds=1)),
        *((e, None) for e in ends),
    ]
    filters: list[tuple[str | None, str | None, bool]] = [(None, None, False), (None, table.table_id, False)]
    filters += [(None, other.table_id, False)]
    filters += [(person.player_id, None, only) for person in people for only in (True, False)]
    for date_from, date_to in periods:
        for player_id, table_id, only in filters:
            with pool.connection() as conn:
                old = settlement_from_the_log(conn, date_from, date_to, player_id, table_id, only)
                new = settlement_report_whole(conn, date_from, date_to, player_id, table_id, only)
                rows: list[Any] = []
                after_table = None
                while True:
                    page = compute_settlement(conn, date_from, date_to, player_id, table_id, only, after_table, 1)
                    rows += page["rows"]
                    after_table = page["next_after"]
                    if after_table is None:
                        break
            assert new.pop("next_after") is None
            assert new == old, (date_from, date_to, player_id, table_id, only)
            assert rows == old["rows"]
    # Built in batches of 3 or rebuilt in one batch, the read model is the same.
    (rebuilt,) = rebuild(db_url, ["deal_settlements"], progress=False)
    assert rebuilt.equal, rebuilt.summary()
    with pool.connection() as conn:
        stored = conn.execute(
            "SELECT account, player_id, amount, closed_at FROM closing_refunds WHERE table_id = %s ORDER BY account",
            (table.table_id,),
        ).fetchall()
    assert sorted((r["account"], r["amount"], r["closed_at"]) for r in stored) == sorted(
        [("pool", -pool_points, closed.occurred_at), *((a, n, closed.occurred_at) for a, n in refunds.items())]
    )


def test_the_csv_names_the_currency_and_tells_two_players_of_one_name_apart(pool: Pool, store: EventStore) -> None:
    ledger, _ = services(pool, store)
    twins = [register(ledger, "alice"), register(ledger, "alice")]
    play_table(ledger, "cholek-tiga", twins, 1, random.Random(7))
    project(pool)
    text = settlement_report_offline(pool, "2000-01-01", "2999-12-31", None, "csv").text
    rows = [row for row in csv.DictReader(io.StringIO(text)) if row["player_id"] != "TOTAL"]
    assert rows and {row["currency"] for row in rows} == {"SGD"}  # Cholek Tiga's default currency option
    shown = sorted(row["shown_as"] for row in rows)
    assert shown == sorted(f"alice ({twin.player_id[:8]})" for twin in twins)  # type: ignore[index]
