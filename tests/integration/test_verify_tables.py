"""`verify_tables`, the check behind `cardledger verify [--table ID] [--all]`."""

from __future__ import annotations

import random
from typing import Any

import pytest
from psycopg_pool import ConnectionPool

from infra.event_store import EventStore
from services.app.audit.service import verify_tables
from tests.integration.test_audit_support import event_row, play_table, services, tamper_event
from tests.play import register

Pool = ConnectionPool[Any]


def test_all_tables_verify_with_a_progress_bar(
    pool: Pool, store: EventStore, capsys: pytest.CaptureFixture[str]
) -> None:
    ledger, _ = services(pool, store)
    people = [register(ledger, f"p{i}") for i in range(4)]
    rng = random.Random(41)
    play_table(ledger, "cholek-tiga", people[:2], deals=2, rng=rng)
    play_table(ledger, "cha-kau-tsz", people[:4], deals=1, rng=rng, moves_into_next_deal=2)
    play_table(ledger, "cha-kau-tsz", people[1:3], deals=2, rng=rng)

    summary = verify_tables(pool, None, progress=True)
    assert summary.ok, summary.render()
    assert summary.tables == 3
    assert summary.deals == 2 + 2 + 2  # the running deal is checked for its chain
    assert "3/3 tables" in capsys.readouterr().err
    assert summary.to_json()["failures"] == []
    quiet = verify_tables(pool, None, progress=False)
    assert quiet.ok
    assert capsys.readouterr().err == ""


def test_one_table_and_an_unknown_one(pool: Pool, store: EventStore) -> None:
    ledger, _ = services(pool, store)
    people = [register(ledger, f"p{i}") for i in range(2)]
    played = play_table(ledger, "cha-kau-tsz", people, deals=1, rng=random.Random(43))
    assert verify_tables(pool, played.table_id, progress=False).deals == 1
    unknown = verify_tables(pool, "no-such-table", progress=False)
    assert not unknown.ok
    assert "no-such-table" in unknown.failures[0].reason


def test_a_tampered_result_fails_the_replay(pool: Pool, store: EventStore) -> None:
    ledger, _ = services(pool, store)
    people = [register(ledger, f"p{i}") for i in range(3)]
    played = play_table(ledger, "cholek-tiga", people, deals=2, rng=random.Random(47))
    ended = event_row(pool, played.table_id, "type = 'deal_ended' AND deal_no = 2", ())
    version = int(ended["version"])

    def richer(data: dict[str, Any]) -> None:
        data["result"]["net"][0] += 100
        data["transfers"].append({"payer": "seat:1", "payee": "seat:0", "amount": 100, "reason": "points"})

    tamper_event(pool, played.table_id, version, richer, rechain=True)

    summary = verify_tables(pool, None, progress=False)
    assert {(f.table_id, f.deal_no, f.version) for f in summary.failures} == {(played.table_id, 2, version)}
    assert any(f.reason.startswith("replay:") and "net" in f.reason for f in summary.failures)
    assert f"version {version}" in summary.render()


def test_a_deleted_last_event_is_seen_at_the_stream_head(pool: Pool, store: EventStore) -> None:
    ledger, _ = services(pool, store)
    people = [register(ledger, f"p{i}") for i in range(2)]
    played = play_table(ledger, "cha-kau-tsz", people, deals=1, rng=random.Random(53), moves_into_next_deal=3)
    with pool.connection() as conn, conn.transaction():
        conn.execute("ALTER TABLE events DISABLE TRIGGER USER")
        conn.execute(
            """DELETE FROM events
               WHERE stream_id = %s AND version = (SELECT max(version) FROM events WHERE stream_id = %s)""",
            (played.table_id, played.table_id),
        )
        conn.execute("ALTER TABLE events ENABLE TRIGGER USER")

    summary = verify_tables(pool, played.table_id, progress=False)
    assert not summary.ok
    assert any("stream head" in f.reason for f in summary.failures)
