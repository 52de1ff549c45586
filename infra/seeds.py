"""Server seeds of deals, kept secret in the database until each deal ends."""

from __future__ import annotations

import secrets
from collections.abc import Iterable

from infra.db import Conn


def seeds_for(conn: Conn, table_id: str, deal_numbers: Iterable[int]) -> dict[int, bytes]:
    """The seeds of the given deals, creating (from `secrets`) any not made yet.

    Call before the append that publishes their commitments (or inside its
    transaction), so that a commitment is never published for a seed that was
    not stored. A fresh seed is drawn for every deal asked for; a stored one wins.
    """
    wanted = sorted({n for n in deal_numbers if n >= 1})
    if not wanted:
        return {}
    rows = conn.execute(
        """
        WITH fresh (deal_no, server_seed) AS (SELECT * FROM unnest(%(numbers)s::int[], %(seeds)s::bytea[])),
        made AS (
            INSERT INTO deal_seeds (stream_id, deal_no, server_seed)
            SELECT %(table)s, deal_no, server_seed FROM fresh
            ON CONFLICT DO NOTHING
            RETURNING deal_no, server_seed
        )
        SELECT deal_no, server_seed FROM made
        UNION ALL
        SELECT deal_no, server_seed FROM deal_seeds WHERE stream_id = %(table)s AND deal_no = ANY(%(numbers)s::int[])
        """,
        {"table": table_id, "numbers": wanted, "seeds": [secrets.token_bytes(32) for _ in wanted]},
    ).fetchall()
    seeds = {int(row["deal_no"]): bytes(row["server_seed"]) for row in rows}
    # A seed another writer committed after this statement's snapshot is neither inserted nor seen: read it.
    return seeds if len(seeds) == len(wanted) else _stored(conn, table_id, wanted)


def _stored(conn: Conn, table_id: str, deal_numbers: list[int]) -> dict[int, bytes]:
    rows = conn.execute(
        "SELECT deal_no, server_seed FROM deal_seeds WHERE stream_id = %s AND deal_no = ANY(%s)",
        (table_id, deal_numbers),
    ).fetchall()
    return {int(row["deal_no"]): bytes(row["server_seed"]) for row in rows}
