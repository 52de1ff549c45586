"""/metrics shows, for a set of requests (statuses 200 to 412, an unmatched path, an unknown method), exactly what
prometheus_client's own `labels(...).inc()` and `.observe()` show when fed the same method, route, status and
duration: the contract a faster path of `services.api.middleware.metrics` must keep (one was measured:
docs/performance.md, session 24, "the POST's metrics, logging and parse layers").

The clock the metrics read is the test's: each request takes the duration the test gives it (bucket bounds
included), so the reference registry sees the same values."""

from __future__ import annotations

import re
import time
from collections import Counter as Tally
from typing import Any

import pytest
from flask import Flask, Response, g, request
from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest

from services.api.middleware.metrics import KNOWN_METHODS, metrics_of
from tests.api.conftest import Api, bearer, metrics_text

# Each request's duration, in turn: on and either side of bucket bounds, past the last, and none.
DURATIONS = (0.005, 0.0050001, 0.0, 0.1, 0.0999, 10.0, 10.5, 2.5, 0.025, 1e-9)


def exposition(registry: CollectorRegistry) -> str:
    """The registry's text without the series' creation times (seconds since the epoch, different by nature)."""
    return re.sub(r"^\S+_created\{.*\n", "", generate_latest(registry).decode(), flags=re.MULTILINE)


def appended(api: Api) -> Tally[str]:
    text = metrics_text(api.client)
    found = re.findall(r'^cardledger_events_appended_total\{type="([a-z_]+)"\} (\S+)$', text, flags=re.MULTILINE)
    return Tally({kind: int(float(value)) for kind, value in found})


def test_metrics_equal_prometheus_clients_own_for_the_same_requests(
    app: Flask, api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    reference = CollectorRegistry(auto_describe=True)
    metrics = metrics_of(app)
    requests = Counter(
        "cardledger_http_requests_total", metrics.requests._documentation, ["method", "route", "status"],
        registry=reference,
    )  # fmt: skip
    latency = Histogram(
        "cardledger_http_request_duration_seconds", metrics.latency._documentation, ["method", "route", "status"],
        registry=reference, buckets=metrics.latency._upper_bounds,
    )  # fmt: skip
    clock = [0.0]
    durations = iter(DURATIONS * 10)
    monkeypatch.setattr(time, "perf_counter", lambda: clock[0])

    @app.before_request
    def _take_a_while() -> None:  # runs after the metrics' timer started at 0
        clock[0] = next(durations)

    @app.after_request
    def _reference(response: Response) -> Response:  # runs before the metrics' observation
        method = request.method if request.method in KNOWN_METHODS else "other"
        route = request.url_rule.rule if request.url_rule is not None else "unmatched"
        labels = (method, route, str(response.status_code))
        requests.labels(*labels).inc()
        if g.get("request_started") is not None:
            latency.labels(*labels).observe(clock[0] - g.request_started)
        return response

    def send(method: str, path: str, **kwargs: Any) -> int:
        clock[0] = 0.0
        return api.client.open(path, method=method, **kwargs).status_code

    statuses = []
    _, alice = api.register("alice")
    _, bob = api.register("bob")
    table = api.open_table(alice)["id"]
    api.sit(alice, table, 0)
    api.sit(bob, table, 1)
    version = api.table(alice, table)["version"]
    token = [alice, bob][api.table(alice, table)["to_act"]]
    statuses.append(send("GET", f"/v1/tables/{table}/view", headers={**bearer(token), "If-None-Match": "*"}))
    statuses.append(send("GET", f"/v1/tables/{table}/view", headers={**bearer(token), "If-None-Match": '"1"'}))
    action = api.view(token, table)["legal_actions"][0]
    statuses.append(api.act_raw(token, table, action, If_Match='"x"').status_code)
    statuses.append(api.act_raw(token, table, action, If_Match=f'"{version + 5}"').status_code)
    statuses.append(send("GET", "/v1/tables/00000000-0000-0000-0000-000000000000", headers=bearer(alice)))
    statuses.append(send("GET", "/no/such/path"))
    statuses.append(send("BREW", "/v1/players"))
    statuses.append(send("POST", f"/v1/tables/{table}/actions", json=action))  # no token
    before = appended(api)
    answer = api.act_raw(token, table, action, Prefer="return=representation")
    statuses.append(answer.status_code)
    assert (appended(api) - before) == Tally(event["type"] for event in answer.get_json()["events"])
    assert statuses == [304, 200, 400, 412, 404, 404, 405, 401, 201]

    assert exposition(metrics.registry) == exposition(reference)
    shown = exposition(metrics.registry)
    assert 'requests_total{method="other",route="unmatched",status="405"} 1.0' in shown
    assert 'requests_total{method="GET",route="/v1/tables/<uuid:table_id>/view",status="304"} 1.0' in shown
