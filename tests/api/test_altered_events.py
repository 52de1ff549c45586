"""One stored event altered (as the owner, triggers disabled), four ways, in each game: no read or write answers
500; reads of the raw log keep working; a read or write that needs the folded table answers the problem
`table_log_inconsistent` naming the table and the event, and nothing is written to such a table; and a seated
player's `cardledger verify --url` exits 1 naming that event."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

import psycopg
import pytest
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from domain import table as tables
from domain.events import PRIVATE
from domain.games import game_named
from infra.db import connect
from infra.errors import TableLogInconsistent
from infra.table_loader import load_table
from services.bootstrap import Container
from tests.api.conftest import AUDITOR_TOKEN, Api, bearer, bot_action, play_deal, seated_table
from tests.api.test_remote_verify import Verify, base_url, verify

__all__ = ["base_url", "verify"]

Change = Callable[[str, str, dict[str, Any]], tuple[int, dict[str, Any]] | None]


def _first(clean: str, table_id: str, wanted: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    with psycopg.connect(clean, row_factory=dict_row) as conn:
        rows = conn.execute(
            "SELECT version, type, deal_no, data FROM events WHERE stream_id = %s ORDER BY version", (table_id,)
        ).fetchall()
    return next(dict(row) for row in rows if wanted(dict(row)))


def _store(clean: str, table_id: str, version: int, **columns: Any) -> None:
    sets = ", ".join(f"{name} = %s" for name in columns)
    values = [Jsonb(v) if isinstance(v, dict) else v for v in columns.values()]
    with psycopg.connect(clean) as conn, conn.transaction():
        conn.execute("ALTER TABLE events DISABLE TRIGGER USER")
        conn.execute(f"UPDATE events SET {sets} WHERE stream_id = %s AND version = %s", [*values, table_id, version])
        conn.execute("ALTER TABLE events ENABLE TRIGGER USER")


def card_not_in_hand(clean: str, table_id: str, game: str) -> int:
    played = _first(clean, table_id, lambda e: "seat" in e["data"] and ("card" in e["data"] or "cards" in e["data"]))
    with connect(clean) as conn:
        before = load_table(conn, table_id, played["version"] - 1)
    assert before is not None
    hand = tables.seat_view(before, int(played["data"]["seat"]))["hand"]
    stranger = next(c for c in game_named(game).canonical_deck if c not in hand)  # type: ignore[operator]
    data = dict(played["data"])
    if "card" in data:
        data["card"] = stranger
    else:
        data["cards"] = [stranger, *data["cards"][1:]]
    _store(clean, table_id, played["version"], data=data)
    return int(played["version"])


def wrong_hash(clean: str, table_id: str, game: str) -> int:
    event = _first(clean, table_id, lambda e: e["type"] == "deal_started")
    _store(clean, table_id, event["version"], hash="f" * 64)
    return int(event["version"])


def missing_private(clean: str, table_id: str, game: str) -> int:
    event = _first(clean, table_id, lambda e: PRIVATE in e["data"])
    _store(clean, table_id, event["version"], data={k: v for k, v in event["data"].items() if k != PRIVATE})
    return int(event["version"])


def changed_amount(clean: str, table_id: str, game: str) -> int:
    event = _first(clean, table_id, lambda e: e["type"] == "deal_ended" and bool(e["data"].get("transfers")))
    data = json.loads(json.dumps(event["data"]))
    data["transfers"][0]["amount"] += 1
    _store(clean, table_id, event["version"], data=data)
    return int(event["version"])


ALTERATIONS = {f.__name__: f for f in (card_not_in_hand, wrong_hash, missing_private, changed_amount)}


@pytest.mark.parametrize("how", list(ALTERATIONS))
@pytest.mark.parametrize("game", ["cholek-tiga", "cha-kau-tsz"])
def test_an_altered_event_is_named_and_never_a_500(
    api: Api, base_url: str, clean: str, verify: Verify, container: Container, game: str, how: str
) -> None:
    rng = random.Random(f"{game}-{how}")
    table_id, tokens = seated_table(api, game, 2)
    play_deal(api, table_id, tokens, rng)
    for token in tokens:
        api.act(token, table_id, {"type": "ready"})
    version = ALTERATIONS[how](clean, table_id, game)
    container.ledger.states.clear()  # a process that has not kept the table (one that has is the next test)

    code, out, err = verify(base_url, tokens[0], table_id, "--json")
    assert code == 1, out + err
    assert json.loads(out)["first_failure"]["position"] == version, out

    client = api.client
    for path in ("/events", "/deals/1", "/ledger", "", "/view"):
        answer = client.get(f"/v1/tables/{table_id}{path}", headers=bearer(tokens[0]))
        assert answer.status_code < 500, (path, answer.get_data(as_text=True))
    for path in (f"/v1/reports/dispute?table_id={table_id}&deal_no=1", f"/v1/tables/{table_id}/events?limit=1000"):
        assert client.get(path, headers=bearer(AUDITOR_TOKEN)).status_code == 200, path

    with psycopg.connect(clean) as conn:
        head = conn.execute("SELECT version FROM streams WHERE stream_id = %s", (table_id,)).fetchone()
    container.ledger.states.clear()
    to_act = next(
        t
        for t in tokens
        if client.get(f"/v1/tables/{table_id}/view", headers=bearer(t)).get_json().get("legal_actions")
    )
    answer = client.post(
        f"/v1/tables/{table_id}/actions",
        json=bot_action(client.get(f"/v1/tables/{table_id}/view", headers=bearer(to_act)).get_json(), rng),
        headers={**bearer(to_act), "Idempotency-Key": "after-the-alteration"},
    )
    assert answer.status_code < 500, answer.get_data(as_text=True)
    try:
        with connect(clean) as conn:
            load_table(conn, table_id)
    except TableLogInconsistent as error:  # the log does not fold: the write says so and writes nothing
        assert error.version == version
        body = answer.get_json()
        assert answer.status_code == 409 and body["code"] == "table_log_inconsistent", body
        assert body["table_id"] == table_id and body["position"] == version, body
        with psycopg.connect(clean) as conn:
            after = conn.execute("SELECT version FROM streams WHERE stream_id = %s", (table_id,)).fetchone()
        assert after == head
    else:
        assert answer.status_code == 201, answer.get_json()
