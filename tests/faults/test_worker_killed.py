"""A projection worker process killed with SIGKILL in the middle of a batch changes nothing half-way."""

from __future__ import annotations

import random
import signal

import psycopg
import pytest
from psycopg.rows import dict_row

from infra import projections
from infra.event_store import EventStore
from infra.projections.checkpoint import checkpoint_name, read_position
from services.projector.rebuild import rebuild
from tests.faults.delayed import BATCH_DELAY_VARIABLE as DELAY_VARIABLE
from tests.faults.servers import RedisServer, spawn, terminate, wait_until
from tests.faults.workload import TableGame, play_tables
from tests.integration.test_round_statement import play_until_one_statement_takes


def open_batch(db_url: str) -> bool:
    """True while a session of the test database sits inside an open transaction (the slowed batch)."""
    with psycopg.connect(db_url) as conn:
        row = conn.execute(
            """SELECT count(*) FROM pg_stat_activity
               WHERE datname = current_database() AND state = 'idle in transaction' AND pid <> pg_backend_pid()"""
        ).fetchone()
    return row is not None and int(row[0]) > 0


def caught_up(conn: psycopg.Connection[dict[str, object]]) -> bool:
    last = conn.execute("SELECT max(global_position) AS p FROM events").fetchone()
    assert last is not None
    return all(read_position(conn, checkpoint_name(name)).global_position == last["p"] for name in projections.NAMES)


def kill_a_worker_mid_batch(db_url: str, redis_server: RedisServer) -> None:
    """A projection worker, slowed inside its batches, killed (SIGKILL) while one is open; returns once the
    server has rolled that batch back."""
    first = spawn("services.projector", db_url, redis_server.url, **{DELAY_VARIABLE: "30"})
    try:
        wait_until(lambda: open_batch(db_url), timeout=30, what="a batch in progress")
        first.send_signal(signal.SIGKILL)
        first.wait()
    finally:
        terminate(first)
    wait_until(lambda: not open_batch(db_url), timeout=30, what="the killed batch rolled back")


@pytest.mark.slow
def test_sigkill_mid_batch_then_restart_equals_rebuild(
    store: EventStore, db_url: str, redis_server: RedisServer
) -> None:
    play_tables(store, count=12, deals=1, seed=81)  # more than one batch of 500
    with psycopg.connect(db_url, autocommit=True, row_factory=dict_row) as conn:
        kill_a_worker_mid_batch(db_url, redis_server)
        # Nothing of the killed batch remains: no checkpoint moved, every model is empty.
        assert all(read_position(conn, checkpoint_name(n)).global_position == 0 for n in projections.NAMES)
        for table in ("table_views", "hand_tricks", "ledger_lines", "settlements", "deal_settlements"):
            row = conn.execute(f"SELECT count(*) AS n FROM {table}").fetchone()
            assert row is not None and row["n"] == 0, table
        second = spawn("services.projector", db_url, redis_server.url)
        try:
            wait_until(lambda: caught_up(conn), timeout=60, what="the restarted worker caught up")
        finally:
            terminate(second)
    reports = rebuild(db_url, None, progress=False)
    assert all(report.equal for report in reports), [r.summary() for r in reports]


@pytest.mark.slow
def test_sigkill_between_batches_keeps_committed_batches(
    store: EventStore, db_url: str, redis_server: RedisServer
) -> None:
    play_tables(store, count=20, deals=1, seed=82)
    with psycopg.connect(db_url, autocommit=True, row_factory=dict_row) as conn:
        worker = spawn("services.projector", db_url, redis_server.url, **{DELAY_VARIABLE: "0.4"})
        try:
            wait_until(
                lambda: read_position(conn, checkpoint_name("table_views")).global_position > 0,
                timeout=30,
                what="a first committed batch",
            )
            worker.send_signal(signal.SIGKILL)
            worker.wait()
        finally:
            terminate(worker)
        wait_until(lambda: not open_batch(db_url), timeout=30, what="the killed batch rolled back")
        assert not caught_up(conn)
        # What was committed equals a rebuild up to the same checkpoints.
        partial = {name: projections.digest(conn, name) for name in projections.NAMES}
        assert partial["table_views"][1] > 0
        worker = spawn("services.projector", db_url, redis_server.url)
        try:
            wait_until(lambda: caught_up(conn), timeout=60, what="the restarted worker caught up")
        finally:
            terminate(worker)
    reports = rebuild(db_url, None, progress=False)
    assert all(report.equal for report in reports), [r.summary() for r in reports]


@pytest.mark.slow
def test_sigkill_mid_batch_of_one_statement_then_restart_equals_rebuild(
    store: EventStore, db_url: str, redis_server: RedisServer
) -> None:
    """A batch of upserts only (`infra.projections.round_statement`) killed before its commit moves nothing."""
    game = TableGame("quiet", game="cholek-tiga", seats=3, deals=1, rng=random.Random(6))
    run = game.play_into(store)
    with psycopg.connect(db_url, autocommit=True, row_factory=dict_row) as conn:
        before, _ = play_until_one_statement_takes(conn, game, run)
        version = conn.execute("SELECT version FROM table_views WHERE table_id = 'quiet'").fetchone()
        kill_a_worker_mid_batch(db_url, redis_server)
        assert all(read_position(conn, checkpoint_name(n)) == before for n in projections.NAMES)
        assert conn.execute("SELECT version FROM table_views WHERE table_id = 'quiet'").fetchone() == version
        second = spawn("services.projector", db_url, redis_server.url)
        try:
            wait_until(lambda: caught_up(conn), timeout=60, what="the restarted worker caught up")
        finally:
            terminate(second)
        assert game.state is not None
        assert conn.execute("SELECT version FROM table_views WHERE table_id = 'quiet'").fetchone() == {
            "version": game.state.version
        }
    reports = rebuild(db_url, None, progress=False)
    assert all(report.equal for report in reports), [r.summary() for r in reports]
