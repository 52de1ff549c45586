"""Tables and seats: open a table, the lobby, the public state, sitting down and the seat view."""

from __future__ import annotations

import uuid
from typing import Any

from flask import Response

from domain.cha_kau_tsz.rules import CHA_KAU_TSZ
from domain.cholek_tiga.rules import CHOLEK_TIGA
from services.api.deps import container
from services.api.middleware.auth import caller
from services.api.middleware.headers import ETAG_HEADER, with_etag
from services.api.middleware.prefer import (
    PREFERENCE_APPLIED,
    PREFERENCE_APPLIED_HEADER,
    RETURN_REPRESENTATION,
    wants_representation,
)
from services.api.pushes.long_poll import awaited
from services.api.pushes.stream_claims import claim_stream
from services.api.routing import Blueprint, RateLimit, secured
from services.api.schemas.answers import (
    ConditionalReadHeadersSchema,
    LobbyQuerySchema,
    LobbySchema,
    MinVersionQuerySchema,
    OpenedTableSchema,
    PreferHeadersSchema,
    SeatRequestSchema,
    SeatSchema,
    SeatViewSchema,
    TableCreateSchema,
    TableSchema,
)
from services.api.spec.examples import (
    CHA_KAU_TSZ_SEAT_VIEW,
    CHOLEK_TIGA_SEAT_VIEW,
    OPENED_TABLE,
    SEAT,
    SEAT_REQUEST,
    TABLE,
    TABLE_CREATE,
)
from services.api.spec.meta import table_links

blp = Blueprint(
    "tables", __name__, url_prefix="/v1/tables", description="Tables, seats and views", rate_limit=RateLimit("reads")
)

LOCATION_HEADER = {"Location": {"description": "the new table, `/v1/tables/{table_id}`", "schema": {"type": "string"}}}

TableReply = tuple[dict[str, Any], int, dict[str, str]] | Response


@blp.route("", methods=["POST"])
@secured(
    blp,
    400,
    403,
    422,
    operationId="openTable",
    responses={201: {"links": table_links("$response.body#/id", "$response.body#/next_deal/deal_no")}},
)
@blp.arguments(TableCreateSchema(), examples=TABLE_CREATE)
@blp.response(201, OpenedTableSchema, headers={**LOCATION_HEADER, **ETAG_HEADER}, example=OPENED_TABLE)
def open_table(body: dict[str, Any]) -> tuple[dict[str, Any], int, dict[str, str]]:
    """Open a table. Options are the per-table settings of docs/rules.md; unknown or out-of-range ones are a 422.
    The answer carries the signed `receipt` of the opening (GET /v1/keys)."""
    view = container().ledger.open_table(caller(), body["game"], body["seats"], body["options"])
    return view, 201, {"Location": f"/v1/tables/{view['id']}", "ETag": f'"{view["version"]}"'}


@blp.route("", methods=["GET"])
@secured(blp, operationId="listTables")
@blp.arguments(LobbyQuerySchema(), location="query")
@blp.response(200, LobbySchema)
def lobby(query: dict[str, Any]) -> dict[str, Any]:
    """The lobby, oldest first, cursor paginated (`after` = the previous page's `next_after`).

    Read from the table_views projection: a new table appears once the projection has caught up.
    """
    return container().ledger.queries.lobby(query.get("status"), query.get("game"), query["after"], query["limit"])


@blp.route("/<uuid:table_id>", methods=["GET"])
@secured(blp, 400, 404, 503, operationId="getTable")
@blp.arguments(ConditionalReadHeadersSchema(), location="headers", error_status_code=400)
@blp.arguments(MinVersionQuerySchema(), location="query")
@blp.response(200, TableSchema, headers=ETAG_HEADER, example=TABLE)
@blp.alt_response(304, description="Not Modified (If-None-Match names the current version)")
def table(headers: dict[str, Any], query: dict[str, Any], table_id: uuid.UUID) -> TableReply:
    """The public state of a table; its `version` is also the ETag. With `wait_for_version`, a long-poll."""
    table = str(table_id)
    ledger = container().ledger
    if query.get("wait_for_version") is not None:
        claim_stream(caller(), table)  # a long-poll holds a stream slot: players of the table first
    view = awaited(ledger.table_view_reads(table), table, query.get("wait_for_version"), headers.get("prefer"))
    return with_etag(view)


@blp.route("/<uuid:table_id>/seats", methods=["POST"])
@secured(
    blp, 400, 403, 404, 409, 422, operationId="sit", responses={201: {"links": table_links("$request.path.table_id")}}
)
@blp.arguments(PreferHeadersSchema(), location="headers", error_status_code=400)
@blp.arguments(SeatRequestSchema(), examples=SEAT_REQUEST)
@blp.response(201, SeatSchema, headers=PREFERENCE_APPLIED_HEADER, example=SEAT)
def sit(headers: dict[str, Any], body: dict[str, Any], table_id: uuid.UUID) -> TableReply:
    """Sit down (at `seat`, or the first free one): before the first deal, or between deals in a seat someone
    left (sitting down then counts as `ready`). When the last seat is filled and every seat is ready, the next
    deal starts. The answer carries the signed `receipt` of the write; with `Prefer: return=representation`,
    also `view`, your seat view after it."""
    with_view = wants_representation(headers.get("prefer"))
    seated = container().ledger.sit(caller(), str(table_id), body.get("seat"), body.get("client_seed"), with_view)
    return seated, 201, {PREFERENCE_APPLIED: RETURN_REPRESENTATION} if "view" in seated else {}


@blp.route("/<uuid:table_id>/view", methods=["GET"])
@secured(blp, 400, 403, 404, 503, operationId="getSeatView")
@blp.arguments(ConditionalReadHeadersSchema(), location="headers", error_status_code=400)
@blp.arguments(MinVersionQuerySchema(), location="query")
@blp.response(
    200,
    SeatViewSchema,
    headers=ETAG_HEADER,
    examples={
        CHOLEK_TIGA.name: {"summary": "Cholek Tiga, seat 0 to discard", "value": CHOLEK_TIGA_SEAT_VIEW},
        CHA_KAU_TSZ.name: {"summary": "Cha Kau Tsz, seat 1 to lead", "value": CHA_KAU_TSZ_SEAT_VIEW},
    },
)
@blp.alt_response(304, description="Not Modified (If-None-Match names the current version)")
def seat_view(headers: dict[str, Any], query: dict[str, Any], table_id: uuid.UUID) -> TableReply:
    """The caller's seat view: the public state plus `seat`, `hand` and `legal_actions`. 403 without a seat.
    With `wait_for_version`, a long-poll: a seat waiting for its turn learns of it here without polling."""
    table, who = str(table_id), caller()
    ledger = container().ledger
    view = awaited(ledger.seat_view_reads(who, table), table, query.get("wait_for_version"), headers.get("prefer"))
    return with_etag(view)
