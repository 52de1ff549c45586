"""Writing to the PostgreSQL event store: the guarded append statement and the stream head it moves."""

from __future__ import annotations

import functools

import psycopg
from psycopg.pq import ExecStatus
from psycopg.pq.abc import PGresult

from domain.hashchain import GENESIS_HASH
from infra.db import Conn
from infra.errors import VersionConflict

_EVENT_COLUMNS = 9  # version, type, schema_version, deal_no, data, metadata, prev_hash, hash, hash_version

DUPLICATE_PREPARED_STATEMENT = "42P05"
UNKNOWN_PREPARED_STATEMENT = "26000"


@functools.cache
def append_sql(event_count: int, remember: bool) -> bytes:
    """The guarded append of `event_count` events (with the idempotency record when `remember`), with numbered
    parameters in the order `EventStore.append_prepared` sends them: the head (new version, new hash, stream,
    expected version, expected hash), the idempotency record, the time, then each event's `_EVENT_COLUMNS`.

    The events travel as VALUES rows of plain parameters, so PostgreSQL checks each data and metadata text once
    and keeps it as sent in its json column. A single event goes without ORDER BY, which costs a sort even for
    one row (docs/performance.md, "Reading and appending events").
    """
    remembered = (
        """,
        remembered AS (
            INSERT INTO idempotency_keys (scope, key, request_hash, stream_id, answer)
            SELECT $6::text, $7::text, $8::text, head.stream_id, $9::json FROM head)"""
        if remember
        else ""
    )
    first = 10 if remember else 6  # the time's parameter; the events' follow it
    rows = []
    for event in range(event_count):
        n = first + 1 + event * _EVENT_COLUMNS
        rows.append(
            f"(${n}::integer, ${n + 1}::text, ${n + 2}::smallint, ${n + 3}::integer, ${n + 4}::json, "
            f"${n + 5}::json, ${n + 6}::text, ${n + 7}::text, ${n + 8}::smallint)"
        )
    order = "\n        ORDER BY e.version" if event_count > 1 else ""
    return f"""WITH head AS (
            UPDATE streams SET version = $1::integer, last_hash = $2::text
            WHERE stream_id = $3::text AND version = $4::integer AND last_hash = $5::text
            RETURNING stream_id){remembered}
        INSERT INTO events (stream_id, version, type, schema_version, deal_no, data, metadata, occurred_at,
                            prev_hash, hash, hash_version)
        SELECT head.stream_id, e.version, e.type, e.schema_version, e.deal_no, e.data, e.metadata,
               ${first}::timestamptz, e.prev_hash, e.hash, e.hash_version
        FROM head, (VALUES {", ".join(rows)})
             AS e (version, type, schema_version, deal_no, data, metadata, prev_hash, hash, hash_version){order}
        RETURNING version, global_position, tx_id""".encode()


@functools.cache
def statement_name(event_count: int, remember: bool) -> bytes:
    return f"cardledger_append_{event_count}_{int(remember)}".encode()


def sqlstate(result: PGresult) -> str | None:
    if result.status == ExecStatus.COMMAND_OK or result.status == ExecStatus.TUPLES_OK:
        return None
    state = result.error_field(psycopg.pq.DiagnosticField.SQLSTATE)
    return None if state is None else state.decode()


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
