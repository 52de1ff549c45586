"""Migrations against the real server: applied once each, safe to run from several processes at once."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path

import psycopg
import pytest
from psycopg.rows import dict_row
from psycopg.types.json import Json

from domain.hashchain import GENESIS_HASH, event_hash, hashed_fields
from infra.db import open_pool
from infra.event_store import EventStore, NewEvent, RecordedEvent
from infra.migrations import MIGRATIONS_DIR, available_migrations, migrate, pending_migrations
from services.app.audit.verify import ChainWalker
from tests.conftest import fresh_database

REPO_ROOT = Path(__file__).resolve().parents[2]
ALL_NAMES = [f"{m.number:03d}_{m.name}" for m in available_migrations()]


@pytest.fixture
def fresh_database_url(pg_server_url: str) -> Iterator[str]:
    """An empty database of its own on the test server, dropped afterwards."""
    with fresh_database(pg_server_url, prefix="cardledger_migrations") as url:
        yield url


def applied(url: str) -> list[tuple[int, str]]:
    with psycopg.connect(url) as conn:
        return [(row[0], row[1]) for row in conn.execute("SELECT number, name FROM schema_migrations ORDER BY number")]


def table_exists(url: str, table: str) -> bool:
    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT to_regclass(%s) IS NOT NULL", (table,)).fetchone()
    return bool(row and row[0])


def write(directory: Path, files: dict[str, str]) -> Path:
    directory.mkdir(exist_ok=True)
    for name, text in files.items():
        (directory / name).write_text(text)
    return directory


def test_the_shipped_migrations_are_numbered_without_gaps() -> None:
    found = available_migrations()
    assert [m.number for m in found] == list(range(1, len(found) + 1))
    assert found[0].name == "event_store"
    assert all(m.path.parent == MIGRATIONS_DIR for m in found)
    assert len(ALL_NAMES) >= 2


def test_migrating_twice_applies_nothing_the_second_time(fresh_database_url: str) -> None:
    with psycopg.connect(fresh_database_url) as conn:
        assert pending_migrations(conn) == ALL_NAMES

    assert migrate(fresh_database_url) == ALL_NAMES
    assert migrate(fresh_database_url) == []
    assert migrate(fresh_database_url) == []

    assert applied(fresh_database_url) == [(m.number, m.name) for m in available_migrations()]
    with psycopg.connect(fresh_database_url) as conn:
        assert pending_migrations(conn) == []
    for table in ("events", "streams", "idempotency_keys", "log_positions"):
        assert table_exists(fresh_database_url, table)


def test_the_test_database_is_already_migrated(db_url: str) -> None:
    assert migrate(db_url) == []
    with psycopg.connect(db_url) as conn:
        assert pending_migrations(conn) == []


def test_only_new_migrations_are_applied(fresh_database_url: str, tmp_path: Path) -> None:
    directory = write(tmp_path / "m", {"001_first.sql": "CREATE TABLE first (id int);"})
    assert migrate(fresh_database_url, directory) == ["001_first"]
    write(directory, {"002_second.sql": "CREATE TABLE second (id int); INSERT INTO first VALUES (1);"})
    assert migrate(fresh_database_url, directory) == ["002_second"]
    assert migrate(fresh_database_url, directory) == []
    assert applied(fresh_database_url) == [(1, "first"), (2, "second")]
    with psycopg.connect(fresh_database_url) as conn:
        assert conn.execute("SELECT count(*) FROM first").fetchone() == (1,)


def test_a_failing_migration_applies_nothing(fresh_database_url: str, tmp_path: Path) -> None:
    directory = write(
        tmp_path / "m",
        {
            "001_good.sql": "CREATE TABLE good (id int);",
            "002_bad.sql": "CREATE TABLE bad (id int); SELECT * FROM no_such_table;",
        },
    )
    with pytest.raises(psycopg.errors.UndefinedTable):
        migrate(fresh_database_url, directory)
    assert not table_exists(fresh_database_url, "good")
    assert not table_exists(fresh_database_url, "bad")
    assert not table_exists(fresh_database_url, "schema_migrations")

    write(directory, {"002_bad.sql": "CREATE TABLE bad (id int);"})
    assert migrate(fresh_database_url, directory) == ["001_good", "002_bad"]


def test_concurrent_migrations_from_threads_apply_each_file_once(fresh_database_url: str) -> None:
    barrier = threading.Barrier(4)

    def run(_: int) -> list[str]:
        barrier.wait()
        return migrate(fresh_database_url)

    with ThreadPoolExecutor(4) as executor:
        results = list(executor.map(run, range(4)))
    assert Counter(name for result in results for name in result) == Counter(ALL_NAMES)
    assert sorted(results, key=len) == [[], [], [], ALL_NAMES], "one migrator did all the work, in order"
    assert applied(fresh_database_url) == [(m.number, m.name) for m in available_migrations()]


_MIGRATE_IN_A_PROCESS = """
import json, sys, time
from infra.migrations import migrate
start_at = float(sys.argv[2])
time.sleep(max(0.0, start_at - time.time()))
print(json.dumps(migrate(sys.argv[1])))
"""


def test_concurrent_migrations_from_processes_apply_each_file_once(fresh_database_url: str) -> None:
    start_at = time.time() + 1.5  # every process has imported psycopg by then
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")]))}
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", _MIGRATE_IN_A_PROCESS, fresh_database_url, str(start_at)],
            cwd=REPO_ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(4)
    ]
    results = []
    for process in processes:
        out, err = process.communicate(timeout=60)
        assert process.returncode == 0, err
        results.append(json.loads(out.strip().splitlines()[-1]))
    assert Counter(name for result in results for name in result) == Counter(ALL_NAMES)
    assert sorted(results, key=len) == [[], [], [], ALL_NAMES]
    assert applied(fresh_database_url) == [(m.number, m.name) for m in available_migrations()]


@pytest.mark.parametrize(
    ("files", "message"),
    [
        (["001_a.sql", "003_c.sql"], "without gaps"),
        (["002_b.sql"], "without gaps"),
        (["001_a.sql", "002_b.sql", "004_d.sql"], "without gaps"),
        (["001_a.sql", "001_b.sql"], "without gaps"),
        (["000_zero.sql", "001_a.sql"], "without gaps"),
        (["001_a.sql", "2_b.sql"], "NNN_name.sql"),
        (["001-a.sql"], "NNN_name.sql"),
        (["001_Upper.sql"], "NNN_name.sql"),
        (["0001_a.sql"], "NNN_name.sql"),
    ],
)
def test_available_migrations_rejects_gaps_and_bad_names(tmp_path: Path, files: list[str], message: str) -> None:
    directory = write(tmp_path / "m", dict.fromkeys(files, "SELECT 1;"))
    with pytest.raises(ValueError, match=message):
        available_migrations(directory)


def test_available_migrations_lists_in_order_and_ignores_other_files(tmp_path: Path) -> None:
    directory = write(
        tmp_path / "m",
        {"002_b.sql": "", "001_a.sql": "", "010_notes.txt": "", "README.md": ""},
    )
    found = available_migrations(directory)
    assert [(m.number, m.name, m.path.name) for m in found] == [(1, "a", "001_a.sql"), (2, "b", "002_b.sql")]
    assert available_migrations(write(tmp_path / "empty", {})) == []


def test_a_gap_stops_migrate_before_it_touches_the_database(fresh_database_url: str, tmp_path: Path) -> None:
    directory = write(tmp_path / "m", {"001_a.sql": "CREATE TABLE a (id int);", "003_c.sql": "SELECT 1;"})
    with pytest.raises(ValueError, match="without gaps"):
        migrate(fresh_database_url, directory)
    assert not table_exists(fresh_database_url, "a")
    assert not table_exists(fresh_database_url, "schema_migrations")


def _migrate_up_to(url: str, tmp_path: Path, last: int) -> None:
    earlier = tmp_path / f"up_to_{last}"
    earlier.mkdir()
    for path in sorted(MIGRATIONS_DIR.glob("0*.sql")):
        if int(path.name[:3]) <= last:
            (earlier / path.name).write_text(path.read_text())
    migrate(url, earlier)


def _append_as_before_hash_versions(url: str, stream_id: str, events: list[NewEvent]) -> list[RecordedEvent]:
    """Append as the store did before migration 006: hash version 1 (the whole data hashed), no such column."""
    recorded = []
    prev_hash, moment = GENESIS_HASH, datetime.now(UTC)
    with psycopg.connect(url) as conn, conn.transaction():
        conn.execute(
            "INSERT INTO streams (stream_id, version, last_hash) VALUES (%s, 0, %s)", (stream_id, GENESIS_HASH)
        )
        for version, new in enumerate(events, start=1):
            fields = hashed_fields(stream_id, version, new.type, 1, new.deal_no, new.data, new.metadata, moment)
            digest = event_hash(prev_hash, fields)
            conn.execute(
                """INSERT INTO events (stream_id, version, type, deal_no, data, metadata, occurred_at, prev_hash, hash)
                   VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)""",
                (
                    stream_id,
                    version,
                    new.type,
                    new.deal_no,
                    Json(new.data),
                    Json(new.metadata),
                    moment,
                    prev_hash,
                    digest,
                ),
            )
            conn.execute(
                "UPDATE streams SET version = %s, last_hash = %s WHERE stream_id = %s", (version, digest, stream_id)
            )
            recorded.append((version, digest))
            prev_hash = digest
    return [
        RecordedEvent(0, stream_id, v, e.type, 1, e.deal_no, e.data, e.metadata, moment, "", h, 0)
        for (v, h), e in zip(recorded, events, strict=True)
    ]


def test_events_from_before_migration_005_read_back_and_verify(fresh_database_url: str, tmp_path: Path) -> None:
    """Migration 005 turns data and metadata from jsonb into json and re-keys the table; the events it rewrites
    keep their values, their hashes and their chain, and the stream goes on from its head."""
    _migrate_up_to(fresh_database_url, tmp_path, 4)
    pool = open_pool(fresh_database_url, max_size=2)
    try:
        store = EventStore(pool)
        metadata = {"actor": "p1", "ip": "203.0.113.7"}
        new = [NewEvent("n", {"b": [1, {"z": None, "a": "é"}], "a": 2}, 1, metadata)] * 3
        before = _append_as_before_hash_versions(fresh_database_url, "t1", new)
        with psycopg.connect(fresh_database_url) as conn:
            kept = conn.execute("SELECT pg_typeof(data)::text FROM events LIMIT 1").fetchone()
        assert kept == ("jsonb",)

        assert migrate(fresh_database_url) == [name for name in ALL_NAMES if name >= "005"]
        read = store.read_stream("t1")
        assert [(e.version, e.data, e.metadata, e.hash, e.hash_version) for e in read] == [
            (e.version, e.data, e.metadata, e.hash, 1) for e in before
        ]
        assert all(event.recomputed_hash() == event.hash for event in read)
        after = store.append("t1", 3, [NewEvent("n", {"c": 3})], head_hash=before[-1].hash)
        assert after[0].prev_hash == before[-1].hash
        with psycopg.connect(fresh_database_url) as conn:
            types = conn.execute(
                "SELECT pg_typeof(data)::text, pg_typeof(metadata)::text FROM events LIMIT 1"
            ).fetchone()
            key = conn.execute(
                "SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conname = 'events_pkey'"
            ).fetchone()
        assert types == ("json", "json")
        assert key == ("PRIMARY KEY (stream_id, version)",)
    finally:
        pool.close()


def test_hash_version_1_events_keep_their_hashes_and_the_stream_goes_on_in_version_2(
    fresh_database_url: str, tmp_path: Path
) -> None:
    """Migration 006: events written before it (their private blocks hashed whole) verify as version 1; the
    events appended after it are version 2 (salted commitments), and the chain runs through both."""
    _migrate_up_to(fresh_database_url, tmp_path, 5)
    hidden = {"seat": 0, "count": 2, "private": {"cards": ["1C", "2C"]}}
    before = _append_as_before_hash_versions(fresh_database_url, "t1", [NewEvent("cards_drawn", hidden, 1)] * 2)
    assert "006_hash_versions" in migrate(fresh_database_url)
    pool = open_pool(fresh_database_url, max_size=2)
    try:
        store = EventStore(pool)
        after = store.append("t1", 2, [NewEvent("cards_drawn", hidden, 1)], head_hash=before[-1].hash)
        read = store.read_stream("t1")
        assert [e.hash_version for e in read] == [1, 1, 2]
        assert [e.hash for e in read] == [before[0].hash, before[1].hash, after[0].hash]
        assert "salt" not in read[0].data["private"] and "salt" in read[2].data["private"]
        walker = ChainWalker("t1")
        for event in read:
            walker.feed(event)
        assert walker.problems == []
        with psycopg.connect(fresh_database_url) as conn, pytest.raises(psycopg.errors.CheckViolation):
            conn.execute("UPDATE events SET hash_version = 3 WHERE false")  # the check is declared ...
            conn.execute("ALTER TABLE events DISABLE TRIGGER USER")
            conn.execute("UPDATE events SET hash_version = 3 WHERE version = 3")  # ... and holds for new values
    finally:
        pool.close()


def test_idempotency_records_written_before_migration_014_still_replay(fresh_database_url: str, tmp_path: Path) -> None:
    """Migration 014 adds the json column `answer` for the records written from then on: a record written before
    it (the whole answer in `response`, jsonb, as the service stored it then) still answers its retry with the
    same values, and a record written after it answers with the first answer's very text."""
    from psycopg.types.json import Jsonb

    from services.app.answers import numbered
    from tests.integration.test_caches import GAME, ledger_on, truth
    from tests.play import next_move, seated_table
    from tests.play import register_with_token as register

    _migrate_up_to(fresh_database_url, tmp_path, 13)
    old = {"version": 3, "events": [{"position": 3, "global_position": None, "data": {"b": 1, "a": [None]}}]}
    with psycopg.connect(fresh_database_url) as conn:
        conn.execute(
            "INSERT INTO idempotency_keys (scope, key, request_hash, stream_id, response) VALUES (%s, %s, %s, %s, %s)",
            ("p0", "before-014", "h", "t", Jsonb(old)),
        )
    assert migrate(fresh_database_url) == [name for name in ALL_NAMES if name >= "014"]

    pool = open_pool(fresh_database_url, max_size=4)
    try:
        store = EventStore(pool)
        kept = store.find_idempotency("p0", "before-014")
        assert kept is not None and (kept.request_hash, kept.response) == ("h", old)

        players = [register(ledger_on(pool), f"p{n}")[0] for n in range(3)]
        table_id = seated_table(ledger_on(pool), players, GAME)
        rng = random.Random(3)
        with pool.connection() as conn:
            seat, action = next_move(truth(conn, table_id), rng)
            first = ledger_on(pool).act(players[seat], table_id, action, "old-key", None)
            # The record as the previous release wrote it: the whole answer (not numbered) in `response`.
            conn.execute(
                "UPDATE idempotency_keys SET answer = NULL, response = %s WHERE key = 'old-key'",
                (Jsonb(numbered(first, {})),),
            )
        assert ledger_on(pool).act(players[seat], table_id, action, "old-key", None) == first

        with pool.connection() as conn:
            seat, action = next_move(truth(conn, table_id), rng)
            second = ledger_on(pool).act(players[seat], table_id, action, "new-key", None)
            stored = conn.execute(
                "SELECT answer IS NOT NULL AS answer, response IS NOT NULL AS response FROM idempotency_keys"
                " WHERE key = 'new-key'"
            ).fetchone()
        assert stored == {"answer": True, "response": False}
        assert json.dumps(ledger_on(pool).act(players[seat], table_id, action, "new-key", None)) == json.dumps(second)
    finally:
        pool.close()


