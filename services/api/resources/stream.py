"""GET /v1/tables/{id}/stream: Server-Sent Events of the table, from its Redis stream.

Only public forms are ever published to Redis (`infra.redis_bus`), so every
caller receives exactly what the public may see: no hand, ever, even after the
deal has ended. A client reads its own cards from `/view` (and, after a deal,
the full log from `/events`). Each message's SSE `id` is the Redis entry id;
a client that reconnects with `Last-Event-ID` resumes after it, and `after`
(a table version, e.g. that of a state just read) starts after that version.
Without either, the stream starts with the next event. A connection lives at
most `SSE_MAX_SECONDS` (default 300) and carries a heartbeat comment after
each quiet `SSE_HEARTBEAT_SECONDS` (default 15), or sooner when the Redis
client's socket timeout is shorter; clients reconnect (EventSource does).
"""

from __future__ import annotations

import re
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import redis
from flask import Response, current_app
from marshmallow import EXCLUDE, RAISE, Schema, fields, validate

from infra import json_codec, redis_bus
from services.api.deps import container
from services.api.middleware.auth import caller
from services.api.middleware.problems import ApiError
from services.api.pushes.stream_claims import claim_stream
from services.api.routing import Blueprint, RateLimit, secured
from services.api.schemas.answers import EVENT_TYPES, INT32_MAX
from services.app.callers import Caller

blp = Blueprint(
    "stream",
    __name__,
    url_prefix="/v1/tables",
    description="Live events (Server-Sent Events)",
    rate_limit=RateLimit("reads"),
)

# A Redis entry id: two numbers below 2**64; 19 digits always are, and the ids Redis makes (a time in
# milliseconds and a sequence) have fewer. Redis refuses a larger one, which would end the stream in an error.
ENTRY_ID_PATTERN = r"^[0-9]{1,19}-[0-9]{1,19}$"
_ENTRY_ID = re.compile(ENTRY_ID_PATTERN)


# Each message of a stream, as OpenAPI 3.2's itemSchema would say it (schemathesis reads a 3.1 `schema` of
# text/event-stream so), or the stream read whole as text (as a generated client reads it).
def event_stream_schema(id_property: dict[str, Any], event: dict[str, Any], data_description: str) -> dict[str, Any]:
    message = {
        "type": "object",
        "description": "one Server-Sent Event; comment lines (heartbeats) between them carry none",
        "properties": {
            "id": id_property,
            "event": {"type": "string", **event},
            "data": {"type": "string", "contentMediaType": "application/json", "description": data_description},
            "retry": {"type": "integer", "description": "milliseconds to wait before reconnecting"},
        },
    }
    return {"anyOf": [{"type": "string", "description": "the whole stream, as text"}, message]}


