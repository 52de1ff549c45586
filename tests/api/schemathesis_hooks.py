"""Hooks of the schemathesis run (test_schemathesis.py), for the rules the document cannot state: a rule between two
parameters, and what depends on the state of a table."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import schemathesis


def _moment(text: Any) -> datetime | None:
    try:
        moment = datetime.fromisoformat(str(text))
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


@schemathesis.hook
def filter_query(context: Any, query: dict[str, Any] | None) -> bool:
    """A settlement period must end after it starts (`from` < `to`, else 422 invalid_period): a rule between two
    parameters, which OpenAPI has no way to say. Such periods are not generated."""
    if not query or "from" not in query or "to" not in query:
        return True
    start, end = _moment(query["from"]), _moment(query["to"])
    return start is None or end is None or start < end


# Refusals of a schema-valid request that only the table's state decides, named by their problem `code`.
STATE_REFUSALS = {
    "invalid_seat": "a seat number beyond this table's seats (the table says how many, 2 to 4)",
}


@schemathesis.hook
def filter_failure(context: Any, failure: Any, case: Any, response: Any) -> bool:
    """Drops only the failure of a schema-valid request refused with one of STATE_REFUSALS; a 422 for any other
    reason (validation_error, say: the document promising what the service refuses) still fails the run."""
    if response.status_code != 422:
        return True
    try:
        code = response.json().get("code")
    except (ValueError, AttributeError):
        return True
    return code not in STATE_REFUSALS
