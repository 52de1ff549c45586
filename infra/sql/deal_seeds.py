"""Reads of `deal_seeds` for the verification (the writes are `infra.seeds`)."""

from __future__ import annotations

from collections.abc import Iterable

from infra.event_store import Conn


def stored_seeds(conn: Conn, table_id: str, deal_numbers: Iterable[int] | None = None) -> dict[int, bytes]:
    """Server seeds kept in deal_seeds (all of the table's, or the given deals')."""
    if deal_numbers is None:
        rows = conn.execute("SELECT deal_no, server_seed FROM deal_seeds WHERE stream_id = %s", (table_id,))
    else:
        rows = conn.execute(
            "SELECT deal_no, server_seed FROM deal_seeds WHERE stream_id = %s AND deal_no = ANY(%s)",
            (table_id, list(deal_numbers)),
        )
    return {int(r["deal_no"]): bytes(r["server_seed"]) for r in rows.fetchall()}
