"""A batch applied in one statement: the checkpoints' move and the upserts of the projections that write, sent
together, for a batch that every projection of the group either writes with one upsert (`base.Upsert`) or
leaves alone (`Projection.idle_for`): the table views and the tricks between two deal ends.

The statement moves the checkpoints still at the batch's start that no other transaction holds, as
`checkpoint.move_positions_if_free` does, and each upsert takes its rows only when its own checkpoint was among
those moved. One statement is one transaction on an autocommit connection, so the move and the rows commit
together or not at all, as in the transaction of `runner.catch_up_all`; its BEGIN, the move's statement, an
upsert per projection and COMMIT become one round trip.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from infra.db import Conn
from infra.event_store import LogPosition, RecordedEvent
from infra.projections.base import Projection
from infra.projections.checkpoint import checkpoint_name
from infra.projections.heads import ProjectionCaches

_MOVE = """moved AS (
    UPDATE log_positions
    SET tx_id = %s::text::xid8, global_position = %s, updated_at = now()
    WHERE name IN (SELECT name FROM log_positions WHERE name = ANY(%s) FOR UPDATE SKIP LOCKED)
      AND tx_id = %s::text::xid8 AND global_position = %s
    RETURNING name)"""

# An upsert's rows when its checkpoint moved, else none (jsonb_to_recordset(NULL) gives no row).
_ROWS_IF_MOVED = "(SELECT %s::jsonb WHERE EXISTS (SELECT FROM moved WHERE moved.name = %s))"
# The same, once for the statements of an upsert that has more than one (`Upsert.also`).
_BATCH_IF_MOVED = "batch_{index} AS (SELECT %s::jsonb AS rows WHERE EXISTS (SELECT FROM moved WHERE moved.name = %s))"


@functools.cache
def _statement(upserts: tuple[tuple[str, ...], ...]) -> str:
    """The move, then each upsert's statements (which must not end in RETURNING); the names moved. PostgreSQL
    runs every data-modifying part of a WITH once, whether the final SELECT reads it or not."""
    parts = [_MOVE]
    for index, statements in enumerate(upserts):
        rows = _ROWS_IF_MOVED
        if len(statements) > 1:
            parts.append(_BATCH_IF_MOVED.format(index=index))
            rows = f"(SELECT rows FROM batch_{index})"
        for number, upsert in enumerate(statements):
            name = f"upsert_{index}" + (f"_{number}" if number else "")
            parts.append(f"{name} AS ({upsert.replace('{rows}', rows)})")
    return f"WITH {', '.join(parts)}\nSELECT name FROM moved"


def apply_in_one_statement(
    conn: Conn,
    group: list[Projection],
    at: LogPosition,
    events: list[RecordedEvent],
    caches: ProjectionCaches,
    pause: Callable[[], None] | None = None,
) -> list[str] | None:
    """Apply `events` (read from `at`) to the projections of `group` and move their checkpoints, in one
    statement on the autocommit connection `conn`; the checkpoints moved (those of the projections applied).
    None, having written nothing, when a projection of the group would write the batch otherwise than by one
    upsert. `pause` (a test's hook) is called inside the statement's transaction, before its commit."""
    if any(p.upsert is None and (p.idle_for is None or not p.idle_for(events)) for p in group):
        return None
    upserts = [p for p in group if p.upsert is not None]
    to = events[-1].log_position
    params: list[Any] = [str(to.tx_id), to.global_position, [checkpoint_name(p.name) for p in group]]
    params += [str(at.tx_id), at.global_position]
    for projection in upserts:
        assert projection.upsert is not None
        params += [projection.upsert.rows(conn, events, caches), checkpoint_name(projection.name)]
    statement = _statement(tuple((p.upsert.statement, *p.upsert.also) for p in upserts if p.upsert is not None))
    if pause is not None:
        with conn.transaction():
            moved = conn.execute(statement, params).fetchall()
            pause()
    else:
        moved = conn.execute(statement, params).fetchall()
    return [str(row["name"]) for row in moved]
