"""Errors of the infrastructure layer, each naming the values involved."""

from __future__ import annotations


class StoreError(Exception):
    code = "store_error"


class VersionConflict(StoreError):
    """The stream moved on: another writer appended first."""

    code = "version_conflict"

    def __init__(self, stream_id: str, expected: int, actual: int | None) -> None:
        actual_text = "missing" if actual is None else f"at version {actual}"
        super().__init__(f"stream {stream_id} expected at version {expected} but it is {actual_text}")
        self.stream_id = stream_id
        self.expected = expected
        self.actual = actual


class IdempotencyKeyTaken(StoreError):
    """A concurrent request recorded the same idempotency key first."""

    code = "idempotency_key_taken"

    def __init__(self, scope: str, key: str) -> None:
        super().__init__(f"idempotency key {key!r} of {scope} was recorded by a concurrent request")
        self.scope = scope
        self.key = key


class TableLogInconsistent(StoreError):
    """A table's stored events do not fold: one of them cannot apply to the state before it (an event altered
    where it is stored). Reads of the raw log still work; nothing is decided or written on such a table."""

    code = "table_log_inconsistent"

    def __init__(self, stream_id: str, version: int, event_type: str, reason: str) -> None:
        super().__init__(
            f"the log of table {stream_id} does not fold: event {version} ({event_type}) cannot apply to the state "
            f"before it: {reason}; its raw events can still be read and verified (cardledger verify)"
        )
        self.stream_id = stream_id
        self.version = version
        self.event_type = event_type
        self.reason = reason
