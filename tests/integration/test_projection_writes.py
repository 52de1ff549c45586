"""The table projections write every row that changed, batch after batch: after each live-sized batch, each
table view, seat view and tricks count equals what the log up to the checkpoint says, so a view that
changed but was not written (the projections write only what a batch changed) is seen at once, not only if
no later batch happens to write it again."""

from __future__ import annotations

import random
import time
from typing import Any

import psycopg
import pytest

from domain.events import Event
from domain.games import game_named
from domain.table import TableState, evolve, public_view, seat_private, seat_view
from infra import projections
from infra.event_store import EventStore, LogPosition
from infra.projections.checkpoint import checkpoint_name, read_log_between, read_position
from infra.sql.table_views import projected_seat_view
from tests.faults.workload import TableGame

Conn = psycopg.Connection[dict[str, Any]]


class Oracle:
    """The table projections' rows as the log up to a position says, folded event by event."""

    def __init__(self) -> None:
        self.position = LogPosition()
        self.states: dict[str, TableState] = {}
        self.tricks: dict[tuple[str, int, int], int] = {}

    def advance(self, conn: Conn, until: LogPosition) -> None:
        for event in read_log_between(conn, self.position, until, 100_000):
            state = evolve(self.states.get(event.stream_id), Event(event.type, event.data, event.occurred_at))
            self.states[event.stream_id] = state
            tricks = public_view(state).get("tricks") if state.deal_no >= 1 and state.deal is not None else None
            if game_named(state.game).counts_tricks and isinstance(tricks, list):
                for seat, count in enumerate(tricks):
                    self.tricks[(event.stream_id, state.deal_no, seat)] = int(count)
        self.position = until

    def check(self, conn: Conn) -> None:
        table_views = {
            row["table_id"]: (row["version"], row["view"], row["seat_parts_version"], row["seat_parts"])
            for row in conn.execute("SELECT table_id, version, view, seat_parts_version, seat_parts FROM table_views")
        }
        assert table_views == {
            table_id: (
                state.version,
                public_view(state),
                state.version,
                {player: seat_private(state, seat) for seat, player in enumerate(state.players) if player is not None},
            )
            for table_id, state in self.states.items()
        }
        # Each seated player's view as the API's read puts it together: the seat view of the state.
        for table_id, state in self.states.items():
            for seat, player in enumerate(state.players):
                if player is not None:
                    found = projected_seat_view(conn, table_id, player)
                    assert found is not None and (found[0], found[2]) == (state.version, seat_view(state, seat))
        tricks = {
            (row["table_id"], row["deal_no"], row["seat"]): row["tricks"]
            for row in conn.execute("SELECT table_id, deal_no, seat, tricks FROM hand_tricks")
        }
        assert tricks == self.tricks


def play(store: EventStore, seed: int) -> None:
    rng = random.Random(seed)
    games = [
        TableGame(f"w{seed}-{i}", game=game, seats=seats, deals=2, rng=rng)
        for i, (game, seats) in enumerate([("cha-kau-tsz", 2), ("cha-kau-tsz", 4), ("cholek-tiga", 3)])
    ]
    runs = [game.play_into(store) for game in games]
    while runs:
        run = rng.choice(runs)
        if next(run, None) is None:
            runs.remove(run)


@pytest.mark.parametrize("batch_size", [1, 3, 7])
def test_after_every_batch_each_table_row_is_what_the_log_so_far_says(
    store: EventStore, conn: Conn, batch_size: int
) -> None:
    play(store, seed=batch_size)
    oracle = Oracle()
    batches = 0

    def check(_counts: dict[str, int]) -> None:
        nonlocal batches
        batches += 1
        oracle.advance(conn, read_position(conn, checkpoint_name("table_views")))
        oracle.check(conn)

    total = conn.execute("SELECT count(*) AS n FROM events").fetchone()
    assert total is not None
    applied, deadline = 0, time.monotonic() + 60
    # A transaction elsewhere on the server holds back the log's commit-safe horizon at times: go on.
    while applied < total["n"] and time.monotonic() < deadline:
        applied += projections.catch_up_all(conn, batch_size=batch_size, on_batch=check)["table_views"]
    assert applied == total["n"] and batches >= total["n"] // batch_size
    assert len(oracle.states) == 3 and len(oracle.tricks) > 0
