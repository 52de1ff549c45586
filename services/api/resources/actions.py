"""POST /v1/tables/{id}/actions: the one write of a running table."""

from __future__ import annotations

import uuid
from typing import Any

from services.api.deps import container
from services.api.middleware.auth import caller
from services.api.middleware.headers import parse_if_match
from services.api.middleware.prefer import (
    PREFERENCE_APPLIED,
    PREFERENCE_APPLIED_HEADER,
    RETURN_REPRESENTATION,
    wants_representation,
)
from services.api.routing import Blueprint, RateLimit, secured
from services.api.schemas.answers import ActionHeadersSchema, ActionResultSchema, ActionSchema
from services.api.spec.examples import ACTION_RESULT, ACTIONS
from services.api.spec.meta import table_links

TABLE = "$request.path.table_id"
DEAL = "$response.body#/events/0/deal_no"
RECEIPTS_LINK = {
    "operationId": "submitDisputeReceipts",
    "requestBody": {"table_id": TABLE, "deal_no": DEAL, "receipts": ["$response.body#/receipt"]},
    "description": "check this write's receipt against the log",
}

LINKS = {**table_links(TABLE, DEAL), "submitDisputeReceipts": RECEIPTS_LINK}

blp = Blueprint(
    "actions", __name__, url_prefix="/v1/tables", description="Actions at a table", rate_limit=RateLimit("actions")
)


@blp.route("/<uuid:table_id>/actions", methods=["POST"])
@secured(blp, 400, 403, 404, 409, 412, 422, operationId="act", responses={201: {"links": LINKS}})
@blp.arguments(ActionHeadersSchema(), location="headers", error_status_code=400)
@blp.arguments(ActionSchema(), examples=ACTIONS)
@blp.response(201, ActionResultSchema, headers=PREFERENCE_APPLIED_HEADER, example=ACTION_RESULT)
def act(
    headers: dict[str, Any], body: dict[str, Any], table_id: uuid.UUID
) -> tuple[dict[str, Any], int, dict[str, str]]:
    """Act at the table: a play of the game, or `ready`, `close` or `leave` between deals (`leave` also before the
    first deal; during a deal it is a 409 `deal_in_progress`). A seat that lets its `turn_deadline` pass gets the
    turn clock's default action instead (docs/house-rules.md). `Idempotency-Key` is required: a retry with the
    same key and body returns the first answer and appends nothing; the same key with another body is a 422
    `idempotency_key_reused`.
    `If-Match: "<version>"` makes the action conditional on the table's version (412 otherwise).
    The answer carries the signed `receipt` of the write (a replay, the first answer's receipt).
    `Prefer: return=representation` adds `view`, the caller's seat view at the new version (hand, legal actions,
    public state), so a client holding its view needs no read after its action; a replay's `view` is the view
    now."""
    expected = parse_if_match(headers.get("if_match"))
    with_view = wants_representation(headers.get("prefer"))
    answer = container().ledger.act(caller(), str(table_id), body, headers["idempotency_key"], expected, with_view)
    return answer, 201, {PREFERENCE_APPLIED: RETURN_REPRESENTATION} if "view" in answer else {}
