"""The operators' metrics of the API process: the PostgreSQL pool's use and the append conflicts
(deploy/grafana/cardledger.json and deploy/prometheus/alerts.yaml watch them)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from flask.testing import FlaskClient

from infra.config import Settings
from services.api import create_app
from services.bootstrap import Container, bootstrap
from tests.api.conftest import TEST_CONFIG, Api, metrics_text, to_act


def sample(client: FlaskClient, name: str, labels: str = "") -> float:
    text = metrics_text(client)
    found = re.search(rf"^{re.escape(name + labels)} (\S+)$", text, flags=re.MULTILINE)
    assert found, f"{name}{labels} not in /metrics"
    return float(found.group(1))


def test_the_pool_gauges_show_the_api_pool(client: FlaskClient, api: Api) -> None:
    api.register("pool-user")
    gauge = "cardledger_db_pool_connections"
    assert sample(client, gauge, '{state="max"}') == 20  # the fixture's pool_max_size
    assert sample(client, gauge, '{state="idle"}') >= 1  # the registration's connection, given back
    assert sample(client, gauge, '{state="in_use"}') == 0  # nothing else runs
    assert sample(client, gauge, '{state="waiting"}') == 0


@pytest.fixture
def second_api(api_settings: Settings, clean: str) -> Iterator[Api]:
    """Another API process on the same database: its own pool and its own cache of table states."""
    other = bootstrap(api_settings, start_embedded=False)
    try:
        yield Api(create_app(container=other, config=TEST_CONFIG).test_client())
    finally:
        other.close()


def test_an_append_that_loses_a_race_counts_a_conflict(
    container: Container, client: FlaskClient, api: Api, second_api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, alice = api.register("alice")
    _, bob = api.register("bob")
    table = api.open_table(alice)["id"]
    api.sit(alice, table, 0)
    api.sit(bob, table, 1)
    token = to_act(api, table, [alice, bob])
    action = api.view(token, table)["legal_actions"][0]

    # Another API process takes the same turn between this one's decision and its append.
    append = container.ledger.commands.store.append_prepared
    raced: list[dict[str, Any]] = []

    def lose_the_race_then_append(*args: Any) -> Any:
        if not raced:
            raced.append(second_api.act(token, table, action))
        return append(*args)

    monkeypatch.setattr(container.ledger.commands.store, "append_prepared", lose_the_race_then_append)
    before = sample(client, "cardledger_append_conflicts_total")
    answer = api.act_raw(token, table, action)
    assert raced  # the other process's action went first
    # Retried on the table read again: the turn has passed, so the action is refused, not appended twice.
    assert answer.status_code == 409, answer.get_json()
    assert sample(client, "cardledger_append_conflicts_total") == before + 1
