"""Logs keep secrets out: a whole deal played through the API at DEBUG logs no private card list and no token.

Also: the request id is taken from X-Request-ID (or generated), sent back, and recorded in the events.
"""

from __future__ import annotations

import json
import logging
import random
from typing import Any

import psycopg
import pytest
from psycopg.rows import dict_row

from domain.events import PRIVATE
from services.logs import JsonFormatter
from tests.api.conftest import AUDITOR_TOKEN, Api, bearer, metrics_text, play_deal


def _card_lists(value: Any) -> list[list[str]]:
    """Every list of strings (hands, stock slices) inside a private part."""
    found: list[list[str]] = []
    if isinstance(value, list) and value and all(isinstance(item, str) for item in value):
        found.append(value)
    elif isinstance(value, list):
        for item in value:
            found.extend(_card_lists(item))
    elif isinstance(value, dict):
        for item in value.values():
            found.extend(_card_lists(item))
    return found


def test_a_deal_at_debug_logs_no_private_cards_and_no_token(
    api: Api, clean: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    _, alice = api.register("alice")
    _, bob = api.register("bob")
    table = api.open_table(alice)["id"]
    api.sit(alice, table, 0)
    api.sit(bob, table, 1)
    play_deal(api, table, [alice, bob], random.Random(7))
    api.client.get(f"/v1/tables/{table}/events", headers=bearer(AUDITOR_TOKEN))
    api.client.get("/v1/tables/not-a-table", headers=bearer(alice))  # an error path too
    api.client.get("/v1/tables", headers={"Authorization": "Bearer wrong-token-0123456789"})

    with psycopg.connect(clean, row_factory=dict_row) as conn:
        rows = conn.execute("SELECT data FROM events WHERE stream_id = %s", (table,)).fetchall()
    private_lists = [cards for row in rows if PRIVATE in row["data"] for cards in _card_lists(row["data"][PRIVATE])]
    assert private_lists, "the deal had no private part to look for"
    secrets = [alice, bob, AUDITOR_TOKEN, "wrong-token-0123456789"]

    formatter = JsonFormatter()
    assert caplog.records, "nothing was logged at DEBUG"
    assert any(r.name == "cardledger.api.requests" for r in caplog.records)
    for record in caplog.records:
        text = record.getMessage() + "\n" + formatter.format(record)
        for secret in secrets:
            assert secret not in text, (record.name, "a token was logged")
        for cards in private_lists:
            for rendering in (json.dumps(cards), json.dumps(cards, separators=(",", ":")), repr(cards), str(cards)):
                assert rendering not in text, (record.name, "a private card list was logged")


def test_request_id_is_echoed_and_recorded_in_the_events(api: Api, clean: str) -> None:
    _, alice = api.register("alice")
    response = api.client.post(
        "/v1/tables",
        json={"game": "cholek-tiga", "seats": 2, "options": {}},
        headers={**bearer(alice), "X-Request-ID": "trace-abc-123"},
    )
    assert response.status_code == 201
    assert response.headers["X-Request-ID"] == "trace-abc-123"
    table = response.get_json()["id"]
    with psycopg.connect(clean, row_factory=dict_row) as conn:
        row = conn.execute("SELECT metadata FROM events WHERE stream_id = %s", (table,)).fetchone()
    assert row is not None and row["metadata"]["request_id"] == "trace-abc-123"
    assert "actor" in row["metadata"]


@pytest.mark.parametrize("sent", ["", "x" * 129, "bad\tid", "caf\u00e9"])
def test_an_invalid_request_id_is_replaced(api: Api, clean: str, sent: str) -> None:
    response = api.client.get("/healthz", headers={"X-Request-ID": sent})
    answered = response.headers["X-Request-ID"]
    assert answered != sent and 0 < len(answered) <= 128


def test_metrics_count_events_and_errors(api: Api, clean: str) -> None:
    _, alice = api.register("alice")
    api.open_table(alice)
    api.client.get("/v1/tables/00000000-0000-0000-0000-000000000000", headers=bearer(alice))
    text = metrics_text(api.client)
    assert 'cardledger_events_appended_total{type="table_opened"}' in text
    assert 'cardledger_errors_total{code="table_not_found",component="api"}' in text
    assert "cardledger_http_request_duration_seconds_bucket" in text
