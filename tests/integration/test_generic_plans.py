"""The statements the running processes repeat (the API's action and reads, the relay, the projection workers, the
turn clock's sweep, the lag gauges, the audit's reads) read rows in proportion to their answer, not to the log or
the read models, whatever plan the server caches for them (docs/performance.md, "The read models").

Each is run as the code sends it, with PostgreSQL made to plan it generically (plan_cache_mode =
force_generic_plan: the plan a statement psycopg has prepared may get) and auto_explain handing the plan back as
a notice; the plan must use the named index and no Seq Scan (but of the readers' positions). The database holds a played
history (tables of several deals) and read models padded with many other tables' rows, ANALYZEd."""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from typing import Any

import psycopg
import pytest

from domain.table import DEAL_ENDED, DEAL_STARTED
from infra import projections
from infra.db import connect, open_pool
from infra.event_store import EventStore, LogPosition, committed_after_in, read_log_in, read_stream_in
from infra.event_store.read import deal_holds_v1_private_in, find_idempotency_in, stream_version_in
from infra.lru import Lru
from infra.migrations import migrate
from infra.players import player_for_token
from infra.projections import checkpoint
from infra.projections.deal_settlements import _PENDING_OF
from infra.projections.heads import ProjectionCaches, _table_heads, table_heads
from infra.seeds import seeds_for
from infra.sql import deal_events, ledger_lines, log_lag, settlements, table_views
from infra.table_loader import load_events_after, load_table_events
from tests.conftest import fresh_database
from tests.faults.workload import TableGame

SMALL = ("log_positions",)  # a row per reader of the log: a Seq Scan is its cheapest read
COPIES = 40  # each read model's rows again under other tables' ids
TABLE_COPIES = 800  # and the tables' own rows (a few per table: a few pages at 40 copies, where a Seq Scan may win)


@pytest.fixture(scope="module")
def history(pg_server_url: str) -> Iterator[str]:
    with fresh_database(pg_server_url, prefix="cardledger_plans") as url:
        migrate(url)
        pool = open_pool(url, min_size=1, max_size=2)
        try:
            store, rng = EventStore(pool), random.Random(5)
            games = [TableGame(f"t-{i}", game="cholek-tiga", seats=2, deals=3, rng=rng) for i in range(6)]
            runs = [game.play_into(store) for game in games]
            while runs:
                run = rng.choice(runs)
                if next(run, None) is None:
                    runs.remove(run)
        finally:
            pool.close()
        with connect(url) as conn:
            projections.catch_up_all(conn)
            pad_read_models(conn)
            conn.execute("ANALYZE")
        yield url


def pad_read_models(conn: psycopg.Connection[Any]) -> None:
    """A seed for each deal played, a closing refund for each account (and 5000 of other tables), 2000 players and
    idempotency keys, then COPIES more rows for each row of the read models and deal seeds (TABLE_COPIES for the
    streams, table views and their clock), under other ids."""
    conn.execute(
        f"""INSERT INTO deal_seeds (stream_id, deal_no, server_seed)
            SELECT stream_id, deal_no, sha256(convert_to(stream_id || deal_no, 'UTF8')) FROM events
            WHERE type = '{DEAL_STARTED}'"""
    )

    def copy(table: str, changes: str, copies: int = COPIES) -> None:
        conn.execute(
            f"""INSERT INTO {table} SELECT (jsonb_populate_record(t, jsonb_build_object({changes}))).*
                FROM {table} t, generate_series(1, {copies}) AS g"""
        )

    conn.execute(
        """INSERT INTO players (id, name, token_hash)
           SELECT lpad(g::text, 36, '0'), 'player ' || g, md5(g::text) FROM generate_series(1, 2000) AS g"""
    )
    conn.execute(
        """INSERT INTO idempotency_keys (scope, key, request_hash, answer)
           SELECT 'player', g::text, md5(g::text), '{}' FROM generate_series(1, 2000) AS g"""
    )
    conn.execute(
        """INSERT INTO closing_refunds (table_id, account, player_id, game, unit, amount, amount_cents, closed_at)
           SELECT DISTINCT ON (table_id, account) table_id, account, player_id, game, unit, 0, 0, settled_at
           FROM deal_settlements"""
    )
    copy("streams", "'stream_id', 'pad' || g || t.stream_id", TABLE_COPIES)
    conn.execute(
        """INSERT INTO closing_refunds (table_id, account, player_id, game, unit, amount, amount_cents, closed_at)
           SELECT 'closed-' || g, 'pool', NULL, 'cholek-tiga', 'cents', 0, 0, now() FROM generate_series(1, 5000) g"""
    )
    copy(
        "table_views", "'table_id', 'pad' || g || t.table_id, 'created_seq', t.created_seq + g * 1000000", TABLE_COPIES
    )
    copy("table_clock", "'table_id', 'pad' || g || t.table_id", TABLE_COPIES)
    copy("hand_tricks", "'table_id', 'pad' || g || t.table_id")
    copy("ledger_lines", "'table_id', 'pad' || g || t.table_id, 'global_position', t.global_position + g * 1000000")
    copy("settlements", "'table_id', 'pad' || g || t.table_id")
    copy("deal_settlements", "'table_id', 'pad' || g || t.table_id")
    copy("deal_seeds", "'stream_id', 'pad' || g || t.stream_id")


