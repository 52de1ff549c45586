"""History and audit of a table: its events, the record of a deal, its ledger."""

from __future__ import annotations

import uuid
from typing import Any

from services.api.deps import container
from services.api.middleware.auth import caller
from services.api.routing import Blueprint, RateLimit, secured
from services.api.schemas.answers import (
    INT32_MAX,
    DealRecordSchema,
    EventsPageSchema,
    EventsQuerySchema,
    LedgerQuerySchema,
    LedgerSchema,
)
from services.api.spec.examples import DEAL_RECORD, EVENTS_PAGE, LEDGER
from services.app.errors import NotFound

blp = Blueprint(
    "history",
    __name__,
    url_prefix="/v1/tables",
    description="History, deal records and ledgers",
    rate_limit=RateLimit("reports"),
)


@blp.route("/<uuid:table_id>/events", methods=["GET"])
@secured(blp, 404, operationId="listEvents")
@blp.arguments(EventsQuerySchema(), location="query")
@blp.response(200, EventsPageSchema, example=EVENTS_PAGE)
def events(query: dict[str, Any], table_id: uuid.UUID) -> dict[str, Any]:
    """The table's events after position `after`, redacted for the caller: a hand's cards are shown only to
    its holder until the deal ends, then to every seated player and the auditor."""
    return container().ledger.queries.events(caller(), str(table_id), query["after"], query["limit"])


@blp.route("/<uuid:table_id>/deals/<int:deal_no>", methods=["GET"])
@secured(blp, 403, 404, operationId="getDeal")
@blp.response(200, DealRecordSchema, example=DEAL_RECORD)
def deal_record(table_id: uuid.UUID, deal_no: int) -> dict[str, Any]:
    """A deal's commitment, client seeds, server seed (once ended), result and the service's verification."""
    if not 1 <= deal_no <= INT32_MAX:
        raise NotFound(f"deal {deal_no} does not exist", "deal_not_found")
    return container().audit.deal_record(caller(), str(table_id), deal_no)


@blp.route("/<uuid:table_id>/ledger", methods=["GET"])
@secured(blp, 403, 404, operationId="getLedger")
@blp.arguments(LedgerQuerySchema(), location="query")
@blp.response(200, LedgerSchema, example=LEDGER)
def ledger(query: dict[str, Any], table_id: uuid.UUID) -> dict[str, Any]:
    """A page of the table's double-entry ledger lines in log order (from the ledger projection, as fresh as it
    is), cursor paginated: `after` = the previous page's `next_after`, null on the last page. `totals`,
    `sum_amount`, `sum_cents`, `balanced` and `line_count` cover the whole table on every page."""
    return container().audit.table_ledger(caller(), str(table_id), query.get("after"), query["limit"])