def test_migration_016_moves_the_clock_times_to_table_clock(fresh_database_url: str, tmp_path: Path) -> None:
    """Migration 016: each table view's times move to its `table_clock` row (NULLs included), the sweeps find
    them there, and `table_views` keeps its columns, emptied and no longer indexed, with room for HOT updates."""
    from infra.sql.table_views import tables_vacant_since, tables_with_turn_due

    _migrate_up_to(fresh_database_url, tmp_path, 15)
    due, vacant = datetime(2026, 12, 1, 12, 0, tzinfo=UTC), datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
    with psycopg.connect(fresh_database_url) as conn:
        for table_id, deadline, since in (("playing", due, None), ("empty", None, vacant), ("quiet", None, None)):
            conn.execute(
                """INSERT INTO table_views (table_id, game, status, seats, version, created_seq, view, turn_deadline,
                                            vacant_since)
                   VALUES (%s, 'cholek-tiga', 'open', 2, 3, 1, '{}', %s, %s)""",
                (table_id, deadline, since),
            )
    assert migrate(fresh_database_url) == [name for name in ALL_NAMES if name >= "016"]
    with psycopg.connect(fresh_database_url, row_factory=dict_row) as conn:
        clock = conn.execute("SELECT * FROM table_clock ORDER BY table_id").fetchall()
        assert clock == [
            {"table_id": "empty", "turn_deadline": None, "vacant_since": vacant},
            {"table_id": "playing", "turn_deadline": due, "vacant_since": None},
            {"table_id": "quiet", "turn_deadline": None, "vacant_since": None},
        ]
        left = conn.execute(
            "SELECT count(*) AS n FROM table_views WHERE turn_deadline IS NOT NULL OR vacant_since IS NOT NULL"
        )
        assert left.fetchone() == {"n": 0}
        indexes = conn.execute("SELECT indexname FROM pg_indexes WHERE tablename = 'table_views' ORDER BY 1").fetchall()
        assert [row["indexname"] for row in indexes] == ["table_views_lobby", "table_views_pkey"]
        options = conn.execute("SELECT reloptions FROM pg_class WHERE relname = 'table_views'").fetchone()
        assert options == {"reloptions": ["fillfactor=70"]}
        assert tables_with_turn_due(conn, due, 10) == ["playing"]
        assert tables_with_turn_due(conn, due - timedelta(microseconds=1), 10) == []
        assert tables_vacant_since(conn, vacant, 10) == ["empty"]
