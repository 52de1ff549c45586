"""Players who stall or leave, over HTTP: the turn clock's option and deadline in the public state, `leave`
refused during a deal (409 deal_in_progress) and allowed between deals, sitting down between deals, and the
clock's actions in the deal record (docs/house-rules.md)."""

from __future__ import annotations

import random
from datetime import datetime, timedelta

from infra.storage.postgres import PostgresStorage
from services.app.ledger import CardLedger
from services.bootstrap import Container
from services.clock import Clock
from tests.api.conftest import Api, bearer, play_deal


def test_the_clock_the_leave_and_the_seat_that_changes_hands(api: Api, container: Container) -> None:
    (_, alice), (_, bob), (carol_id, carol) = api.register("alice"), api.register("bob"), api.register("carol")
    table = api.open_table(alice, "cha-kau-tsz", 2, turn_seconds=30)
    assert table["options"]["turn_seconds"] == 30 and table["turn_deadline"] is None
    table_id = table["id"]
    refused = api.client.post(
        "/v1/tables", json={"game": "cholek-tiga", "seats": 2, "options": {"turn_seconds": 4}}, headers=bearer(alice)
    )
    assert refused.status_code == 422 and "turn_seconds" in refused.get_json()["detail"]
    assert api.open_table(alice)["options"]["turn_seconds"] == 60  # the default

    api.sit(alice, table_id, 0)
    assert api.view(alice, table_id)["legal_actions"] == [{"type": "leave"}]
    api.act(alice, table_id, {"type": "leave"})
    assert api.client.get(f"/v1/tables/{table_id}/view", headers=bearer(alice)).status_code == 403
    api.sit(alice, table_id, 0)
    api.sit(bob, table_id, 1)
    state = api.table(alice, table_id)
    deadline = datetime.fromisoformat(state["turn_deadline"].replace("Z", "+00:00"))
    assert state["turn_deadline"].endswith("Z") and state["status"] == "playing"
    during = api.act_raw(alice, table_id, {"type": "leave"})
    assert during.status_code == 409 and during.get_json()["code"] == "deal_in_progress"
    assert during.headers["Content-Type"].startswith("application/problem+json")

    # The seat to act lets its time pass: the clock (a worker's, with a CardLedger of its own) plays for it, once.
    clock = Clock(CardLedger(PostgresStorage(container.pool, container.store), None))
    assert clock.tick(table_id, deadline - timedelta(seconds=1)) is None
    written = clock.tick(table_id, deadline)
    assert written is not None and written.seats == (state["to_act"],)
    events = api.client.get(f"/v1/tables/{table_id}/events?after={state['version']}", headers=bearer(bob)).get_json()
    first = events["events"][0]
    assert first["data"]["timed_out"] is True and first["metadata"]["actor"] == "clock"

    play_deal(api, table_id, [alice, bob], random.Random(4))
    record = api.client.get(f"/v1/tables/{table_id}/deals/1", headers=bearer(bob)).get_json()
    assert record["timed_out_actions"] == [1 if seat == state["to_act"] else 0 for seat in range(2)]

    api.act(bob, table_id, {"type": "leave"})
    assert api.table(alice, table_id)["players"][1] is None
    api.act(alice, table_id, {"type": "ready"})
    assert api.sit(carol, table_id) == 1  # the free seat; sitting counts as ready: deal 2 starts
    after = api.table(carol, table_id)
    assert after["status"] == "playing" and after["deal_no"] == 2 and after["players"][1]["id"] == carol_id
