"""History, audit and reports after complete deals: deal records, ledger, settlement, dispute."""

from __future__ import annotations

import csv
import io
import random

from tests.api.conftest import AUDITOR_TOKEN, Api, Scene, bearer, play_deal
from tests.api.test_endpoints import assert_problem


def test_deal_record_before_and_after_the_deal_ends(scene: Scene, api: Api) -> None:
    url = f"/v1/tables/{scene.table}/deals/1"
    during = api.client.get(url, headers=bearer(scene.alice))
    assert during.status_code == 200
    record = during.get_json()
    assert record["server_seed"] is None
    assert len(record["commitment"]) == 64
    assert record["client_seeds"] == ["", ""]
    play_deal(api, scene.table, [scene.alice, scene.bob], random.Random(1))
    after = api.client.get(url, headers=bearer(AUDITOR_TOKEN)).get_json()
    assert after["commitment"] == record["commitment"]
    assert isinstance(after["server_seed"], str) and len(after["server_seed"]) == 64
    assert "scores" in after["result"] and len(after["result"]["net"]) == 2
    assert after["verification"]
    assert_problem(api.client.get(f"/v1/tables/{scene.table}/deals/2", headers=bearer(scene.alice)), 404)
    assert_problem(api.client.get(f"/v1/tables/{scene.table}/deals/0", headers=bearer(scene.alice)), 404)
    assert_problem(api.client.get(f"/v1/tables/{scene.table}/deals/99999999999", headers=bearer(scene.alice)), 404)
    assert_problem(api.client.get(url, headers=bearer(scene.eve)), 403)


def test_ledger_settlement_and_dispute(scene: Scene, api: Api) -> None:
    play_deal(api, scene.table, [scene.alice, scene.bob], random.Random(2))
    ledger = api.client.get(f"/v1/tables/{scene.table}/ledger", headers=bearer(scene.bob))
    assert ledger.status_code == 200
    lines = ledger.get_json()["lines"]
    assert sum(int(line["amount"]) for line in lines) == 0

    own = api.client.get("/v1/reports/settlement", headers=bearer(scene.alice))
    assert own.status_code == 200, own.get_json()
    assert_problem(
        api.client.get(f"/v1/reports/settlement?player_id={scene.bob_id}", headers=bearer(scene.alice)),
        403,
        "not_your_report",
    )
    mine = api.client.get(f"/v1/reports/settlement?player_id={scene.alice_id}", headers=bearer(scene.alice))
    assert mine.status_code == 200
    everyone = api.client.get(
        f"/v1/reports/settlement?table_id={scene.table}&from=2000-01-01T00:00:00Z&to=2999-01-01T00:00:00Z",
        headers=bearer(AUDITOR_TOKEN),
    )
    assert everyone.status_code == 200, everyone.get_json()
    as_csv = api.client.get("/v1/reports/settlement?format=csv", headers=bearer(AUDITOR_TOKEN))
    assert as_csv.status_code == 200
    assert as_csv.mimetype == "text/csv"
    rows = list(csv.reader(io.StringIO(as_csv.get_data(as_text=True))))
    assert len(rows) >= 2
    assert_problem(api.client.get("/v1/reports/settlement?from=yesterday", headers=bearer(scene.alice)), 422)

    url = f"/v1/reports/dispute?table_id={scene.table}&deal_no=1"
    dispute = api.client.get(url, headers=bearer(scene.alice))
    assert dispute.status_code == 200
    assert dispute.get_json()["steps"]
    html = api.client.get(url + "&format=html", headers=bearer(AUDITOR_TOKEN))
    assert html.status_code == 200 and html.mimetype == "text/html"
    by_accept = api.client.get(url, headers={**bearer(scene.bob), "Accept": "text/html"})
    assert by_accept.mimetype == "text/html"
    assert_problem(api.client.get(url, headers=bearer(scene.eve)), 403)
    assert_problem(api.client.get(f"/v1/reports/dispute?table_id={scene.table}", headers=bearer(scene.alice)), 422)


def test_a_whole_cha_kau_tsz_deal_and_the_next(api: Api) -> None:
    tokens = [api.register(f"p{i}")[1] for i in range(3)]
    table = api.open_table(tokens[0], game="cha-kau-tsz", seats=3)["id"]
    for token in tokens:
        api.sit(token, table)
    play_deal(api, table, tokens, random.Random(3))
    state = api.table(tokens[0], table)
    assert state["status"] == "between_deals"
    assert state["next_deal"]["deal_no"] == 2
    for token in tokens:
        assert {"type": "ready"} in api.view(token, table)["legal_actions"]
        api.act(token, table, {"type": "ready", "client_seed": "abc"})
    assert api.table(tokens[0], table)["deal_no"] == 2
    record = api.client.get(f"/v1/tables/{table}/deals/1", headers=bearer(tokens[1])).get_json()
    assert record["server_seed"] and record["result"]["net"]