def plans_of(url: str, run: Callable[[Any], object], rows: str = "dict") -> list[dict[str, Any]]:
    """The generic plans (with actual rows) of the statements `run` sends on a fresh connection."""
    notes: list[str] = []
    with connect(url) if rows == "dict" else psycopg.connect(url, autocommit=True) as conn:
        try:
            conn.execute("LOAD 'auto_explain'")
        except psycopg.Error:
            pytest.skip("the server has no auto_explain")
        for name, value in (
            ("auto_explain.log_min_duration", "0"),
            ("auto_explain.log_analyze", "on"),
            ("auto_explain.log_timing", "off"),
            ("auto_explain.log_format", "json"),
            ("auto_explain.log_level", "notice"),
            ("plan_cache_mode", "force_generic_plan"),
        ):
            conn.execute(f"SET {name} = '{value}'")
        conn.add_notice_handler(lambda diagnostic: notes.append(diagnostic.message_primary or ""))
        run(conn)
    return [json.loads(note.split("plan:", 1)[1])["Plan"] for note in notes if "plan:" in note]


def nodes(plan: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield plan
    for child in plan.get("Plans", []):
        yield from nodes(child)


def some_table(url: str) -> tuple[str, int, int]:
    """A played table: (id, its last deal, its head version)."""
    with connect(url) as conn:
        row = conn.execute(
            "SELECT stream_id, max(deal_no) AS deal, max(version) AS version FROM events WHERE stream_id = 't-3'"
            " GROUP BY stream_id"
        ).fetchone()
    assert row is not None
    return str(row["stream_id"]), int(row["deal"]), int(row["version"])


def middle_of_log(url: str) -> LogPosition:
    with connect(url) as conn:
        row = conn.execute(
            "SELECT tx_id, global_position FROM events ORDER BY tx_id, global_position OFFSET 100 LIMIT 1"
        ).fetchone()
    assert row is not None
    return LogPosition(int(row["tx_id"]), int(row["global_position"]))


def near_end_of_log(url: str) -> LogPosition:
    with connect(url) as conn:
        row = conn.execute(
            "SELECT tx_id, global_position FROM events ORDER BY tx_id DESC, global_position DESC OFFSET 20 LIMIT 1"
        ).fetchone()
    assert row is not None
    return LogPosition(int(row["tx_id"]), int(row["global_position"]))


def as_text(position: LogPosition) -> tuple[str, int]:
    return str(position.tx_id), position.global_position


TABLE = "t-3"
ONE_TABLE = settlements.SettlementFilter(None, None, None, TABLE)
A_PLAYER = settlements.SettlementFilter(None, None, "0" * 36, None)
Case = tuple[str, Callable[[Any, str], object], str, str]  # id, call(conn, url), row kind, index expected

CASES: list[Case] = [
    # the relay and the workers' reads of the log
    ("read_log", lambda c, u: read_log_in(c, middle_of_log(u), 500), "dict", "events_commit_order"),
    ("committed_after", lambda c, u: committed_after_in(c, near_end_of_log(u)), "dict", "events_commit_order"),
    # the lag gauges
    ("newest_occurred_at", lambda c, u: log_lag.newest_occurred_at(c), "tuple", "events_commit_order"),
    (
        "events_after",
        lambda c, u: log_lag.events_after(c, as_text(near_end_of_log(u))),
        "tuple",
        "events_commit_order",
    ),
    (
        "occurred_at",
        lambda c, u: log_lag.occurred_at(c, as_text(near_end_of_log(u))),
        "tuple",
        "events_commit_order",
    ),
    # a rebuild's reads
    (
        "count_between",
        lambda c, u: checkpoint.count_between(c, near_end_of_log(u), near_end_of_log(u)),
        "dict",
        "events_commit_order",
    ),
    (
        "read_log_between",
        lambda c, u: checkpoint.read_log_between(c, middle_of_log(u), near_end_of_log(u), 50),
        "dict",
        "events_commit_order",
    ),
    # the API's loads of a table and its seeds, the view reads
    ("table_events", lambda c, u: load_table_events(c, TABLE), "dict", "events_deal_starts"),
    ("table_events_up_to", lambda c, u: load_table_events(c, TABLE, 40), "dict", "events_deal_starts"),
    ("events_after_version", lambda c, u: load_events_after(c, TABLE, 30, 5), "dict", "events_pkey"),
    ("read_stream", lambda c, u: read_stream_in(c, TABLE, 30, 40), "dict", "events_pkey"),
    ("seeds", lambda c, u: seeds_for(c, TABLE, [1, 2]), "dict", "deal_seeds_pkey"),
    ("player", lambda c, u: player_for_token(c, "0" * 36 + ".token"), "dict", "players_pkey"),
    ("table_view", lambda c, u: table_views.projected_table_view(c, TABLE), "dict", "table_views_pkey"),
    ("seat_view", lambda c, u: table_views.projected_seat_view(c, TABLE, "nobody"), "dict", "table_views_pkey"),
    ("lobby", lambda c, u: table_views.lobby_rows(c, "playing", None, 0, 20), "dict", "table_views_lobby"),
    # the turn clock's sweep
    (
        "turn_due",
        lambda c, u: table_views.tables_with_turn_due(c, __import__("datetime").datetime(2000, 1, 1), 50),
        "dict",
        "table_clock_turn_deadline",
    ),
    (
        "vacant_since",
        lambda c, u: table_views.tables_vacant_since(c, __import__("datetime").datetime(2000, 1, 1), 50),
        "dict",
        "table_clock_vacant_since",
    ),
    # the projection workers' look-ups
    (
        "table_heads",
        lambda c, u: _table_heads(c, Lru(10), [TABLE, "t-1"]),
        "dict",
        "events_deal_starts",
    ),
    (
        "deal_players",
        lambda c, u: table_heads(c, ProjectionCaches(), [TABLE], [(TABLE, 2)]),
        "dict",
        "events_deal_starts",
    ),
    (
        "pending_settlements",
        lambda c, u: c.execute(_PENDING_OF, ([TABLE, "t-1"], [2, 3])).fetchall(),
        "dict",
        "deal_settlements_",  # the key, a table's or the unsettled rows' index, as the counts of rows make best
    ),
    # the history and audit reads
    ("ledger_first", lambda c, u: ledger_lines.first_lines(c, TABLE, 200), "dict", "ledger_lines_table"),
    ("ledger_after", lambda c, u: ledger_lines.lines_after(c, TABLE, 0, 0, 200), "dict", "ledger_lines_table"),
    ("ledger_totals", lambda c, u: ledger_lines.account_totals(c, TABLE), "dict", "ledger_lines_table"),
    (
        "deal_start_and_end",
        lambda c, u: deal_events.one_deal_start_and_end_rows(c, TABLE, 2),
        "dict",
        "events_deal_starts",
    ),
    ("openings", lambda c, u: deal_events.opening_and_seating_rows(c, [TABLE]), "dict", "events_milestones"),
    ("write_start", lambda c, u: deal_events.first_version_of_write(c, TABLE, 40), "dict", "events_commit_order"),
    ("timed_out", lambda c, u: deal_events.timed_out_counts(c, TABLE, 30, 60), "dict", "events_pkey"),
    ("deal_starts_and_ends", lambda c, u: deal_events.deal_start_and_end_rows(c, TABLE), "dict", "events_deal_starts"),
    ("stream_version", lambda c, u: stream_version_in(c, TABLE), "dict", "streams_pkey"),
    ("idempotency", lambda c, u: find_idempotency_in(c, "player", "key"), "dict", "idempotency_keys_pkey"),
    ("report_tables", lambda c, u: settlements.settled_table_ids(c, A_PLAYER, None, 100), "dict", "deal_settlements_"),
    ("report_sums", lambda c, u: settlements.account_sums(c, ONE_TABLE, [TABLE]), "dict", "deal_settlements_"),
    ("report_deals", lambda c, u: settlements.deal_counts(c, ONE_TABLE, [TABLE]), "dict", "deal_settlements_"),
    ("report_disagreeing", lambda c, u: settlements.disagreeing_rows(c, ONE_TABLE, [TABLE]), "dict", "deal_settl"),
    ("v1_private", lambda c, u: deal_holds_v1_private_in(c, TABLE, 2), "dict", "events_deal_starts"),
]


@pytest.mark.parametrize(("call", "rows", "index"), [case[1:] for case in CASES], ids=[case[0] for case in CASES])
def test_its_generic_plan_reads_an_index_not_the_table(
    history: str, call: Callable[[Any, str], object], rows: str, index: str
) -> None:
    plans = plans_of(history, lambda conn: call(conn, history), rows)
    assert plans, "no statement was explained"
    scanned = [node for plan in plans for node in nodes(plan) if "Relation Name" in node]
    seq = [node["Relation Name"] for node in scanned if node["Node Type"] == "Seq Scan"]
    assert not [name for name in seq if name not in SMALL], json.dumps(plans, indent=1)
    used = {node.get("Index Name") for plan in plans for node in nodes(plan)}
    assert any(name is not None and name.startswith(index) for name in used), json.dumps(plans, indent=1)


def test_the_history_has_several_deals_per_table(history: str) -> None:
    with connect(history) as conn:
        row = conn.execute(
            f"SELECT count(*) AS events, count(*) FILTER (WHERE type = '{DEAL_ENDED}') AS ends FROM events"
        ).fetchone()
    assert row is not None and row["events"] > 1000 and row["ends"] >= 12, row
