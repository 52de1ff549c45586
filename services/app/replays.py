"""An action's idempotency record, and the answer a retry gets from it: the record keeps only what the log does
not, and the retry reads the rest back from the log.

The record keeps the answer's version, of its receipt what is not the table's, the version or the last event's
hash (the time, the key and the signature), and of each event its position and its data as the caller saw them
(redacted, in the first answer's key order; the store keeps the text as sent, migration 014). A retry rebuilds
each event through `shown_event`, the builder of the first answer, so it answers the same JSON, byte for byte.
Records written before keep the whole answer (`events`); they are answered as before.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import islice
from typing import Any

from domain.events import JSON
from infra.event_store import RecordedEvent
from services.app.answers import shown_event

SHOWN = "shown"  # the key of the events a record keeps; a record holding the whole answer has "events"
SIGNED = "signed"  # the receipt's own fields, when the rest of it is the table's, the version and the last hash
RECEIPT_FROM_LOG = ("table_id", "version", "hash")  # the first fields of a receipt (ReceiptSigner.sign)


def record_of(answer: Mapping[str, Any], table_id: str) -> dict[str, JSON]:
    """What the idempotency record of `answer` (from `write_answer`, not numbered) at `table_id` keeps."""
    shown: list[JSON] = []
    for event in answer["events"]:
        kept: dict[str, JSON] = {"position": event["position"], "data": event["data"]}
        if event["hash"] is None:
            kept["hashes_withheld"] = True
        metadata = event["metadata"]
        if list(metadata) != sorted(metadata):  # the log gives metadata back with its keys sorted
            kept["metadata"] = metadata
        shown.append(kept)
    record: dict[str, JSON] = {"version": answer["version"], SHOWN: shown}
    receipt = answer["receipt"]
    if receipt is not None and list(receipt)[:3] == list(RECEIPT_FROM_LOG) and receipt["table_id"] == table_id:
        last = answer["events"][-1] if answer["events"] else None
        if receipt["version"] == answer["version"] and last is not None and receipt["hash"] == last["hash"]:
            record[SIGNED] = dict(islice(receipt.items(), len(RECEIPT_FROM_LOG), None))  # its first keys are those
            return record
    record["receipt"] = receipt
    return record


def keeps_events_apart(record: Mapping[str, Any]) -> bool:
    return SHOWN in record


def positions_in(record: Mapping[str, Any]) -> list[int]:
    """The stream positions of the events the answer of `record` shows."""
    return [int(kept["position"]) for kept in record[SHOWN]]


def replayed(record: Mapping[str, Any], table_id: str, events: Sequence[RecordedEvent]) -> dict[str, JSON]:
    """The answer `record` was made from at `table_id`, numbered, its events (`positions_in`) read from the log."""
    by_version = {event.version: event for event in events}
    shown: list[dict[str, JSON]] = []
    for kept in record[SHOWN]:
        event = shown_event(by_version[int(kept["position"])], kept["data"], bool(kept.get("hashes_withheld")))
        if "metadata" in kept:
            event["metadata"] = kept["metadata"]
        shown.append(event)
    receipt: JSON = record.get("receipt")
    if SIGNED in record:
        receipt = {"table_id": table_id, "version": record["version"], "hash": shown[-1]["hash"], **record[SIGNED]}
    return {"version": record["version"], "events": list(shown), "receipt": receipt}
