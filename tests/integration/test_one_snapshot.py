"""infra.db.one_snapshot: every statement inside sees the database as the first one did (a ledger page and its
totals agree), against the real PostgreSQL."""

from __future__ import annotations

import secrets
from typing import Any

import psycopg
import pytest

from infra.db import connect, one_snapshot


def test_a_row_committed_meanwhile_is_seen_after_the_snapshot_not_inside_it(database_url: str) -> None:
    table = f"snapshot_probe_{secrets.token_hex(4)}"
    with connect(database_url) as reader, connect(database_url) as writer:
        writer.execute(f"CREATE TABLE {table} (n int)")
        try:
            with one_snapshot(reader):
                before = _count(reader, table)
                writer.execute(f"INSERT INTO {table} VALUES (1)")  # autocommit: committed now
                assert _count(reader, table) == before == 0
            assert _count(reader, table) == 1
        finally:
            writer.execute(f"DROP TABLE {table}")


def test_nothing_can_be_written_inside_it(database_url: str) -> None:
    with connect(database_url) as conn:
        with pytest.raises(psycopg.errors.ReadOnlySqlTransaction), one_snapshot(conn):
            conn.execute("CREATE TABLE snapshot_probe_never (n int)")
        assert conn.execute("SELECT 1 AS one").fetchone() == {"one": 1}  # the connection is usable again


def _count(conn: psycopg.Connection[Any], table: str) -> int:
    row = conn.execute(f"SELECT count(*) AS n FROM {table}").fetchone()
    assert row is not None
    return int(row["n"])
