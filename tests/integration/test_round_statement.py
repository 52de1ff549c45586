"""A batch that is only upserts goes in one statement with the checkpoints' move
(`infra.projections.round_statement`): one round trip after the look, exactly once, and only for the
checkpoints that statement moved."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from typing import Any

import psycopg
from psycopg.rows import dict_row

from infra import projections
from infra.event_store import EventStore, LogPosition, RecordedEvent, read_log_in
from infra.projections.checkpoint import checkpoint_name, read_log_between, read_position
from services.projector.rebuild import rebuild
from tests.faults.workload import TableGame, play_tables
from tests.round_trips import Trace, in_a_transaction, round_trips

Conn = psycopg.Connection[dict[str, Any]]


def in_one_statement(events: list[RecordedEvent]) -> bool:
    """Whether every projection either upserts the batch or writes nothing for it."""
    return all(
        p.upsert is not None or (p.idle_for is not None and p.idle_for(events))
        for p in projections.PROJECTIONS.values()
    )


def log(conn: Conn) -> list[RecordedEvent]:
    last = conn.execute("SELECT tx_id, global_position FROM events ORDER BY tx_id DESC, global_position DESC LIMIT 1")
    row = last.fetchone()
    assert row is not None
    return read_log_between(conn, LogPosition(), LogPosition(int(row["tx_id"]), int(row["global_position"])), 100_000)


def visible_after(conn: Conn, after: LogPosition, version: int) -> list[RecordedEvent]:
    """The events after `after` once a catch-up can see the table's event at `version` (a transaction elsewhere on
    the server holds back the log's commit-safe horizon at times)."""
    deadline = time.monotonic() + 30
    while True:
        events = read_log_in(conn, after, 1000)
        if any(event.version == version for event in events) or time.monotonic() > deadline:
            return events
        time.sleep(0.05)


def play_until_one_statement_takes(
    conn: Conn, game: TableGame, run: Iterator[object]
) -> tuple[LogPosition, list[RecordedEvent]]:
    """Past the deal's opening, catch up, then append until the events after the catch-up are a batch the one
    statement takes: the table views' checkpoint before them, and those events."""
    while game.state is None or game.state.deal_no < 1 or game.state.version < 12:
        next(run)
    projections.catch_up_all(conn)
    while True:
        before = read_position(conn, checkpoint_name("table_views"))
        next(run)
        assert game.state is not None
        new = visible_after(conn, before, game.state.version)
        if in_one_statement(new):
            return before, new
        projections.catch_up_all(conn)


def test_a_round_of_upserts_is_the_look_and_one_round_trip_and_the_models_equal_their_rebuild(
    store: EventStore, conn: Conn, db_url: str
) -> None:
    play_tables(store, count=3, deals=2, seed=41, game="cholek-tiga")
    events = log(conn)
    trace = Trace([conn])
    rounds: list[list[str]] = []  # what each round sent, one event a round, in the log's order
    known = projections.Checkpoints()
    applied, deadline = 0, time.monotonic() + 60
    while applied < len(events) and time.monotonic() < deadline:  # the horizon is held back elsewhere at times
        start = trace.mark()

        def mark(counts: dict[str, int], start: list[int] = start) -> None:
            rounds.append(trace.between(start, end := trace.mark()))
            start[:] = end

        applied += projections.catch_up_all(conn, batch_size=1, checkpoints=known, on_batch=mark)["table_views"]
    trace.close()
    assert applied == len(rounds) == len(events)
    alone = [in_one_statement([event]) for event in events]
    began = [in_a_transaction(lines) for lines in rounds]
    trips = [round_trips(lines) for lines in rounds]
    assert sum(alone) > len(alone) / 2
    # The first round read the checkpoints; a round of upserts is the look and one statement, outside any
    # transaction block; the heads of tables not yet full are read again at each round (they may change).
    assert not any(begun for begun, one in zip(began[1:], alone[1:], strict=True) if one)
    assert all(begun for begun, one in zip(began, alone, strict=True) if not one)
    two = [count for count, one in zip(trips[1:], alone[1:], strict=True) if one]
    assert two.count(2) >= 0.9 * len(two), trips
    assert all(report.equal for report in rebuild(db_url, None, progress=False))


def test_a_checkpoint_held_elsewhere_is_left_out_of_the_one_statement(
    store: EventStore, conn: Conn, db_url: str
) -> None:
    game = TableGame("held", game="cholek-tiga", seats=3, deals=1, rng=random.Random(5))
    run = game.play_into(store)
    before, new = play_until_one_statement_takes(conn, game, run)
    version = conn.execute("SELECT version FROM table_views WHERE table_id = 'held'").fetchone()
    with psycopg.connect(db_url, row_factory=dict_row) as holder:  # a rebuild of the table views, say
        holder.execute("SELECT 1 FROM log_positions WHERE name = %s FOR UPDATE", (checkpoint_name("table_views"),))
        conn.execute("SET lock_timeout = '2s'")  # waiting for the lock would fail, not hang
        applied = projections.catch_up_all(conn)
        conn.execute("RESET lock_timeout")
        assert conn.execute("SELECT version FROM table_views WHERE table_id = 'held'").fetchone() == version
        holder.rollback()
    assert applied == {name: (0 if name == "table_views" else len(new)) for name in projections.NAMES}
    assert read_position(conn, checkpoint_name("table_views")) == before
    assert read_position(conn, checkpoint_name("hand_tricks")) == new[-1].log_position
    assert projections.catch_up_all(conn) == {
        name: (len(new) if name == "table_views" else 0) for name in projections.NAMES
    }
    row = conn.execute("SELECT version FROM table_views WHERE table_id = 'held'").fetchone()
    assert row == {"version": game.state.version}
    assert all(report.equal for report in rebuild(db_url, None, progress=False))
