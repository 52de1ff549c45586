"""Settlement reports over several tables and both games, against the sum of the deals' results."""

from __future__ import annotations

import csv
import io
import json
import random
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
from psycopg_pool import ConnectionPool

from infra.event_store import EventStore
from services.application import AUDITOR_CALLER, Caller
from services.audit import settlement_csv, settlement_report_offline
from services.errors import Forbidden, NotFound, Unprocessable
from tests.integration.test_audit_support import PlayedTable, play_table, register, services

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

    offline_json = json.loads(settlement_report_offline(pool, "2000-01-01", "2999-12-31", None, "json"))
    assert offline_json == json.loads(json.dumps(report))
    assert settlement_report_offline(pool, "2000-01-01", "2999-12-31", None, "csv") == text
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


def test_reports_agree_with_the_projected_read_models(
    pool: Pool, store: EventStore, scenario: tuple[list[Caller], list[PlayedTable]]
) -> None:
    """The ledger and settlement read models (built by the projection workers) equal the reports from the log."""
    from infra.projections.runner import catch_up

    _, played = scenario
    _, audit = services(pool, store)
    with pool.connection() as conn:
        conn.autocommit = True
        catch_up(conn, "ledger")
        catch_up(conn, "settlements")
        projected_lines = conn.execute(
            """SELECT table_id, global_position, deal_no, account, player_id, amount, amount_cents, reason
               FROM ledger_lines ORDER BY table_id, global_position, line_no"""
        ).fetchall()
        projected_settlements = {
            (r["player_id"], r["table_id"]): (int(r["net_amount"]), int(r["net_cents"]))
            for r in conn.execute("SELECT player_id, table_id, net_amount, net_cents FROM settlements")
        }
        conn.autocommit = False
    keys = ("global_position", "deal_no", "account", "player_id", "amount", "amount_cents", "reason")
    from_log = [
        {"table_id": table.table_id, **{k: line[k] for k in keys}}
        for table in sorted(played, key=lambda t: t.table_id)
        for line in audit.table_ledger(AUDITOR_CALLER, table.table_id)["lines"]
    ]
    assert [dict(r) for r in projected_lines] == from_log
    report = audit.settlement_report(AUDITOR_CALLER, None, None, None, None)
    rows = {
        (r["player_id"], r["table_id"]): (r["net_amount"], r["net_cents"]) for r in report["rows"] if r["player_id"]
    }
    assert projected_settlements == rows
