"""The `cardledger` command's audit and maintenance sub-commands, against the real database."""

from __future__ import annotations

import csv
import io
import json
import random
from datetime import UTC
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg_pool import ConnectionPool

from infra.event_store import EventStore
from services.cli import main
from tests.horizon import held_back, held_horizon
from tests.integration.test_audit_support import play_table, services, tamper_event
from tests.play import register

VECTORS = json.loads((Path(__file__).parents[1] / "unit" / "vectors" / "shuffle.json").read_text())["cases"]


@pytest.fixture
def cli_env(db_url: str, redis_url: str, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("DATABASE_URL", db_url)
    monkeypatch.setenv("REDIS_URL", redis_url)
    return db_url


@pytest.mark.parametrize("case", VECTORS, ids=lambda c: f"{c['game']}-{c['deal_no']}")
def test_deck_prints_the_conformance_deck(case: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["deck", "--game", case["game"], "--seed", case["server_seed_hex"], "--table-id", case["table_id"]]
    argv += ["--deal-no", str(case["deal_no"])]
    for seed in case["client_seeds"]:
        argv += ["--client-seed", seed]
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out) == case["deck"]


def test_deck_refuses_a_seed_that_is_not_32_bytes_of_hex(capsys: pytest.CaptureFixture[str]) -> None:
    base = ["deck", "--game", "cholek-tiga", "--table-id", "t", "--deal-no", "1"]
    assert main([*base, "--seed", "zz"]) == 2
    assert "hex" in capsys.readouterr().err
    assert main([*base, "--seed", "00" * 31]) == 2
    assert "31 bytes" in capsys.readouterr().err


def test_migrate_twice_reports_nothing_to_do(cli_env: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["migrate"]) == 0
    assert "up to date" in capsys.readouterr().out


def test_verify_passes_honest_tables_and_names_the_first_tampered_event(
    cli_env: str, pool: ConnectionPool[Any], store: EventStore, capsys: pytest.CaptureFixture[str]
) -> None:
    ledger, _ = services(pool, store)
    rng = random.Random(7)
    honest = play_table(ledger, "cha-kau-tsz", [register(ledger, f"h{n}") for n in range(3)], 1, rng)
    target = play_table(ledger, "cholek-tiga", [register(ledger, f"t{n}") for n in range(2)], 1, rng)

    assert main(["verify", "--all"]) == 0
    capsys.readouterr()

    # Change one card of a discard, the way someone with database access would.
    with pool.connection() as conn:
        row = conn.execute(
            "SELECT version FROM events WHERE stream_id = %s AND type = 'card_discarded' ORDER BY version LIMIT 1",
            (target.table_id,),
        ).fetchone()
    assert row is not None
    version = int(row["version"])
    tamper_event(pool, target.table_id, version, lambda data: data.update(card="OT" if data["card"] != "OT" else "WF"))

    assert main(["verify", "--table", honest.table_id]) == 0
    capsys.readouterr()
    assert main(["verify", "--all"]) == 1
    out = capsys.readouterr().out
    assert target.table_id in out and str(version) in out


def test_verify_of_a_malformed_or_unknown_table_id_says_so_in_one_line(
    cli_env: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["verify", "--table", "not-a-table"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.strip().splitlines()) == 1
    assert "'not-a-table' is not a table id" in captured.err
    unknown = "0b6b7d5e-8c1f-4a55-9f3e-2d1c0a9b8e7f"
    assert main(["verify", "--table", unknown]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == f"cardledger: error: verify: table {unknown} does not exist\n"


def test_settlement_report_csv_and_json_agree_with_the_deal_results(
    cli_env: str, pool: ConnectionPool[Any], store: EventStore, capsys: pytest.CaptureFixture[str]
) -> None:
    ledger, _ = services(pool, store)
    rng = random.Random(11)
    played = [
        play_table(ledger, "cholek-tiga", [register(ledger, f"c{n}") for n in range(3)], 1, rng),
        play_table(ledger, "cha-kau-tsz", [register(ledger, f"k{n}") for n in range(2)], 2, rng),
    ]
    # No wait_until_readable: the command itself waits until every event committed when it starts is readable.
    assert main(["report", "settlement", "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert main(["report", "settlement", "--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))

    assert report["balanced"] is True
    for table in played:
        for seat, caller in enumerate(table.callers):
            expected = sum(deal["result"]["net"][seat] for deal in table.deals)
            key = (caller.player_id, table.table_id)
            shown = [r for r in report["rows"] if (r["player_id"], r["table_id"]) == key]
            assert [r["net_amount"] for r in shown] == [expected]
            in_csv = [r for r in rows if (r["player_id"], r["table_id"]) == key]
            assert [int(r["net_amount"]) for r in in_csv] == [expected]


def test_settlement_report_to_a_date_counts_that_whole_day_as_the_api_does(
    cli_env: str, pool: ConnectionPool[Any], store: EventStore, capsys: pytest.CaptureFixture[str]
) -> None:
    ledger, _ = services(pool, store)
    played = play_table(ledger, "cholek-tiga", [register(ledger, f"d{n}") for n in range(2)], 1, random.Random(13))
    with pool.connection() as conn:
        row = conn.execute(
            "SELECT occurred_at FROM events WHERE stream_id = %s AND type = 'deal_ended'", (played.table_id,)
        ).fetchone()
    assert row is not None
    day = row["occurred_at"].astimezone(UTC).date().isoformat()

    def tables(*period: str) -> list[str]:
        assert main(["report", "settlement", "--json", *period]) == 0
        return [table["table_id"] for table in json.loads(capsys.readouterr().out)["tables"]]

    assert tables("--from", day, "--to", day) == [played.table_id]
    assert tables("--to", day) == [played.table_id]
    assert tables("--to", f"{day}T00:00:00+00:00") == []  # a timestamp is the period's exclusive end


def _holder_pid(conn_url: str) -> int:
    with psycopg.connect(conn_url, autocommit=True) as conn:
        row = conn.execute(
            "SELECT pid FROM pg_stat_activity WHERE application_name = 'cardledger-test-horizon' "
            "AND backend_xid IS NOT NULL ORDER BY age(backend_xid) DESC LIMIT 1"
        ).fetchone()
    assert row is not None
    return int(row[0])


def test_settlement_report_waits_for_an_older_transaction_then_is_complete(
    cli_env: str, pg_server_url: str, pool: ConnectionPool[Any], store: EventStore, capsys: pytest.CaptureFixture[str]
) -> None:
    ledger, _ = services(pool, store)
    with held_horizon(pg_server_url, 3):
        played = play_table(ledger, "cholek-tiga", [register(ledger, f"w{n}") for n in range(2)], 1, random.Random(5))
        assert held_back(cli_env) > 0  # committed, not yet readable in commit-safe order
        assert main(["report", "settlement", "--json", "--wait", "60"]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    report = json.loads(captured.out)
    assert report["complete"] is True and report["unread_events"] == 0 and report["held_back_by"] is None
    assert int(report["log_position"]["global_position"]) > 0
    net = [r["net_amount"] for r in report["rows"] if r["table_id"] == played.table_id and r["player_id"]]
    assert net == played.deals[0]["result"]["net"]


def test_settlement_report_outwaited_by_an_older_transaction_says_it_is_incomplete(
    cli_env: str, pg_server_url: str, pool: ConnectionPool[Any], store: EventStore, capsys: pytest.CaptureFixture[str]
) -> None:
    ledger, _ = services(pool, store)
    with held_horizon(pg_server_url, 120):
        played = play_table(ledger, "cholek-tiga", [register(ledger, f"i{n}") for n in range(2)], 1, random.Random(6))
        pid = _holder_pid(cli_env)
        unread = held_back(cli_env)
        assert main(["report", "settlement", "--json", "--wait", "0.2"]) == 3
        json_run = capsys.readouterr()
        assert main(["report", "settlement", "--format", "csv", "--wait", "0"]) == 3
        csv_run = capsys.readouterr()
    report = json.loads(json_run.out)
    assert report["complete"] is False
    assert report["unread_events"] == unread > 0
    assert report["held_back_by"]["pid"] == pid and report["held_back_by"]["open_seconds"] >= 0
    assert played.table_id not in {r["table_id"] for r in report["rows"]}  # not silently complete: said so
    for run in (json_run, csv_run):
        assert len(run.err.splitlines()) == 1
        assert f"incomplete: {unread} committed events are not readable yet" in run.err
        assert f"pid {pid}" in run.err and "rerun when it ends or pass --wait 60" in run.err
    assert f"position {report['log_position']['global_position']}" in json_run.err
    assert csv_run.out.splitlines()[0].startswith("player_id,")  # the CSV is still printed, marked on stderr


@pytest.mark.parametrize("value", ["-1", "soon", "nan", "inf", "3601"])
def test_settlement_report_refuses_a_bad_wait_in_one_line(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", "settlement", "--wait", value]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.splitlines()) == 1
    assert f"--wait: {value!r} is not a number of seconds from 0 to 3600" in captured.err


def test_projections_rebuild_equals_the_live_models(
    cli_env: str, pool: ConnectionPool[Any], store: EventStore, capsys: pytest.CaptureFixture[str]
) -> None:
    ledger, _ = services(pool, store)
    play_table(ledger, "cha-kau-tsz", [register(ledger, f"r{n}") for n in range(4)], 1, random.Random(3))
    assert main(["projections", "rebuild"]) == 0
    out = capsys.readouterr().out
    for name in ("table_views", "hand_tricks", "ledger", "settlements", "deal_settlements"):
        assert name in out
