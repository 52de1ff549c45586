"""GET /v1/tables/{id}/view/stream: the caller's seat view, pushed as Server-Sent Events.

Each message (`event: view`) is the caller's seat view exactly as `GET /v1/tables/{id}/view` answers it at
that moment (the same read, so the same schema and redaction), and its SSE `id` is the view's `version`. The
first message is the view on connect; after it, one whenever the table's version moves: the stream waits on
the table's Redis stream (where the relay publishes every committed event, `infra.redis_bus`) through the
process's one reader of the tables' streams (`services.api.pushes.table_waits`) and, woken by one or many entries,
reads the view once (several events published together give one message, at the newest version): from the
state this process keeps when that is at the version published, else from the store, one stream of the
table at a time, so that the table's other streams here find the state it folded. The public part of the
view is encoded once per version for every seat (`services.api.pushes.seat_pushes`). No database connection is
held while waiting. `Last-Event-ID` (a version, as sent) or
`after` resumes: the first message is sent only when the table is past that version.

A seat waiting for its turn learns of it here without a request per action. Errors before the
first message are the problems `/view` gives (404, 403 `no_seat`, ...); a caller who loses the view while
following (leaves its seat) receives `event: error` with that code, and the stream ends; so does a stream
that loses Redis (`stream_unavailable`) or its database (`view_unavailable`). Heartbeats, lifetime and
admission are the public stream's (`services.api.resources.stream`, `services.api.middleware.admission`).
"""

from __future__ import annotations

import logging
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
from services.api.pushes import seat_pushes, table_waits
from services.api.pushes.seat_pushes import Pushed, pushed
from services.api.pushes.table_waits import Following
from services.api.resources.stream import event_stream_response, event_stream_schema
from services.api.routing import Blueprint, RateLimit, secured
from services.api.schemas.answers import INT32_MAX
from services.app.errors import ServiceError

blp = Blueprint(
    "seat_stream",
    __name__,
    url_prefix="/v1/tables",
    description="The caller's seat view, live (Server-Sent Events)",
    rate_limit=RateLimit("reads"),
)

log = logging.getLogger("cardledger.api")

VERSION_PATTERN = r"^[0-9]{1,10}$"
_VERSION = re.compile(VERSION_PATTERN)
SEAT_VIEW_STREAM_SCHEMA = event_stream_schema(
    {
        "type": "string",
        "pattern": VERSION_PATTERN,
        "description": "the view's table version; resume after it with Last-Event-ID",
    },
    {"enum": ["view", "error"]},
    "for `event: view`, the caller's seat view (schema `SeatView`), exactly as GET "
    '/v1/tables/{table_id}/view answers it at that version; for `event: error`, `{"code": ...}` '
    "(`stream_unavailable`, `view_unavailable`, or the code /view would answer, e.g. `no_seat`), which "
    "ends the stream",
)


class SeatStreamQuerySchema(Schema):
    class Meta:
        unknown = RAISE

    after = fields.Integer(
        validate=validate.Range(min=0, max=INT32_MAX),
        metadata={"description": "send the first view only once the table is past this version (Last-Event-ID wins)"},
    )


class SeatStreamHeadersSchema(Schema):
    class Meta:
        unknown = EXCLUDE

    last_event_id = fields.String(
        data_key="Last-Event-ID",
        metadata={"description": "resume after this SSE id (a table version, as sent)", "pattern": VERSION_PATTERN},
    )


def error_message(code: str) -> str:
    return f"event: error\ndata: {json_codec.dumps_text({'code': code})}\n\n"


def seat_views(
    read: Callable[[int, Following], Pushed],
    follow: Callable[[], Following],
    table_id: str,
    first: Pushed,
    after: int,
    lifetime: float,
    heartbeat: float,
) -> Iterator[str]:
    """The stream: `first` (the view read on connect, after the table stream's newest entry was noted) when it
    is past `after`, then a view read each time the process's reader of the tables' streams has read newer
    entries that moved the version (`read(newest version published, the following)`). `follow` starts
    following the table from the entry noted."""
    deadline = time.monotonic() + lifetime
    yield f"retry: 2000\n: seat view of table {table_id}\n\n"
    sent = after
    if first[0] > sent:
        sent, message = first
        yield message
    try:
        following = follow()
    except redis.RedisError:
        yield error_message("stream_unavailable")
        return
    try:
        while (remaining := deadline - time.monotonic()) > 0:
            published = following.next(min(heartbeat, remaining))
            if published is None:
                yield ": heartbeat\n\n"
                continue
            if published <= sent:
                continue  # already sent (published after the read of the view that carried them)
            try:
                version, message = read(published, following)
            except ServiceError as error:  # the caller lost the view (left its seat): what /view answers now
                yield error_message(error.code)
                return
            except redis.RedisError:
                raise
            except Exception:
                log.exception("a seat view stream could not read the view of table %s", table_id)
                yield error_message("view_unavailable")
                return
            if version > sent:
                sent = version
                yield message
    except redis.RedisError:
        yield error_message("stream_unavailable")
        return
    finally:
        following.close()
    yield ": connection lifetime reached; reconnect with Last-Event-ID\n\n"


