"""An action's idempotency record (services/app/replays.py): it keeps what the log does not, and the answer
rebuilt from it and the log is the first answer, byte for byte, whatever the answer holds."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from domain.redaction import PUBLIC
from infra.event_store import RecordedEvent
from infra.signing import ReceiptSigner
from services.app.answers import event_json
from services.app.replays import record_of, replayed

TABLE = "00000000-0000-0000-0000-000000000007"
MOMENT = datetime(2026, 12, 1, 22, 0, 0, 123456, tzinfo=UTC)


def logged(version: int, data: dict[str, Any], metadata: dict[str, Any]) -> RecordedEvent:
    """An event as a store reads it back: data and metadata with their keys sorted (canonical JSON)."""
    return RecordedEvent(
        100 + version,
        TABLE,
        version,
        "card_played",
        1,
        3,
        dict(sorted(data.items())),
        dict(sorted(metadata.items())),
        MOMENT,
        f"{version - 1:064x}",
        f"{version:064x}",
        9,
        2,
    )


def first_answer(events: list[RecordedEvent], data: list[dict[str, Any]], withheld: bool, receipt: Any) -> Any:
    """The answer `write_answer` makes (the events as decided: data in the domain's key order), numbered."""
    shown = []
    for event, decided in zip(events, data, strict=True):
        shown.append(event_json(event._replace(data=decided), PUBLIC, deal_over=False, hashes_withheld=withheld))
    return {"version": events[-1].version, "events": shown, "receipt": receipt}


def stored(answer: Any) -> Any:
    """`answer` as write_answer leaves it (positions not yet numbered), recorded, and read back from a json column."""
    unnumbered = {**answer, "events": [{**event, "global_position": None} for event in answer["events"]]}
    return json.loads(json.dumps(record_of(unnumbered, TABLE)))


def test_a_replay_is_the_first_answer_byte_for_byte() -> None:
    data = [{"seat": 1, "card": "4M", "private": {"hand": ["1C"]}}, {"seat": 0, "capture": None, "card": "2S"}]
    events = [logged(7, data[0], {"actor": "p1", "request_id": "r1"}), logged(8, data[1], {"actor": "p1"})]
    signer = ReceiptSigner.ephemeral()
    answer = first_answer(events, data, False, signer.sign(TABLE, 8, events[-1].hash))

    record = stored(answer)
    assert json.dumps(replayed(record, TABLE, events)) == json.dumps(answer)
    text = json.dumps(record)
    assert events[0].hash not in text and events[-1].hash not in text and TABLE not in text  # the log has them
    assert "private" not in text  # as the caller saw the data


def test_withheld_hashes_no_receipt_and_unsorted_metadata_are_replayed_as_they_were() -> None:
    data = [{"seat": 1, "card": "4M"}]
    events = [logged(3, data[0], {"request_id": "r1", "actor": "p1"})]
    answer = first_answer(events, data, True, None)
    answer["events"][0]["metadata"] = {"request_id": "r1", "actor": "p1"}  # as the store was given it

    assert json.dumps(replayed(stored(answer), TABLE, events)) == json.dumps(answer)


def test_a_receipt_that_is_not_the_answers_is_kept_whole() -> None:
    data = [{"seat": 1, "card": "4M"}]
    events = [logged(3, data[0], {"actor": "p1"})]
    receipt = ReceiptSigner.ephemeral().sign("another-table", 3, events[-1].hash)
    answer = first_answer(events, data, False, receipt)

    assert json.dumps(replayed(stored(answer), TABLE, events)) == json.dumps(answer)
