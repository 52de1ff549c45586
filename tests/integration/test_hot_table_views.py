"""The table views' updates are HOT (heap-only tuples) and the clock's times are written only when they change
(migration 016: the times in `table_clock`, a fillfactor on `table_views`), read from PostgreSQL's own counters."""

from __future__ import annotations

import random
from typing import Any

import psycopg

from infra import projections
from infra.event_store import EventStore
from tests.faults.workload import TableGame

Conn = psycopg.Connection[dict[str, Any]]


def updates(conn: Conn, table: str) -> tuple[int, int]:
    """(rows updated, of which HOT) of `table`, this backend's counts flushed first."""
    conn.execute("SELECT pg_stat_force_next_flush()")  # flushed when the backend goes idle, before the next query
    conn.execute("SELECT pg_stat_clear_snapshot()")
    row = conn.execute(
        "SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE relname = %s", (table,)
    ).fetchone()
    assert row is not None
    return int(row["n_tup_upd"]), int(row["n_tup_hot_upd"])


def test_table_view_updates_are_hot_and_the_clock_is_written_when_its_times_change(
    store: EventStore, conn: Conn
) -> None:
    rng = random.Random(16)
    games = [TableGame(f"hot-{n}", game="cholek-tiga", seats=2, rng=rng) for n in range(6)]  # a 60 s turn clock
    runs = [game.play_into(store) for game in games]
    while runs:
        run = rng.choice(runs)
        if next(run, None) is None:
            runs.remove(run)
    views_before, clock_before = updates(conn, "table_views"), updates(conn, "table_clock")
    applied = projections.catch_up(conn, "table_views", batch_size=1)  # a row update per event
    views, clock = updates(conn, "table_views"), updates(conn, "table_clock")
    updated, hot = views[0] - views_before[0], views[1] - views_before[1]
    assert applied == sum(game.state.version for game in games if game.state is not None)
    assert updated == applied - len(games)  # every event but each table's first updates its row
    # Before migration 016 the turn deadline, indexed, changed at nearly every event, and no update was HOT.
    assert hot > updated / 2, (updated, hot)
    clock_updated = clock[0] - clock_before[0]
    deadlines = {
        row["table_id"]: row["turn_deadline"] for row in conn.execute("SELECT table_id, turn_deadline FROM table_clock")
    }
    assert deadlines == {game.table_id: None for game in games}  # closed: nobody to act
    # The events of one append share a time, so the deadline moves at most once per append, not per event.
    assert 0 < clock_updated < updated, (clock_updated, updated)
