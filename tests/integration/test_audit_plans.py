"""The audit's reads of a deal cost what the deal holds, not what the table has played (docs/performance.md,
"The latest `make bench`"): each statement is served by an index that finds its few rows, never by a walk of the table's
whole stream. Checked on the plans PostgreSQL makes for a table with many events, with generic plans (as prepared
statements get) and sequential scans off (a small table: the question is whether an index *can* serve it)."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest
from psycopg.types.json import Jsonb

from domain.table import DEAL_ENDED, DEAL_STARTED, PLAYER_SEATED, TABLE_OPENED
from infra.sql import deal_events

TABLE = "history-table"
DEALS = 40
EVENTS_PER_DEAL = 30


@pytest.fixture
def long_stream(db_url: str) -> str:
    """A table stream of DEALS deals, EVENTS_PER_DEAL events each, written straight into events (the plans
    only need the rows), each deal in a transaction of its own."""
    with psycopg.connect(db_url, autocommit=True) as conn:
        version = 0

        def add(kind: str, deal_no: int) -> None:
            nonlocal version
            version += 1
            conn.execute(
                """INSERT INTO events (stream_id, version, type, deal_no, data, occurred_at, prev_hash, hash)
                   VALUES (%s, %s, %s, %s, %s, now(), 'p', 'h')""",
                (TABLE, version, kind, deal_no, Jsonb({})),
            )

        with conn.transaction():
            add(TABLE_OPENED, 0)
            add(PLAYER_SEATED, 0)
            add(PLAYER_SEATED, 0)
        for deal_no in range(1, DEALS + 1):
            with conn.transaction():
                add(DEAL_STARTED, deal_no)
                for _ in range(EVENTS_PER_DEAL - 2):
                    add("card_discarded", deal_no)
                add(DEAL_ENDED, deal_no)
        conn.execute("ANALYZE events")
    return TABLE


def generic_plan(db_url: str, sql: str, types: str, values: str) -> str:
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute("SET enable_seqscan = off")
        conn.execute("SET plan_cache_mode = force_generic_plan")
        conn.execute(f"PREPARE audited({types}) AS {sql}")
        rows: list[Any] = conn.execute(f"EXPLAIN EXECUTE audited({values})").fetchall()
    return "\n".join(str(row[0]) for row in rows)


def test_a_deal_s_start_and_end_are_found_through_the_partial_indexes(db_url: str, long_stream: str) -> None:
    sql = deal_events.ONE_DEAL_START_AND_END_SQL.replace("%(table)s", "$1").replace("%(deal)s", "$2")
    plan = generic_plan(db_url, sql, "text, int", f"'{long_stream}', {DEALS}")
    assert "events_deal_starts" in plan and "events_milestones" in plan, plan
    assert "events_pkey" not in plan, plan


def test_the_opening_and_seatings_are_found_through_the_partial_index(db_url: str, long_stream: str) -> None:
    plan = generic_plan(
        db_url, deal_events.OPENING_AND_SEATINGS_SQL.replace("%s", "$1"), "text[]", f"ARRAY['{long_stream}']"
    )
    assert "events_milestones" in plan and "events_pkey" not in plan, plan


def test_the_first_event_of_a_write_is_found_by_its_transaction(db_url: str, long_stream: str) -> None:
    sql = deal_events.FIRST_VERSION_OF_WRITE_SQL.replace("%(table)s", "$1").replace("%(version)s", "$2")
    plan = generic_plan(db_url, sql, "text, int", f"'{long_stream}', {DEALS * EVENTS_PER_DEAL}")
    assert "events_commit_order" in plan, plan
    # The stream's key finds the one event whose transaction is looked up; it never walks the whole stream.
    assert plan.count("events_pkey") == 1 and "Index Cond: ((stream_id = $1) AND (version = $2))" in plan, plan
