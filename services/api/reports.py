"""Reports: settlement (JSON or CSV) and dispute (JSON or HTML)."""

from __future__ import annotations

from typing import Any

from flask import Response, request

from services.api.auth import caller
from services.api.deps import container
from services.api.routing import Blueprint, secured
from services.api.schemas import DisputeQuerySchema, DisputeSchema, SettlementQuerySchema, SettlementSchema
from services.audit import dispute_html, settlement_csv
from services.errors import Forbidden

blp = Blueprint("reports", __name__, url_prefix="/v1/reports", description="Settlement and dispute reports")

_TEXT = {"schema": {"type": "string"}}


@blp.route("/settlement", methods=["GET"])
@secured(blp, 403, 404)
@blp.arguments(SettlementQuerySchema(), location="query")
@blp.response(200, SettlementSchema)
@blp.doc(responses={200: {"content": {"text/csv": _TEXT}}})
def settlement(query: dict[str, Any]) -> dict[str, Any] | Response:
    """Net per player and per table over the period (`from` inclusive, `to` exclusive). Players see their own
    figures only (403 for another player's id); the auditor sees all. `format=csv` answers text/csv."""
    who = caller()
    player_id = str(query["player_id"]) if "player_id" in query else None
    if not who.is_auditor:
        if player_id is not None and player_id != who.player_id:
            raise Forbidden("players may read their own settlement only", "not_your_report")
        player_id = who.player_id
    table_id = str(query["table_id"]) if "table_id" in query else None
    audit = container().audit
    report = audit.settlement_report(who, player_id, table_id, query.get("date_from"), query.get("date_to"))
    if query["format"] == "csv":
        return Response(settlement_csv(report), mimetype="text/csv")
    return report


def _wants_html(explicit: str | None) -> bool:
    if explicit is not None:
        return explicit == "html"
    best = request.accept_mimetypes.best_match(["application/json", "text/html"])
    return best == "text/html" and request.accept_mimetypes["text/html"] > request.accept_mimetypes["application/json"]


@blp.route("/dispute", methods=["GET"])
@secured(blp, 403, 404)
@blp.arguments(DisputeQuerySchema(), location="query")
@blp.response(200, DisputeSchema)
@blp.doc(responses={200: {"content": {"text/html": _TEXT}}})
def dispute(query: dict[str, Any]) -> dict[str, Any] | Response:
    """The deal replayed step by step with the verification of commitment, deck, hash chain and result.
    HTML with `format=html` or `Accept: text/html`."""
    audit = container().audit
    report = audit.dispute_report(caller(), str(query["table_id"]), query["deal_no"])
    if _wants_html(query.get("format")):
        return Response(dispute_html(report), mimetype="text/html")
    return report
