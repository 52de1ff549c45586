"""bench.append_server's appends over the protocol: the store's own statement and parameters, on a stream of its own."""

from __future__ import annotations

import json

import psycopg

from bench.append_server import HASH, over_protocol


def test_the_appends_over_the_protocol_record_each_event_and_its_answer_as_sent(db_url: str) -> None:
    records = [json.dumps({"version": n, "events": [{"position": n}]}, separators=(",", ":")) for n in (1, 2, 3)]

    pid = over_protocol(db_url, "table-of-the-bench", records, reads=True)

    assert pid > 0
    with psycopg.connect(db_url) as conn:
        stream_id, version, last_hash = conn.execute(
            "SELECT stream_id, version, last_hash FROM streams WHERE stream_id LIKE 'stream-protocol-%'"
        ).fetchone()  # type: ignore[misc]
        events = conn.execute(
            "SELECT version, type, hash_version FROM events WHERE stream_id = %s ORDER BY version", (stream_id,)
        ).fetchall()
        answers = conn.execute(
            "SELECT key, answer::text FROM idempotency_keys WHERE stream_id = %s ORDER BY key", (stream_id,)
        ).fetchall()
    assert (version, last_hash) == (3, HASH)
    assert events == [(1, "card_discarded", 2), (2, "card_discarded", 2), (3, "card_discarded", 2)]
    assert answers == [(f"action-{n}", record) for n, record in enumerate(records)]
