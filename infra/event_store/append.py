"""Writing to the PostgreSQL event store: the guarded append statement and the stream head it moves."""

from __future__ import annotations

import functools

from domain.hashchain import GENESIS_HASH
from infra.db import Conn
from infra.errors import VersionConflict


@functools.cache
def append_sql(event_count: int, remember: bool) -> str:
    """The guarded append of `event_count` events (with the idempotency record when `remember`), its parameters
    in the order `EventStore.append_prepared` sends them: the head (new version, new hash, stream, expected
    version, expected hash), the idempotency record, the time, then each event's nine columns.

    The events travel as VALUES rows of plain parameters, so PostgreSQL checks each data and metadata text once
    and keeps it as sent in its json column. A single event goes without ORDER BY, which costs a sort even for
    one row (docs/performance.md, "Reading and appending events").
    """
    remembered = (
        """,
        remembered AS (
            INSERT INTO idempotency_keys (scope, key, request_hash, stream_id, answer)
            SELECT %s::text, %s::text, %s::text, head.stream_id, %s::json FROM head)"""
        if remember
        else ""
    )
    # version, type, schema_version, deal_no, data, metadata, prev_hash, hash, hash_version
    row = "(%s::integer, %s::text, %s::smallint, %s::integer, %s::json, %s::json, %s::text, %s::text, %s::smallint)"
    order = "\n        ORDER BY e.version" if event_count > 1 else ""
    return f"""WITH head AS (
            UPDATE streams SET version = %s::integer, last_hash = %s::text
            WHERE stream_id = %s::text AND version = %s::integer AND last_hash = %s::text
            RETURNING stream_id){remembered}
        INSERT INTO events (stream_id, version, type, schema_version, deal_no, data, metadata, occurred_at,
                            prev_hash, hash, hash_version)
        SELECT head.stream_id, e.version, e.type, e.schema_version, e.deal_no, e.data, e.metadata,
               %s::timestamptz, e.prev_hash, e.hash, e.hash_version
        FROM head, (VALUES {", ".join([row] * event_count)})
             AS e (version, type, schema_version, deal_no, data, metadata, prev_hash, hash, hash_version){order}
        RETURNING version, global_position, tx_id"""


def head_hash_in(conn: Conn, stream_id: str, expected_version: int) -> str:
    """The last hash of the stream at `expected_version` (creating the stream at 0), or VersionConflict."""
    if expected_version == 0:
        conn.execute(
            "INSERT INTO streams (stream_id, version, last_hash) VALUES (%s, 0, %s) ON CONFLICT DO NOTHING",
            (stream_id, GENESIS_HASH),
        )
    head = conn.execute("SELECT version, last_hash FROM streams WHERE stream_id = %s", (stream_id,)).fetchone()
    if head is None or head["version"] != expected_version:
        raise VersionConflict(stream_id, expected_version, None if head is None else int(head["version"]))
    return str(head["last_hash"])
