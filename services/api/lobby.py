"""The lobby: a cursor-paginated list of tables, read from the `table_views` projection.

The lobby reads the read model only: a table appears once the projection has
caught up with its opening (normally within milliseconds). Each page is
ordered by `created_seq`; `next_after` is the last row's `created_seq` when
more rows may follow.
"""

from __future__ import annotations

from typing import Any

from psycopg_pool import ConnectionPool

from domain.events import JSON
from infra import players as player_store


def lobby_page(
    pool: ConnectionPool[Any], status: str | None, game: str | None, after: int, limit: int
) -> dict[str, JSON]:
    with pool.connection() as conn:
        rows = conn.execute(
            """SELECT created_seq, view FROM table_views
               WHERE created_seq > %s
                 AND (%s::text IS NULL OR status = %s::text)
                 AND (%s::text IS NULL OR game = %s::text)
               ORDER BY created_seq
               LIMIT %s""",
            (after, status, status, game, game, limit + 1),
        ).fetchall()
        page = rows[:limit]
        ids = sorted({p for row in page for p in row["view"].get("players", []) if p})
        names = player_store.players_by_id(conn, ids) if ids else {}
    tables: list[JSON] = []
    for row in page:
        view = dict(row["view"])
        view["players"] = [
            None if p is None else {"id": p, "name": names[p].name if p in names else None}
            for p in view.get("players", [])
        ]
        tables.append(view)
    next_after = int(page[-1]["created_seq"]) if len(rows) > limit else None
    return {"tables": tables, "next_after": next_after}
