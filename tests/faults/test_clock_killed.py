"""The turn clock survives the death of the process holding a timeout: a projection worker whose clock has
decided to act for a seat, and is between that decision and its append, is killed with SIGKILL; the standby
clock of another worker takes over and the turn gets exactly one action (and the log stays verifiable).

The workers are started as in production (`python -m services.projector`, whose clock thread sweeps while it
holds the clock's advisory lock), against the test database and a private redis-server.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool

from domain import table as tables
from infra.event_store import EventStore
from infra.storage.postgres import PostgresStorage
from services.app.audit.service import verify_tables
from services.app.ledger import CardLedger
from services.clock import CLOCK_LOCK_KEY
from tests.faults.delayed import CLOCK_DELAY_VARIABLE as DELAY_VARIABLE
from tests.faults.servers import ROOT, RedisServer, terminate, wait_until
from tests.play import register


def worker(db_url: str, redis_url: str, log: Path, **env: str) -> subprocess.Popen[bytes]:
    environ = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "DATABASE_URL": db_url,
        "REDIS_URL": redis_url,
        "CARDLEDGER_LOG_LEVEL": "INFO",
        "CARDLEDGER_WORKER_METRICS_PORT": "0",
        **env,
    }
    with log.open("ab") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "tests.faults.delayed", "services.projector"], cwd=ROOT, env=environ, stderr=out
        )


def clock_holder(db_url: str) -> int | None:
    """The backend pid holding the clock's advisory lock, if any."""
    with psycopg.connect(db_url, autocommit=True) as conn:
        row = conn.execute(
            """SELECT pid FROM pg_locks
               WHERE locktype = 'advisory' AND granted AND database = (SELECT oid FROM pg_database
                                                                        WHERE datname = current_database())
                 AND ((classid::bigint << 32) | objid::bigint) = %s""",
            (CLOCK_LOCK_KEY,),
        ).fetchone()
    return None if row is None else int(row[0])


@pytest.mark.slow
def test_a_clock_killed_mid_timeout_is_taken_over_and_the_turn_gets_one_action(
    pool: ConnectionPool[Any], store: EventStore, db_url: str, redis_server: RedisServer, tmp_path: Path
) -> None:
    ledger = CardLedger(PostgresStorage(pool, store), None)
    players = [register(ledger, f"p{n}") for n in range(2)]
    table_id = str(ledger.open_table(players[0], "cholek-tiga", 2, {"turn_seconds": 5})["id"])
    slow_log, standby_log = tmp_path / "slow.log", tmp_path / "standby.log"
    slow = worker(db_url, redis_server.url, slow_log, **{DELAY_VARIABLE: "120"})
    standby: subprocess.Popen[bytes] | None = None
    try:
        wait_until(lambda: clock_holder(db_url) is not None, timeout=30, what="the slow worker's clock active")
        standby = worker(db_url, redis_server.url, standby_log)
        time.sleep(1.0)  # the standby tries the lock, finds it held and waits
        for seat, caller in enumerate(players):
            ledger.sit(caller, table_id, seat, f"seed-{seat}")
        state = ledger.queries.load_state(table_id)
        deadline = tables.turn_deadline(state)
        assert state.status == tables.PLAYING and deadline is not None
        # The slow clock finds the expired turn, decides, and pauses before its append: kill it there.
        wait_until(lambda: b"pausing" in slow_log.read_bytes(), timeout=30, what="the slow clock holding the turn")
        assert store.stream_version(table_id) == state.version  # nothing appended by it
        slow.send_signal(signal.SIGKILL)
        slow.wait()
        # The standby's clock takes the lock over and acts on the very turn, once.
        wait_until(
            lambda: (store.stream_version(table_id) or 0) > state.version, timeout=30, what="the standby clock acting"
        )
    finally:
        terminate(slow)
        if standby is not None:
            terminate(standby)
    events = store.read_stream(table_id, from_version=state.version + 1)
    first = events[0]
    assert first.metadata["actor"] == tables.CLOCK_ACTOR and first.data["timed_out"] is True
    assert first.data["seat"] == tables.to_act(state)
    assert first.occurred_at >= deadline
    # One action per turn: each append after the seating starts with one action, the clock's each time.
    appends = {}
    for event in events:
        appends.setdefault(event.tx_id, event)
    for event in appends.values():
        assert event.data.get("timed_out") is True and event.metadata["actor"] == tables.CLOCK_ACTOR
    assert sum(1 for e in events if e.data.get("timed_out")) == len(appends)
    assert verify_tables(pool, table_id, progress=False).ok
    with psycopg.connect(db_url, autocommit=True, row_factory=dict_row) as conn:
        assert conn.execute("SELECT count(*) AS n FROM events WHERE stream_id = %s", (table_id,)).fetchone() == {
            "n": state.version + len(events)
        }
