"""Numbered SQL migrations (infra/migrations/NNN_name.sql), applied once each.

Several processes may migrate at once: a transaction-scoped advisory lock makes
them take turns, and the later ones find nothing left to do.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
from psycopg.rows import tuple_row

from infra.db import application_name

MIGRATING = application_name("migrate")  # the migrators' connections in pg_stat_activity
MIGRATIONS_DIR = Path(__file__).with_name("migrations")
_LOCK_KEY = 7_410_221_001  # any constant shared by every cardledger migrator
_FILE_NAME = re.compile(r"^(\d{3})_([a-z0-9_]+)\.sql$")


@dataclass(frozen=True)
class Migration:
    number: int
    name: str
    path: Path


def available_migrations(directory: Path = MIGRATIONS_DIR) -> list[Migration]:
    found = []
    for path in sorted(directory.glob("*.sql")):
        match = _FILE_NAME.match(path.name)
        if match is None:
            raise ValueError(f"migration file {path.name} does not match NNN_name.sql")
        found.append(Migration(int(match.group(1)), match.group(2), path))
    numbers = [m.number for m in found]
    if numbers != list(range(1, len(found) + 1)):
        raise ValueError(f"migrations must be numbered 1..n without gaps, found {numbers}")
    return found


def migrate(url: str, directory: Path = MIGRATIONS_DIR) -> list[str]:
    """Apply the missing migrations; returns the names applied by this call."""
    applied_now: list[str] = []
    with psycopg.connect(url, fallback_application_name=MIGRATING) as conn, conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK_KEY,))
        conn.execute(
            """CREATE TABLE IF NOT EXISTS schema_migrations (
                   number      integer PRIMARY KEY,
                   name        text NOT NULL,
                   applied_at  timestamptz NOT NULL DEFAULT now())"""
        )
        done = {row[0] for row in conn.execute("SELECT number FROM schema_migrations")}
        for migration in available_migrations(directory):
            if migration.number in done:
                continue
            conn.execute(migration.path.read_text().encode())
            conn.execute(
                "INSERT INTO schema_migrations (number, name) VALUES (%s, %s)", (migration.number, migration.name)
            )
            applied_now.append(f"{migration.number:03d}_{migration.name}")
    return applied_now


def pending_migrations(conn: psycopg.Connection[Any]) -> list[str]:
    """Names of migrations not yet applied (all of them when the table is missing); any row factory."""
    with conn.cursor(row_factory=tuple_row) as cur:
        exists = cur.execute("SELECT to_regclass('schema_migrations') IS NOT NULL").fetchone()
        done: set[int] = set()
        if exists and exists[0]:
            done = {int(row[0]) for row in cur.execute("SELECT number FROM schema_migrations")}
    return [f"{m.number:03d}_{m.name}" for m in available_migrations() if m.number not in done]
