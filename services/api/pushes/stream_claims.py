"""Seated players first: a stream or long-poll of someone who is not seated at the table (a bystander, the
auditor) keeps its slot only while bystanders hold fewer than the slots not reserved for players
(`services.api.middleware.admission.StreamPool`)."""

from __future__ import annotations

from flask import request

from infra.errors import TableLogInconsistent
from services.api.deps import container
from services.api.middleware.admission import RETRY_AFTER_SECONDS, STREAM_TICKET, StreamTicket
from services.api.middleware.problems import ApiError
from services.app.callers import Caller
from services.app.errors import NotFound


def claim_stream(who: Caller, table_id: str) -> None:
    """Keep this stream's slot, or refuse it with 503 `stream_busy` when the caller is no player of the table and
    the slots bystanders may hold are taken. Without the admission middleware (a test's app) it does nothing."""
    ticket = request.environ.get(STREAM_TICKET)
    if not isinstance(ticket, StreamTicket) or _seated(who, table_id):
        return
    refused = ticket.as_bystander()
    if refused is None:
        return
    retry = {"Retry-After": str(RETRY_AFTER_SECONDS)}
    if refused == "too_many_streams":
        raise ApiError(
            429,
            refused,
            f"one client address follows at most {ticket.pool.per_address} streams at once on this server as a "
            f"bystander, whatever its tokens (a long-poll counts as one); close one first, or retry in "
            f"{RETRY_AFTER_SECONDS} s",
            headers=retry,
        )
    raise ApiError(
        503,
        refused,
        f"this server keeps {ticket.pool.reserved} of its {ticket.pool.total} streams for the players seated at a "
        f"table, and the others are taken; retry in {RETRY_AFTER_SECONDS} s or read the table instead",
        headers=retry,
    )


def _seated(who: Caller, table_id: str) -> bool:
    if who.player_id is None:
        return False
    try:
        return container().ledger.queries.load_state(table_id).seat_of(who.player_id) is not None
    except (NotFound, TableLogInconsistent):
        return False
