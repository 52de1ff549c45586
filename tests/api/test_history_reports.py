"""History, audit and reports after complete deals: deal records, ledger, settlement, dispute."""

from __future__ import annotations

import csv
import io
import random

import psycopg

from tests.api.conftest import AUDITOR_TOKEN, Api, Scene, bearer, play_deal, project
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


def test_ledger_settlement_and_dispute(scene: Scene, api: Api, clean: str) -> None:
    play_deal(api, scene.table, [scene.alice, scene.bob], random.Random(2))
    project(clean)  # the ledger and the settlement report read the projections
    ledger = api.client.get(f"/v1/tables/{scene.table}/ledger", headers=bearer(scene.bob))
    assert ledger.status_code == 200
    lines = ledger.get_json()["lines"]
    assert lines and sum(int(line["amount"]) for line in lines) == 0

    own = api.client.get("/v1/reports/settlement", headers=bearer(scene.alice))
    assert own.status_code == 200, own.get_json()
    with psycopg.connect(clean, autocommit=True) as conn:
        newest = conn.execute(
            "SELECT tx_id::text, global_position FROM events ORDER BY tx_id DESC, global_position DESC"
        )
        tx_id, position = newest.fetchone() or ("0", 0)
    assert own.get_json()["log_position"] == {"tx_id": tx_id, "global_position": position}  # how far it read
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
    policy = html.headers["Content-Security-Policy"]
    assert "default-src 'none'" in policy and "script-src" not in policy  # no script may run on the page
    assert f'content="{policy}"' in html.get_data(as_text=True)  # kept by a saved copy of the page
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


def test_the_ledger_is_paged_and_every_page_carries_the_whole_tables_totals(api: Api, clean: str) -> None:
    tokens = [api.register(f"p{i}")[1] for i in range(3)]
    table = api.open_table(tokens[0], game="cha-kau-tsz", seats=3)["id"]
    for token in tokens:
        api.sit(token, table)
    play_deal(api, table, tokens, random.Random(3))
    for token in tokens:
        api.act(token, table, {"type": "ready"})
    play_deal(api, table, tokens, random.Random(4))
    project(clean)
    url = f"/v1/tables/{table}/ledger"
    whole = api.client.get(f"{url}?limit=1000", headers=bearer(AUDITOR_TOKEN)).get_json()
    assert whole["next_after"] is None and whole["balanced"] is True
    assert len(whole["lines"]) == whole["line_count"] > 4
    totals = {k: whole[k] for k in ("totals", "sum_amount", "sum_cents", "balanced", "line_count")}
    lines: list[dict[str, object]] = []
    after = ""
    while True:
        response = api.client.get(f"{url}?limit=3{after}", headers=bearer(tokens[1]))
        assert response.status_code == 200, response.get_json()
        page = response.get_json()
        assert len(page["lines"]) <= 3
        assert {k: page[k] for k in totals} == totals  # every page: the whole table
        lines += page["lines"]
        if page["next_after"] is None:
            break
        after = f"&after={page['next_after']}"
    assert lines == whole["lines"]
    assert [line["line_no"] for line in lines[:2]] == [1, 2]
    default = api.client.get(url, headers=bearer(tokens[0])).get_json()
    assert default["lines"] == whole["lines"]  # 200 a page by default
    for bad in ("limit=0", "limit=1001", "after=1", "after=x:1", "after=1:0", "after=" + "9" * 30 + ":1", "lines=1"):
        assert_problem(api.client.get(f"{url}?{bad}", headers=bearer(tokens[0])), 422)


def test_list_endpoints_refuse_a_limit_above_their_cap(scene: Scene, api: Api) -> None:
    token = scene.alice
    for path, cap in (
        ("/v1/tables", 100),
        (f"/v1/tables/{scene.table}/events", 1000),
        (f"/v1/tables/{scene.table}/ledger", 1000),
        ("/v1/reports/settlement", 200),
    ):
        assert api.client.get(f"{path}?limit={cap}", headers=bearer(token)).status_code == 200, path
        assert_problem(api.client.get(f"{path}?limit={cap + 1}", headers=bearer(token)), 422)


def test_the_settlement_report_is_paged_by_table(api: Api, clean: str) -> None:
    ana_id, ana = api.register("ana")
    budi_id, budi = api.register("budi")
    tables = []
    for n in range(3):
        table = api.open_table(ana)["id"]
        api.sit(ana, table, 0)
        api.sit(budi, table, 1)
        play_deal(api, table, [ana, budi], random.Random(10 + n))
        tables.append(table)
    project(clean)
    url = "/v1/reports/settlement"
    whole = api.client.get(url, headers=bearer(AUDITOR_TOKEN)).get_json()
    assert whole["next_after"] is None and whole["deals"] == 3
    assert sorted({row["table_id"] for row in whole["rows"]}) == sorted(tables)
    rows: list[dict[str, object]] = []
    query = "?limit=1"
    while True:
        response = api.client.get(url + query, headers=bearer(AUDITOR_TOKEN))
        assert response.status_code == 200
        page = response.get_json()
        assert len({row["table_id"] for row in page["rows"]}) == 1 and page["deals"] == 1
        assert page["balanced"] is True
        rows += page["rows"]
        if page["next_after"] is None:
            assert "Link" not in response.headers
            break
        assert page["next_after"] == page["rows"][-1]["table_id"]
        assert response.headers["Link"] == f'</v1/reports/settlement?limit=1&after={page["next_after"]}>; rel="next"'
        query = f"?limit=1&after={page['next_after']}"
    assert rows == whole["rows"]
    # A player's own report, one table a page; CSV pages are linked by the Link header.
    mine = api.client.get(f"{url}?limit=2&format=csv", headers=bearer(budi))
    assert mine.mimetype == "text/csv"
    assert mine.headers["Link"].startswith("</v1/reports/settlement?limit=2&format=csv&after=")
    assert len(list(csv.reader(io.StringIO(mine.get_data(as_text=True))))) == 2 + 2  # header, 2 rows, TOTAL
    nxt = mine.headers["Link"].split(";")[0].strip("<>")
    rest = list(csv.reader(io.StringIO(api.client.get(nxt, headers=bearer(budi)).get_data(as_text=True))))
    assert [r[0] for r in rest] == ["player_id", budi_id, "TOTAL"]
    assert_problem(api.client.get(f"{url}?after=nope", headers=bearer(AUDITOR_TOKEN)), 422)
    assert ana_id != budi_id
