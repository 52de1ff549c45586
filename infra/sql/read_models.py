"""Writes that concern a read model as a whole (a rebuild empties it before applying the log again)."""

from __future__ import annotations

from collections.abc import Iterable

from psycopg import sql

from infra.event_store import Conn


def delete_all_rows(conn: Conn, table_names: Iterable[str]) -> None:
    """Delete every row of the named read-model tables (in the caller's transaction)."""
    for name in table_names:
        conn.execute(sql.SQL("DELETE FROM {}").format(sql.Identifier(name)))