def event_stream_response(messages: Iterator[str]) -> Response:
    """A text/event-stream answer of `messages`, not cached nor buffered by a proxy."""
    response = Response(messages, mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Accel-Buffering"] = "no"
    return response


STREAM_SCHEMA = event_stream_schema(
    {"type": "string", "pattern": ENTRY_ID_PATTERN, "description": "resume after it with Last-Event-ID"},
    {"enum": [*EVENT_TYPES, "error"], "description": "the event's `type`"},
    "the event (schema `Event`, without `metadata`) in its public form: never a `private` "
    'block; for `event: error`, `{"code": "stream_unavailable"}`, which ends a stream that lost Redis',
)


class StreamQuerySchema(Schema):
    class Meta:
        unknown = RAISE

    after = fields.Integer(
        validate=validate.Range(min=0, max=INT32_MAX),
        metadata={"description": "start after this table version (ignored with Last-Event-ID)"},
    )


class StreamHeadersSchema(Schema):
    class Meta:
        unknown = EXCLUDE

    last_event_id = fields.String(
        data_key="Last-Event-ID",
        metadata={
            "description": "resume after this SSE id (a Redis entry id, '<number>-<number>')",
            "pattern": ENTRY_ID_PATTERN,  # what the route accepts (400 otherwise)
        },
    )


def _message(entry_id: str, body: dict[str, Any], withheld: Callable[[Any], bool] = lambda deal_no: False) -> str:
    hidden = withheld(body.get("deal_no"))
    event = {
        "position": body.get("version"),
        "global_position": body.get("global_position"),
        "type": body.get("type"),
        "deal_no": body.get("deal_no"),
        "occurred_at": body.get("occurred_at"),
        "data": body.get("data"),
        "schema_version": body.get("schema_version"),
        "hash_version": body.get("hash_version"),
        "prev_hash": None if hidden else body.get("prev_hash"),
        "hash": None if hidden else body.get("hash"),
    }
    return f"id: {entry_id}\nevent: {event['type']}\ndata: {json_codec.dumps_text(event)}\n\n"


def _last_entry_id(client: redis.Redis, table_id: str) -> str:
    newest = client.xrevrange(redis_bus.table_stream(table_id), count=1)
    if not newest:
        return "0-0"
    raw = newest[0][0]
    return raw.decode() if isinstance(raw, bytes) else str(raw)


def _events(
    client: redis.Redis,
    table_id: str,
    start: str,
    after_version: int | None,
    lifetime: float,
    heartbeat: float,
    withheld: Callable[[Any], bool] = lambda deal_no: False,
) -> Iterator[str]:
    deadline = time.monotonic() + lifetime
    longest = redis_bus.longest_block(client)
    if longest is not None:
        heartbeat = min(heartbeat, longest)
    last = start
    yield f"retry: 2000\n: stream of table {table_id}\n\n"
    try:
        if after_version is not None:
            # Entries up to `start` that the client has not seen; the live read continues after `start`.
            for entry_id, body in redis_bus.table_stream_after_version(client, table_id, after_version):
                yield _message(entry_id, body, withheld)
        while (remaining := deadline - time.monotonic()) > 0:
            block_ms = max(1, int(min(heartbeat, remaining) * 1000))
            entries = redis_bus.read_table(client, table_id, last, count=100, block_ms=block_ms)
            if not entries:
                yield ": heartbeat\n\n"
                continue
            for entry_id, body in entries:
                last = entry_id
                yield _message(entry_id, body, withheld)
    except redis.RedisError:
        yield 'event: error\ndata: {"code": "stream_unavailable"}\n\n'
        return
    yield ": connection lifetime reached; reconnect with Last-Event-ID\n\n"


def _withheld_for(who: Caller, table_id: str) -> Callable[[Any], bool]:
    """Whether an event of deal `deal_no` goes out without its hashes: a deal holding a private block hashed
    whole (hash version 1) chains every later hash from it (`services.app.answers.event_json`). A stream is live,
    so its deals are running; a deal that has ended is read, hashes and all, from /events."""
    if who.is_auditor:
        return lambda deal_no: False
    ledger = container().ledger
    return lambda deal_no: isinstance(deal_no, int) and ledger.withheld.deal_holds_v1_private(table_id, deal_no)


@blp.route("/<uuid:table_id>/stream", methods=["GET"])
@secured(blp, 400, 404, 503, operationId="followTable")
@blp.arguments(StreamHeadersSchema(), location="headers", error_status_code=400)
@blp.arguments(StreamQuerySchema(), location="query")
@blp.response(200, STREAM_SCHEMA, content_type="text/event-stream", description="Server-Sent Events")
def stream(headers: dict[str, Any], query: dict[str, Any], table_id: uuid.UUID) -> Response:
    """Live public events of the table (public forms only: a hand never appears here; read it from /view)."""
    who = caller()  # every authenticated caller may follow a table's public events
    services = container()
    table = str(table_id)
    if not services.ledger.queries.exists(table):
        raise ApiError(404, "table_not_found", f"table {table} does not exist")
    claim_stream(who, table)
    last_event_id = headers.get("last_event_id")
    after_version: int | None = None
    try:
        if last_event_id is not None:
            if not _ENTRY_ID.match(last_event_id.strip()):
                raise ApiError(
                    400, "invalid_last_event_id", "Last-Event-ID must be an event id '<number>-<number>' as sent"
                )
            start = last_event_id.strip()
        elif "after" in query:
            start, after_version = _last_entry_id(services.redis, table), int(query["after"])
        else:
            start = _last_entry_id(services.redis, table)
    except redis.RedisError as error:
        raise ApiError(503, "stream_unavailable", "the event stream is unavailable; retry later") from error
    config = current_app.config
    generator = _events(
        services.redis,
        table,
        start,
        after_version,
        float(config.get("SSE_MAX_SECONDS", 300)),
        float(config.get("SSE_HEARTBEAT_SECONDS", 15)),
        _withheld_for(who, table),
    )
    return event_stream_response(generator)
