"""Long-poll reads: `wait_for_version` on GET /v1/tables/{id} and /view holds the answer until the table has
reached that version or the wait has passed, then answers the view as it is then.

The wait holds no database connection: it waits on the table's Redis stream, where the relay publishes every
committed event, through the process's one reader of the tables' streams (`services.api.pushes.table_waits`). The
served app admits a long-poll as a stream (`services.api.middleware.admission`): on a stream thread, within the caller's
stream slots.

A long-poll reads the store once, not before and after its wait: when the state this process keeps of the
table is below the version asked for and the table stream's newest entry is too, the table has not reached it
(or its relay has not published it yet), so the read waits for the stream first and reads the store after. A
table whose stream this process follows already (another waiter, or one that has just left) needs no Redis
command for that: the reader's newest entry stands for the stream's, as every later entry reaches it.
Otherwise (a state kept at that version or above, none kept, the caller not seated in it, an empty stream, or
Redis failing) it reads the store first, as a read without `wait_for_version` does. A state kept at the
version asked for is not answered without a read: a newer write may have been committed by another process,
and the answer is the view as it is.
"""

from __future__ import annotations

import time
from typing import Any

import redis
from flask import current_app

from services.api.deps import container
from services.api.middleware.prefer import preferred_wait
from services.api.middleware.problems import ApiError
from services.api.pushes import table_waits
from services.app.view_reads import ViewReads

RETRY_AFTER_SECONDS = 5

Head = tuple[str, int | None]  # a table stream's entry: its id, the version it carries


def wait_seconds(prefer: str | None) -> float:
    """The server's wait (LONG_POLL_SECONDS), shortened by a `Prefer: wait=<seconds>`."""
    longest = float(current_app.config.get("LONG_POLL_SECONDS", 25))
    preferred = preferred_wait(prefer)
    return longest if preferred is None else min(longest, float(preferred))


def awaited(reads: ViewReads, table_id: str, wait_for: int | None, prefer: str | None) -> dict[str, Any]:
    """The view now, once the table has reached `wait_for` (at once without it), or after the wait."""
    if wait_for is None:
        return reads.now()
    kept = reads.kept()
    head = None
    if kept is not None and kept.version < wait_for and reads.admits(kept):
        head = _published_below(table_id, wait_for)
    if head is None:
        view = reads.now()
        if int(view["version"]) >= wait_for:
            return view
    _wait(table_id, wait_for, prefer, head)
    return reads.now()


def _published_below(table_id: str, version: int) -> Head | None:
    """The table stream's newest entry (its id and version) when that is below `version` (the relay has
    published no event at `version` yet, so waiting first cannot miss it); None when it is not, or cannot be
    told."""
    try:
        head = table_waits.of(container().redis).head(table_id)
    except redis.RedisError:
        return None  # the read answers when the table is there; else the wait says the stream is down
    if head is None or head[1] is None or head[1] >= version:
        return None
    return head


def _wait(table_id: str, wait_for: int, prefer: str | None, head: Head | None) -> None:
    try:
        wait_for_version(table_waits.of(container().redis), table_id, wait_for, wait_seconds(prefer), head)
    except redis.RedisError as error:
        raise ApiError(
            503,
            "stream_unavailable",
            f"cannot wait for version {wait_for} of table {table_id}: the event stream is unavailable; "
            f"read without wait_for_version, or retry in {RETRY_AFTER_SECONDS} s",
            headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
        ) from error


def wait_for_version(
    waits: table_waits.TableWaits, table_id: str, version: int, seconds: float, head: Head | None = None
) -> bool:
    """Wait, at most `seconds`, until the table's stream holds an event at `version` or above; True when it does.

    A caller that read the table below `version` from the store calls this next: an event committed after that
    read is published after the stream's newest entry then, which is noted here. A caller that has just found
    the newest entry (`TableWaits.head`) below `version` passes it as `head`: entries after it only."""
    if head is None:
        head = waits.head(table_id)
        if head is not None and head[1] is not None and head[1] >= version:
            return True
    following = waits.follow(table_id, head)
    try:
        deadline = time.monotonic() + seconds
        while (remaining := deadline - time.monotonic()) > 0:
            published = following.next(remaining)
            if published is not None and published >= version:
                return True
        return False
    finally:
        following.close()
