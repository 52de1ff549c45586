"""Migrations against the real server: applied once each, safe to run from several processes at once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import psycopg
import pytest

from infra.db import open_pool
from infra.event_store import EventStore, NewEvent
from infra.migrations import MIGRATIONS_DIR, available_migrations, migrate, pending_migrations
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


def test_events_from_before_migration_005_read_back_and_verify(fresh_database_url: str, tmp_path: Path) -> None:
    """Migration 005 turns data and metadata from jsonb into json and re-keys the table; the events it rewrites
    keep their values, their hashes and their chain, and the stream goes on from its head."""
    earlier = tmp_path / "m"
    earlier.mkdir()
    for path in sorted(MIGRATIONS_DIR.glob("00[1-4]_*.sql")):
        (earlier / path.name).write_text(path.read_text())
    migrate(fresh_database_url, earlier)
    pool = open_pool(fresh_database_url, max_size=2)
    try:
        store = EventStore(pool)
        metadata = {"actor": "p1", "ip": "203.0.113.7"}
        before = store.append("t1", 0, [NewEvent("n", {"b": [1, {"z": None, "a": "é"}], "a": 2}, 1, metadata)] * 3)
        with psycopg.connect(fresh_database_url) as conn:
            kept = conn.execute("SELECT pg_typeof(data)::text FROM events LIMIT 1").fetchone()
        assert kept == ("jsonb",)

        assert migrate(fresh_database_url) == ["005_json_payloads_stream_key"]
        assert store.read_stream("t1") == before
        assert all(event.recomputed_hash() == event.hash for event in before)
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