def _resume_after(headers: dict[str, Any], query: dict[str, Any]) -> int:
    last_event_id = headers.get("last_event_id")
    if last_event_id is None:
        return int(query.get("after", -1))
    text = last_event_id.strip()
    if not _VERSION.match(text) or int(text) > INT32_MAX:
        raise ApiError(400, "invalid_last_event_id", f"Last-Event-ID must be a table version as sent, not {text!r}")
    return int(text)


@blp.route("/<uuid:table_id>/view/stream", methods=["GET"])
@secured(blp, 400, 403, 404, 503, operationId="followSeatView")
@blp.arguments(SeatStreamHeadersSchema(), location="headers", error_status_code=400)
@blp.arguments(SeatStreamQuerySchema(), location="query")
@blp.response(200, SEAT_VIEW_STREAM_SCHEMA, content_type="text/event-stream", description="Server-Sent Events")
def seat_view_stream(headers: dict[str, Any], query: dict[str, Any], table_id: uuid.UUID) -> Response:
    """The caller's seat view (as GET /view answers it), on connect and whenever the table's version moves.

    Each `event: view` is the seat view (schema `SeatView`, the same redaction as /view) read when the table's
    Redis stream moved; several events published together give one message, at the newest version. The SSE
    `id` is the view's version: a client reconnecting with `Last-Event-ID` (or `after`) receives the first
    view only once the table is past it. 403 `no_seat` (not seated, the auditor) and 404 as /view answers
    them; `event: error` ends a stream that lost Redis, its database, or the caller's seat. Admitted as a
    stream (a stream slot and one of the caller's), with the public stream's heartbeats and lifetime."""
    after = _resume_after(headers, query)
    who, services, table = caller(), container(), str(table_id)
    ledger = services.ledger
    queries, pushes = ledger.queries, seat_pushes.of(ledger.queries)

    def kept_view(published: int) -> Pushed | None:
        """When this process keeps a state of the table at the version published or newer (it served the
        write, or a stream of the table here read it), the view of that state: the view at its version, as
        GET /view answers it at that version (a read's answer could be newer, and is the next message)."""
        kept = queries.kept_state(table)
        if kept is not None and kept.version >= published:
            return pushes.message(queries, who, table, kept)  # None if not seated there: read, as /view does
        return None

    def read(published: int, following: Following) -> Pushed:
        """The view at the version published or newer: the state kept, else read (one stream of the table
        at a time in this process, the others finding the state it folded)."""
        with following.single_read():
            message = kept_view(published)
            if message is not None:
                return message
            message = pushes.message(queries, who, table, queries.load_state(table))
            return (
                message if message is not None else pushed(ledger.queries.seat_view(who, table))
            )  # what /view answers

    waits = table_waits.of(services.redis)
    try:
        # Noted before the read: an event committed after the read is published after this entry.
        head = waits.head(table)
    except redis.RedisError as error:
        raise ApiError(503, "stream_unavailable", "the event stream is unavailable; retry later") from error
    first = pushed(ledger.queries.seat_view(who, table))  # the problems of /view (404, 403 no_seat) before the stream
    config = current_app.config
    heartbeat = float(config.get("SSE_HEARTBEAT_SECONDS", 15))
    longest = redis_bus.longest_block(services.redis)  # as the public stream beats (services.api.resources.stream)
    messages = seat_views(
        read,
        lambda: waits.follow(table, head),
        table,
        first,
        after,
        float(config.get("SSE_MAX_SECONDS", 300)),
        heartbeat if longest is None else min(heartbeat, longest),
    )
    return event_stream_response(messages)
