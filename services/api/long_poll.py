"""Long-poll reads: `wait_for_version` on GET /v1/tables/{id} and /view holds the answer until the table has
reached that version or the wait has passed, then answers the view as it is then.

The wait holds no database connection: it blocks on the table's Redis stream, where the relay publishes every
committed event (`infra.redis_bus.wait_for_table_version`). The served app admits a long-poll as a stream
(`services.api.admission`): on a stream thread, within the caller's stream slots.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import redis
from flask import current_app

from infra import redis_bus
from services.api.deps import container
from services.api.prefer import preferred_wait
from services.api.problems import ApiError

RETRY_AFTER_SECONDS = 5


def wait_seconds(prefer: str | None) -> float:
    """The server's wait (LONG_POLL_SECONDS), shortened by a `Prefer: wait=<seconds>`."""
    longest = float(current_app.config.get("LONG_POLL_SECONDS", 25))
    preferred = preferred_wait(prefer)
    return longest if preferred is None else min(longest, float(preferred))


def awaited(
    read: Callable[[], dict[str, Any]], table_id: str, wait_for: int | None, prefer: str | None
) -> dict[str, Any]:
    """`read()`'s view once the table is at `wait_for` or above (at once when it already is, or without
    `wait_for`); after the wait, the view as it is then."""
    view = read()
    if wait_for is None or int(view["version"]) >= wait_for:
        return view
    try:
        redis_bus.wait_for_table_version(container().redis, table_id, wait_for, wait_seconds(prefer))
    except redis.RedisError as error:
        raise ApiError(
            503,
            "stream_unavailable",
            f"cannot wait for version {wait_for} of table {table_id}: the event stream is unavailable; "
            f"read without wait_for_version, or retry in {RETRY_AFTER_SECONDS} s",
            headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
        ) from error
    return read()
