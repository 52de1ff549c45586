"""Reports: settlement (JSON or CSV) and dispute (JSON or HTML)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlencode

from flask import Response, request

from services.api.deps import container
from services.api.middleware.auth import caller
from services.api.routing import Blueprint, RateLimit, secured
from services.api.schemas.answers import (
    DisputePageQuerySchema,
    DisputeQuerySchema,
    DisputeReceiptsRequestSchema,
    DisputeSchema,
    DisputeWithReceiptsSchema,
    SettlementCsvQuerySchema,
    SettlementQuerySchema,
    SettlementSchema,
)
from services.api.spec.examples import DISPUTE_RECEIPTS, SETTLEMENT
from services.app.audit.html import CONTENT_SECURITY_POLICY
from services.app.audit.reports import SETTLEMENT_COLUMNS
from services.app.audit.service import dispute_html, settlement_csv
from services.app.errors import Forbidden

blp = Blueprint(
    "reports",
    __name__,
    url_prefix="/v1/reports",
    description="Settlement and dispute reports",
    rate_limit=RateLimit("reports"),
)

_CSV = {
    "schema": {
        "type": "string",
        "description": "a header row (" + ",".join(SETTLEMENT_COLUMNS) + "), one row per account per table, "
        "then a TOTAL row (net_cents and deals); cells a spreadsheet would run as a formula start with a quote",
    }
}
_HTML = {"schema": {"type": "string", "description": "the dispute report as a standalone HTML page"}}
_NEXT_PAGE_HEADER = {
    "Link": {
        "description": 'the next page, `<url>; rel="next"`, when there is one (the CSV has no `next_after`)',
        "schema": {"type": "string"},
    }
}
DISPUTE_RECEIPTS_MAX_BYTES = 512 * 1024  # room for MAX_DISPUTE_RECEIPTS receipts (about 330 bytes each)


@blp.before_request  # type: ignore[untyped-decorator]
def _room_for_receipts() -> None:
    if request.endpoint == f"{blp.name}.dispute_with_receipts":
        request.max_content_length = DISPUTE_RECEIPTS_MAX_BYTES


@blp.route("/settlement", methods=["GET"])
@secured(blp, 403, 404, operationId="getSettlementReport", responses={200: {"content": {"text/csv": _CSV}}})
@blp.arguments(SettlementQuerySchema(), location="query")
@blp.response(200, SettlementSchema, headers=_NEXT_PAGE_HEADER, example=SETTLEMENT)
def settlement(query: dict[str, Any]) -> tuple[dict[str, Any], int, dict[str, str]] | Response:
    """Net per player and per table over the period (`from` inclusive, `to` exclusive), deals dated by their
    end. Players see their own figures only (403 for another player's id); the auditor sees all.
    `format=csv` answers text/csv (as GET /v1/reports/settlement.csv does, for clients that read one media
    type per operation).

    The pool refund of an abandoned Cha Kau Tsz table is dated by its closing (`table_closed`) and shown on
    rows of its own, account `player:<id>`, one per player refunded, and on the pool's row; a closing is not
    a deal (docs/house-rules.md).

    Read from the deal_settlements projection (as fresh as it is). Paged by table: at most `limit` tables
    (default 100, at most 200; a table has at most 5 rows for its deals, and one more per player its closing
    refunded) in table id order; `next_after` (and, for CSV, the `Link` header) gives the next page, null on
    the last. Every figure of a page, the CSV's TOTAL row included, covers the tables of that page."""
    report, headers = _settlement(query)
    if query["format"] == "csv":
        return Response(settlement_csv(report), mimetype="text/csv", headers=headers)
    return report, 200, headers


@blp.route("/settlement.csv", methods=["GET"])
@secured(blp, 403, 404, operationId="getSettlementCsv")
@blp.arguments(SettlementCsvQuerySchema(), location="query")
@blp.response(200, _CSV["schema"], content_type="text/csv", headers=_NEXT_PAGE_HEADER, description="CSV")
def settlement_as_csv(query: dict[str, Any]) -> Response:
    """The settlement report of GET /v1/reports/settlement as CSV (its `format=csv`)."""
    report, headers = _settlement(query)
    return Response(settlement_csv(report), mimetype="text/csv", headers=headers)


def _settlement(query: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """The report page `query` asks for, authorized, and its `Link` header."""
    who = caller()
    player_id = str(query["player_id"]) if "player_id" in query else None
    if not who.is_auditor:
        if player_id is not None and player_id != who.player_id:
            raise Forbidden("players may read their own settlement only", "not_your_report")
        player_id = who.player_id
    table_id = str(query["table_id"]) if "table_id" in query else None
    after = str(query["after"]) if "after" in query else None
    audit = container().audit
    report = audit.settlement_report(
        who, player_id, table_id, query.get("date_from"), query.get("date_to"), after, query["limit"]
    )
    return report, _next_page_link(report.get("next_after"))


def _next_page_link(next_after: Any) -> dict[str, str]:
    """`Link: <this request with after=next_after>; rel="next"` when another page follows."""
    if next_after is None:
        return {}
    args = [(key, value) for key, value in request.args.items(multi=True) if key != "after"]
    url = request.path + "?" + urlencode([*args, ("after", str(next_after))])
    return {"Link": f'<{url}>; rel="next"'}


def _wants_html(explicit: str | None) -> bool:
    if explicit is not None:
        return explicit == "html"
    best = request.accept_mimetypes.best_match(["application/json", "text/html"])
    return best == "text/html" and request.accept_mimetypes["text/html"] > request.accept_mimetypes["application/json"]


@blp.route("/dispute", methods=["GET"])
@secured(blp, 403, 404, operationId="getDisputeReport", responses={200: {"content": {"text/html": _HTML}}})
@blp.arguments(DisputeQuerySchema(), location="query")
@blp.response(200, DisputeSchema)
def dispute(query: dict[str, Any]) -> dict[str, Any] | Response:
    """The deal replayed step by step with the verification of commitment, deck, hash chain and result.
    HTML with `format=html` or `Accept: text/html` (as GET /v1/reports/dispute.html answers, for clients that
    read one media type per operation)."""
    audit = container().audit
    report = audit.dispute_report(caller(), str(query["table_id"]), query["deal_no"])
    if _wants_html(query.get("format")):
        return _dispute_page(report)
    return report


@blp.route("/dispute.html", methods=["GET"])
@secured(blp, 403, 404, operationId="getDisputePage")
@blp.arguments(DisputePageQuerySchema(), location="query")
@blp.response(200, _HTML["schema"], content_type="text/html", description="HTML")
def dispute_page(query: dict[str, Any]) -> Response:
    """The dispute report of GET /v1/reports/dispute as a standalone HTML page."""
    report = container().audit.dispute_report(caller(), str(query["table_id"]), query["deal_no"])
    return _dispute_page(report)


def _dispute_page(report: dict[str, Any]) -> Response:
    page = dispute_html(report, generated_at=datetime.now(UTC))
    headers = {"Content-Security-Policy": CONTENT_SECURITY_POLICY, "X-Content-Type-Options": "nosniff"}
    return Response(page, mimetype="text/html", headers=headers)


@blp.route("/dispute", methods=["POST"])
@secured(blp, 400, 403, 404, 413, 422, operationId="submitDisputeReceipts")
@blp.arguments(DisputeReceiptsRequestSchema(), example=DISPUTE_RECEIPTS)
@blp.response(200, DisputeWithReceiptsSchema)
def dispute_with_receipts(body: dict[str, Any]) -> dict[str, Any]:
    """The dispute report of GET /v1/reports/dispute (same authorization) plus `receipts`: each submitted receipt
    of this table checked against the listed keys (GET /v1/keys) beside the log's hash at its version. A valid
    signature on a hash the log no longer holds is `rewritten_history`. At most 1000 receipts (512 KiB)."""
    table_id = str(body["table_id"])
    return container().audit.dispute_with_receipts(caller(), table_id, body["deal_no"], body["receipts"])
