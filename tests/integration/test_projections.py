"""Projections against the real PostgreSQL: models, exactly-once batches, rebuild equals live, ledger balance."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterable
from typing import Any

import psycopg
import pytest
from psycopg.rows import dict_row

from domain.events import Event
from domain.table import TableState, public_view, seat_view
from infra import projections
from infra.db import open_pool
from infra.event_store import EventStore, LogPosition, NewEvent
from infra.migrations import migrate
from infra.projections import heads
from infra.projections.checkpoint import (
    checkpoint_name,
    ensure_positions,
    move_positions_if_free,
    read_position,
    read_positions,
)
from infra.sql.table_views import projected_seat_view
from infra.table_loader import load_table
from services.projector.rebuild import connect, rebuild, rebuild_one
from tests.conftest import fresh_database
from tests.faults.workload import TableGame, play_tables
from tests.horizon import wait_until_readable

Conn = psycopg.Connection[dict[str, Any]]


def scalar(conn: Conn, query: str, *params: object) -> Any:
    row = conn.execute(query, params).fetchone()
    assert row is not None
    return next(iter(row.values()))


def digests(conn: Conn) -> dict[str, tuple[str, int]]:
    return {name: projections.digest(conn, name) for name in projections.NAMES}


def test_models_match_the_folded_tables(store: EventStore, conn: Conn, db_url: str) -> None:
    play_tables(store, count=6, deals=2, seed=11)
    wait_until_readable(db_url)  # every event played is past the commit-safe horizon
    applied = projections.catch_up_all(conn, batch_size=37)  # odd batches split commands and deals
    total = scalar(conn, "SELECT count(*) FROM events")
    assert applied == dict.fromkeys(projections.NAMES, total)
    tables = [r["stream_id"] for r in conn.execute("SELECT stream_id FROM streams ORDER BY stream_id")]
    assert scalar(conn, "SELECT count(*) FROM table_views") == len(tables)
    for table_id in tables:
        state = load_table(conn, table_id)
        assert state is not None
        row = conn.execute("SELECT * FROM table_views WHERE table_id = %s", (table_id,)).fetchone()
        assert row is not None
        assert row["view"] == public_view(state)
        assert (row["status"], row["version"], row["game"], row["seats"]) == (
            state.status,
            state.version,
            state.game,
            state.seats,
        )
        opened = scalar(conn, "SELECT global_position FROM events WHERE stream_id = %s AND version = 1", table_id)
        assert row["created_seq"] == opened
        assert row["seat_parts_version"] == state.version
        seated = [(seat, player) for seat, player in enumerate(state.players) if player is not None]
        assert set(row["seat_parts"]) == {player for _, player in seated}
        for seat, player in seated:
            assert projected_seat_view(conn, table_id, player) == (state.version, state.version, seat_view(state, seat))
        for deal in conn.execute(
            "SELECT deal_no, data FROM events WHERE stream_id = %s AND type = 'deal_ended'", (table_id,)
        ).fetchall():
            tricks = conn.execute(
                "SELECT tricks FROM hand_tricks WHERE table_id = %s AND deal_no = %s ORDER BY seat",
                (table_id, deal["deal_no"]),
            ).fetchall()
            assert [t["tricks"] for t in tricks] == deal["data"]["result"]["tricks"]
    for name in projections.NAMES:
        position = read_position(conn, checkpoint_name(name))
        assert position.global_position > 0


def test_the_table_projections_fold_each_event_once(
    store: EventStore, conn: Conn, db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    play_tables(store, count=4, deals=2, seed=12)
    wait_until_readable(db_url)  # every event played is past the commit-safe horizon
    folded: list[str] = []
    real_fold = heads.fold

    def counting_fold(state: TableState | None, events: Iterable[Event]) -> TableState:
        events = list(events)
        folded.extend(event.type for event in events)
        return real_fold(state, events)

    monkeypatch.setattr(heads, "fold", counting_fold)
    projections.catch_up_all(conn, batch_size=29)
    # table_views folds each batch; hand_tricks takes its states.
    assert len(folded) == scalar(conn, "SELECT count(*) FROM events")
    assert scalar(conn, "SELECT count(*) FROM hand_tricks") > 0


def test_ledger_balances_per_deal_and_settlements_add_up(store: EventStore, conn: Conn, db_url: str) -> None:
    play_tables(store, count=5, deals=3, seed=5)
    wait_until_readable(db_url)  # every event played is past the commit-safe horizon
    projections.catch_up_all(conn)
    assert scalar(conn, "SELECT count(*) FROM ledger_lines") > 0
    unbalanced = conn.execute(
        """SELECT table_id, deal_no, unit, sum(amount) AS total, sum(amount_cents) AS cents
           FROM ledger_lines GROUP BY table_id, deal_no, unit HAVING sum(amount) <> 0 OR sum(amount_cents) <> 0"""
    ).fetchall()
    assert unbalanced == []
    # Each deal's ledger matches the deal's announced net per seat.
    for deal in conn.execute("SELECT stream_id, deal_no, data FROM events WHERE type = 'deal_ended'").fetchall():
        lines = conn.execute(
            """SELECT account, sum(amount) AS amount, sum(amount_cents) AS cents FROM ledger_lines
               WHERE table_id = %s AND deal_no = %s AND account LIKE 'seat:%%' GROUP BY account""",
            (deal["stream_id"], deal["deal_no"]),
        ).fetchall()
        by_seat = {int(r["account"].removeprefix("seat:")): (r["amount"], r["cents"]) for r in lines}
        result = deal["data"]["result"]
        for seat, net in enumerate(result["net"]):
            assert by_seat.get(seat, (0, 0)) == (net, result["net_cents"][seat])
    # Settlements equal the ledger's per-player sums; deals are counted.
    mismatched = conn.execute(
        """SELECT s.player_id, s.table_id FROM settlements s
           LEFT JOIN (SELECT player_id, table_id, sum(amount_cents) AS cents FROM ledger_lines
                      WHERE player_id IS NOT NULL GROUP BY player_id, table_id) l USING (player_id, table_id)
           WHERE s.net_cents <> coalesce(l.cents, 0)"""
    ).fetchall()
    assert mismatched == []
    assert scalar(conn, "SELECT count(*) FROM settlements WHERE deals <> 3") == 0
    assert scalar(conn, "SELECT sum(net_amount) + 0 FROM settlements") == -scalar(
        conn, "SELECT coalesce(sum(amount), 0) + 0 FROM ledger_lines WHERE account = 'pool'"
    )


def test_every_batch_delivered_twice_changes_nothing_twice(store: EventStore, conn: Conn, db_url: str) -> None:
    play_tables(store, count=4, deals=2, seed=3)
    wait_until_readable(db_url)  # every event played is past the commit-safe horizon
    # Every job runs twice, concurrently, from two connections: the second finds nothing left.
    with psycopg.connect(db_url, autocommit=True, row_factory=dict_row) as other:
        for name in projections.NAMES:
            results: list[int] = []
            t = threading.Thread(
                target=lambda n=name, out=results: out.append(projections.catch_up(other, n, batch_size=50))
            )
            t.start()
            results.append(projections.catch_up(conn, name, batch_size=50))
            t.join()
            assert sum(results) == scalar(conn, "SELECT count(*) FROM events"), (name, results)
    once = digests(conn)
    ledger_total = scalar(conn, "SELECT sum(abs(amount)) + 0 FROM ledger_lines")
    for name in projections.NAMES:  # and again, sequentially
        assert projections.catch_up(conn, name) == 0
    assert digests(conn) == once
    assert scalar(conn, "SELECT sum(abs(amount)) + 0 FROM ledger_lines") == ledger_total


def test_a_batch_that_fails_halfway_changes_nothing(store: EventStore, conn: Conn, db_url: str) -> None:
    play_tables(store, count=3, deals=1, seed=9)
    wait_until_readable(db_url)  # every event played is past the commit-safe horizon
    projection = projections.PROJECTIONS["ledger"]
    original = projection.apply

    def failing(c: Conn, events: list[Any], caches: projections.ProjectionCaches) -> None:
        original(c, events, caches)
        raise RuntimeError("worker died after applying, before the checkpoint")

    object.__setattr__(projection, "apply", failing)
    try:
        with pytest.raises(RuntimeError):
            projections.catch_up(conn, "ledger")
    finally:
        object.__setattr__(projection, "apply", original)
    assert scalar(conn, "SELECT count(*) FROM ledger_lines") == 0
    assert read_position(conn, checkpoint_name("ledger")).global_position == 0
    projections.catch_up(conn, "ledger")
    assert scalar(conn, "SELECT sum(amount) + 0 FROM ledger_lines") == 0


def test_rebuild_equals_live(store: EventStore, conn: Conn, db_url: str) -> None:
    play_tables(store, count=6, deals=2, seed=21)
    wait_until_readable(db_url)  # every event played is past the commit-safe horizon
    projections.catch_up_all(conn, batch_size=64)
    live = digests(conn)
    play_tables(store, count=2, deals=1, seed=22)  # not yet projected: rebuild catches up first
    wait_until_readable(db_url)  # every event played is past the commit-safe horizon
    reports = rebuild(db_url, None, progress=False)
    assert [r.name for r in reports] == list(projections.NAMES)
    assert all(r.equal for r in reports), [r.summary() for r in reports]
    assert all(r.events == scalar(conn, "SELECT count(*) FROM events") for r in reports)
    assert digests(conn) != live
    # A tampered live model is reported as different, and repaired.
    conn.execute(
        "UPDATE settlements SET net_cents = net_cents + 1 WHERE player_id = (SELECT min(player_id) FROM settlements)"
    )
    (report,) = rebuild(db_url, ["settlements"], progress=False)
    assert not report.equal
    (again,) = rebuild(db_url, ["settlements"], progress=False)
    assert again.equal


@pytest.mark.parametrize("with_reader", [False, True], ids=["inline", "read-ahead"])
def test_a_rebuild_in_small_batches_equals_live(store: EventStore, conn: Conn, db_url: str, with_reader: bool) -> None:
    play_tables(store, count=4, deals=2, seed=24)
    wait_until_readable(db_url)  # every event played is past the commit-safe horizon
    projections.catch_up_all(conn, batch_size=50)
    total = scalar(conn, "SELECT count(*) FROM events")
    with connect(db_url) as reader:
        for name in projections.NAMES:
            report = rebuild_one(conn, name, progress=False, batch_size=13, reader=reader if with_reader else None)
            assert report.equal and report.events == total, report.summary()


def test_digests_do_not_depend_on_session_settings_but_on_every_value(
    store: EventStore, conn: Conn, db_url: str
) -> None:
    play_tables(store, count=2, deals=1, seed=23)
    wait_until_readable(db_url)  # every event played is past the commit-safe horizon
    projections.catch_up_all(conn)
    before = digests(conn)
    conn.execute("SET TimeZone = 'Asia/Singapore'")
    conn.execute("SET DateStyle = 'SQL, DMY'")
    assert digests(conn) == before
    conn.execute("RESET TimeZone")
    conn.execute("RESET DateStyle")
    conn.execute(
        """UPDATE table_views SET seat_parts = seat_parts || '{"seat_note": 1}'
           WHERE table_id = (SELECT table_id FROM table_views ORDER BY table_id LIMIT 1)"""
    )
    conn.execute("UPDATE ledger_lines SET occurred_at = occurred_at + interval '1 microsecond'")
    after = digests(conn)
    assert after["table_views"] != before["table_views"] and after["table_views"][1] == before["table_views"][1]
    assert after["ledger"] != before["ledger"]
    assert after["hand_tricks"] == before["hand_tricks"]


def test_rebuild_names_unknown_projection(db_url: str) -> None:
    with pytest.raises(ValueError, match="unknown projection 'lobby'"):
        rebuild(db_url, ["lobby"], progress=False)


def test_non_table_streams_are_ignored(store: EventStore, conn: Conn, db_url: str) -> None:
    store.append("audit-1", 0, [NewEvent("something_happened", {"x": 1})])
    game = TableGame("solo", seats=2)
    for _ in game.play_into(store):
        pass
    store.append("audit-1", 1, [NewEvent("something_else", {"transfers": []})])
    wait_until_readable(db_url)
    projections.catch_up_all(conn)
    assert [r["table_id"] for r in conn.execute("SELECT table_id FROM table_views")] == ["solo"]


def test_catch_up_all_run_twice_at_once_applies_each_batch_once(store: EventStore, conn: Conn, db_url: str) -> None:
    play_tables(store, count=4, deals=2, seed=31)
    wait_until_readable(db_url)  # every event played is past the commit-safe horizon
    total = scalar(conn, "SELECT count(*) FROM events")
    with psycopg.connect(db_url, autocommit=True, row_factory=dict_row) as other:
        results: list[dict[str, int]] = []
        worker = threading.Thread(target=lambda: results.append(projections.catch_up_all(other, batch_size=40)))
        worker.start()
        results.append(projections.catch_up_all(conn, batch_size=40))
        worker.join()
    for name in projections.NAMES:
        assert sum(r[name] for r in results) == total, (name, results)
    once = digests(conn)
    assert projections.catch_up_all(conn) == dict.fromkeys(projections.NAMES, 0)
    assert digests(conn) == once


def test_a_checkpoint_held_elsewhere_is_skipped_and_caught_up_later(store: EventStore, conn: Conn, db_url: str) -> None:
    play_tables(store, count=3, deals=1, seed=32)
    wait_until_readable(db_url)  # every event played is past the commit-safe horizon
    total = scalar(conn, "SELECT count(*) FROM events")
    projections.catch_up_all(conn, batch_size=1)  # creates the checkpoints
    play_tables(store, count=2, deals=1, seed=33)
    wait_until_readable(db_url)  # every event played is past the commit-safe horizon
    grown = scalar(conn, "SELECT count(*) FROM events")
    with psycopg.connect(db_url, row_factory=dict_row) as holder:  # a rebuild, say, holds the ledger's checkpoint
        holder.execute("SELECT 1 FROM log_positions WHERE name = %s FOR UPDATE", (checkpoint_name("ledger"),))
        conn.execute("SET lock_timeout = '2s'")  # waiting for the lock would fail, not hang
        applied = projections.catch_up_all(conn)  # does not wait for it
        conn.execute("RESET lock_timeout")
        holder.rollback()
    assert applied["ledger"] == 0
    assert all(applied[name] == grown - total for name in projections.NAMES if name != "ledger"), applied
    # The ledger is now behind the others: it catches up alone, in its own batches, and then matches a rebuild.
    behind = projections.catch_up_all(conn, batch_size=7)
    assert behind == {name: (grown - total if name == "ledger" else 0) for name in projections.NAMES}
    live = projections.digest(conn, "ledger")
    (report,) = rebuild(db_url, ["ledger"], progress=False)
    assert report.equal and projections.digest(conn, "ledger") == live


def caught_up_fully(conn: Conn, **options: Any) -> dict[str, int]:
    """catch_up_all again until every projection has applied every event of the log (a transaction elsewhere on
    the server holds back the log's commit-safe horizon at times); the events applied per projection."""
    applied = dict.fromkeys(projections.NAMES, 0)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        for name, count in projections.catch_up_all(conn, **options).items():
            applied[name] += count
        positions = {read_position(conn, checkpoint_name(name)).global_position for name in projections.NAMES}
        if positions == {scalar(conn, "SELECT max(global_position) FROM events")}:
            break
    return applied


def test_checkpoints_carried_between_calls_are_read_again_once_another_worker_moved_them(
    store: EventStore, conn: Conn, db_url: str
) -> None:
    play_tables(store, count=2, deals=1, seed=34)
    wait_until_readable(db_url)  # every event played is past the commit-safe horizon
    known = projections.Checkpoints()
    first = caught_up_fully(conn, batch_size=10, checkpoints=known)
    stored = {checkpoint_name(name): read_position(conn, checkpoint_name(name)) for name in projections.NAMES}
    assert known.positions == stored  # the next call reads the log from there, not the checkpoints first
    play_tables(store, count=1, deals=1, seed=35)
    wait_until_readable(db_url)  # every event played is past the commit-safe horizon
    with psycopg.connect(db_url, autocommit=True, row_factory=dict_row) as other:
        elsewhere = caught_up_fully(other, batch_size=10)  # another worker moves them on
    play_tables(store, count=1, deals=1, seed=36)
    wait_until_readable(db_url)  # every event played is past the commit-safe horizon
    stale = projections.catch_up_all(conn, batch_size=10, checkpoints=known)
    assert stale == dict.fromkeys(projections.NAMES, 0) and known.positions is None  # found out under the lock
    again = caught_up_fully(conn, batch_size=10, checkpoints=known)
    total = scalar(conn, "SELECT count(*) FROM events")
    for name in projections.NAMES:
        assert first[name] + elsewhere[name] + again[name] == total, name
    assert all(report.equal for report in rebuild(db_url, None, progress=False))


def test_catch_up_all_needs_an_autocommit_connection(db_url: str) -> None:
    with psycopg.connect(db_url, row_factory=dict_row) as plain, pytest.raises(RuntimeError, match="autocommit"):
        projections.catch_up_all(plain)


def _play_one(url: str, game: TableGame) -> None:
    pool = open_pool(url, min_size=1, max_size=2)
    try:
        for _ in game.play_into(EventStore(pool)):
            pass
    finally:
        pool.close()


def test_two_projectors_in_one_process_keep_caches_of_their_own(pg_server_url: str) -> None:
    """The same table id names different tables in two databases: each projector's caches (heads, folded
    states) hold only what it read from its own database, so each model equals its rebuild."""
    with fresh_database(pg_server_url) as first_url, fresh_database(pg_server_url) as second_url:
        for url in (first_url, second_url):
            migrate(url)
        _play_one(first_url, TableGame("same-id", game="cha-kau-tsz", seats=4, deals=2, rng=random.Random(1)))
        _play_one(second_url, TableGame("same-id", game="cholek-tiga", seats=2, deals=2, rng=random.Random(2)))
        for url in (first_url, second_url):
            wait_until_readable(url)
        first_caches, second_caches = projections.ProjectionCaches(), projections.ProjectionCaches()
        with connect(first_url) as first, connect(second_url) as second:
            # The same batch size, so that the second would find the first's folds of the same slices.
            projections.catch_up_all(first, batch_size=9, caches=first_caches)
            projections.catch_up_all(second, batch_size=9, caches=second_caches)
            assert first_caches.heads.get("same-id") is not None
            for conn, game in ((first, "cha-kau-tsz"), (second, "cholek-tiga")):
                assert scalar(conn, "SELECT game FROM table_views WHERE table_id = 'same-id'") == game
        for url in (first_url, second_url):
            assert all(report.equal for report in rebuild(url, None, progress=False))


def test_a_move_of_checkpoints_skips_those_held_elsewhere_and_those_not_at_the_batch_start(db_url: str) -> None:
    names = ["projection:a", "projection:b", "projection:c", "projection:d"]
    start, elsewhere, end = LogPosition(5, 10), LogPosition(6, 12), LogPosition(7, 14)
    with (
        psycopg.connect(db_url, autocommit=True, row_factory=dict_row) as conn,
        psycopg.connect(db_url, row_factory=dict_row) as holder,
    ):
        ensure_positions(conn, names)
        for name, position in zip(names, [start, start, elsewhere, start], strict=True):
            conn.execute(
                "UPDATE log_positions SET tx_id = %s::text::xid8, global_position = %s WHERE name = %s",
                (str(position.tx_id), position.global_position, name),
            )
        holder.execute("SELECT 1 FROM log_positions WHERE name = 'projection:d' FOR UPDATE")  # another worker's
        with conn.transaction():
            moved = move_positions_if_free(conn, names, start, end)
        holder.rollback()
        assert sorted(moved) == ["projection:a", "projection:b"]
        assert read_positions(conn, names) == {
            "projection:a": end,
            "projection:b": end,
            "projection:c": elsewhere,
            "projection:d": start,
        }
        with conn.transaction():  # a batch that fails after the move takes the move back with it
            assert sorted(move_positions_if_free(conn, names, end, LogPosition(8, 16))) == names[:2]
            raise psycopg.Rollback()
        assert read_positions(conn, names[:2]) == {"projection:a": end, "projection:b": end}
