"""deploy/prometheus/alerts.yaml and deploy/grafana/cardledger.json name only metrics the code defines.

The names come from the metric definitions of infra/metrics.py and each process's metrics.py (parsed, not
imported: what a scrape would show, histogram and counter suffixes included). Every alert has a severity, a
summary and a runbook whose anchor is a heading of docs/operations.md. When promtool is on PATH (Debian:
`apt-get install prometheus`; .ci/run installs it), it checks the rules and runs their unit tests
(deploy/prometheus/alerts.test.yaml).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.test_docs_links import anchors

ROOT = Path(__file__).resolve().parents[1]
ALERTS = ROOT / "deploy" / "prometheus" / "alerts.yaml"
ALERT_TESTS = ROOT / "deploy" / "prometheus" / "alerts.test.yaml"
DASHBOARD = ROOT / "deploy" / "grafana" / "cardledger.json"
OPERATIONS = ROOT / "docs" / "operations.md"
METRIC_SOURCES = (
    ROOT / "infra" / "metrics.py",
    ROOT / "services" / "app" / "metrics.py",
    ROOT / "services" / "api" / "middleware" / "metrics.py",
    ROOT / "services" / "relay" / "metrics.py",
    ROOT / "services" / "projector" / "metrics.py",
)

SEVERITIES = {"critical", "warning"}
DEFINITION = re.compile(
    r"\b(Counter|Gauge|Histogram|Summary|GaugeMetricFamily|CounterMetricFamily)\(\s*\"(cardledger_\w+)\""
)
LAG_PREFIX = re.compile(r"LogLagCollector\([^)]*?\"(cardledger_\w+)\"")
LAG_SUFFIX = re.compile(r"f\"\{self\.prefix\}(_\w+)\"")
METRIC_NAME = re.compile(r"\bcardledger_\w+")
RUNBOOK = re.compile(r"^docs/operations\.md#([\w-]+)$")


def exported(kind: str, name: str) -> set[str]:
    """The series names a scrape shows for one definition (prometheus_client's text format)."""
    if kind in ("Histogram",):
        return {f"{name}_bucket", f"{name}_sum", f"{name}_count", f"{name}_created"}
    if kind in ("Summary",):
        return {name, f"{name}_sum", f"{name}_count", f"{name}_created"}
    if kind in ("Counter", "CounterMetricFamily"):
        base = name.removesuffix("_total")
        return {f"{base}_total", f"{base}_created"}
    return {name}


def defined_metrics() -> set[str]:
    names: set[str] = set()
    texts = [source.read_text() for source in METRIC_SOURCES]
    suffixes = [suffix for text in texts for suffix in LAG_SUFFIX.findall(text)]  # the collector's, in infra
    for text in texts:
        for kind, name in DEFINITION.findall(text):
            names |= exported(kind, name)
        for prefix in LAG_PREFIX.findall(text):
            names |= {prefix + suffix for suffix in suffixes}
    return names


def rules() -> list[dict[str, Any]]:
    loaded = yaml.safe_load(ALERTS.read_text())
    return [rule for group in loaded["groups"] for rule in group["rules"]]


def dashboard_expressions() -> list[tuple[str, str]]:
    dashboard = json.loads(DASHBOARD.read_text())
    return [(panel["title"], target["expr"]) for panel in dashboard["panels"] for target in panel.get("targets", [])]


def test_the_parser_finds_the_metrics_of_the_code() -> None:
    assert defined_metrics() >= {
        "cardledger_http_requests_total",
        "cardledger_http_request_duration_seconds_bucket",
        "cardledger_events_appended_total",
        "cardledger_errors_total",
        "cardledger_relay_events_published_total",
        "cardledger_projection_events_applied_total",
        "cardledger_relay_lag_events",
        "cardledger_relay_lag_seconds",
        "cardledger_projection_lag_events",
        "cardledger_projection_lag_seconds",
        "cardledger_rq_queue_depth",
        "cardledger_rq_failed_jobs",
    }


def test_the_rule_groups_have_unique_names_and_rules() -> None:
    loaded = yaml.safe_load(ALERTS.read_text())
    names = [group["name"] for group in loaded["groups"]]
    assert len(names) == len(set(names))
    assert all(group["rules"] for group in loaded["groups"])


@pytest.mark.parametrize("rule", rules(), ids=[f"{r['alert']}-{r['labels']['severity']}" for r in rules()])
def test_every_alert_names_only_metrics_the_code_defines(rule: dict[str, Any]) -> None:
    named = set(METRIC_NAME.findall(rule["expr"]))
    assert named, f"{rule['alert']}: no cardledger metric in {rule['expr']!r}"
    assert named <= defined_metrics(), f"{rule['alert']}: unknown {sorted(named - defined_metrics())}"


@pytest.mark.parametrize("rule", rules(), ids=[f"{r['alert']}-{r['labels']['severity']}" for r in rules()])
def test_every_alert_has_severity_summary_and_a_runbook_in_the_operations_guide(rule: dict[str, Any]) -> None:
    assert re.fullmatch(r"Cardledger[A-Za-z]+", rule["alert"])
    assert rule["labels"]["severity"] in SEVERITIES
    assert rule["annotations"]["summary"].strip()
    found = RUNBOOK.match(rule["annotations"]["runbook_url"])
    assert found, rule["annotations"]["runbook_url"]
    assert found.group(1) in anchors(OPERATIONS), f"no heading for #{found.group(1)} in docs/operations.md"


def test_every_alert_is_described_in_the_operations_guide() -> None:
    text = OPERATIONS.read_text()
    for name in {rule["alert"] for rule in rules()}:
        assert f"### {name}\n" in text, name


def test_the_dashboard_names_only_metrics_the_code_defines() -> None:
    expressions = dashboard_expressions()
    assert expressions
    for title, expression in expressions:
        named = set(METRIC_NAME.findall(expression))
        assert named, title
        assert named <= defined_metrics(), f"{title}: unknown {sorted(named - defined_metrics())}"


def test_the_dashboard_shows_every_metric_an_alert_watches() -> None:
    shown = {name for _, expression in dashboard_expressions() for name in METRIC_NAME.findall(expression)}
    watched = {name for rule in rules() for name in METRIC_NAME.findall(rule["expr"])}
    assert watched <= shown, sorted(watched - shown)


def promtool() -> str:
    found = shutil.which("promtool")
    if found is None:
        pytest.skip("promtool not found: `apt-get install prometheus` (Debian/Ubuntu) or a Prometheus release")
    return found


def test_promtool_accepts_the_rules() -> None:
    result = subprocess.run(
        [promtool(), "check", "rules", str(ALERTS)], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_alerts_pass_their_promtool_unit_tests() -> None:
    """deploy/prometheus/alerts.test.yaml: each alert the issue asks for fires on a made-up history and stays
    quiet on a healthy one, with the labels and annotations it would send."""
    result = subprocess.run(
        [promtool(), "test", "rules", str(ALERT_TESTS)], capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_every_alert_the_issue_asks_for_exists_and_is_unit_tested() -> None:
    asked = {
        "CardledgerRelayNotPublishing",  # relay not publishing
        "CardledgerProjectionLag",  # projection lag over a threshold
        "CardledgerApiErrorRate",  # 5xx rate
        "CardledgerNotReady",  # readiness failing
        "CardledgerAppendConflicts",  # append conflicts spiking
    }
    assert asked <= {rule["alert"] for rule in rules()}
    tests = yaml.safe_load(ALERT_TESTS.read_text())["tests"]
    tested = {case["alertname"] for test in tests for case in test.get("alert_rule_test") or [] if case["exp_alerts"]}
    assert asked <= tested, sorted(asked - tested)


# What the issue asks the dashboard to show, and a metric each panel must read for it.
DASHBOARD_PANELS = {
    "action rate": "cardledger_http_requests_total",
    "action latency": "cardledger_http_request_duration_seconds_bucket",
    "error answers by code": "cardledger_errors_total",
    "relay lag": "cardledger_relay_lag_seconds",
    "projection lag": "cardledger_projection_lag_seconds",
    "rq queue depth": "cardledger_rq_queue_depth",
    "database pool": "cardledger_db_pool_connections",
    "rate-limit refusals": "cardledger_http_requests_total",
}


@pytest.mark.parametrize(("topic", "metric"), sorted(DASHBOARD_PANELS.items()))
def test_the_dashboard_has_a_panel_for_each_thing_to_watch(topic: str, metric: str) -> None:
    panels = dashboard_expressions()
    matching = [expression for title, expression in panels if title.lower().startswith(topic)]
    assert matching, f"no panel titled {topic!r}: {sorted({title for title, _ in panels})}"
    assert any(metric in expression for expression in matching), f"{topic}: {matching}"


def test_the_projection_lag_panel_shows_each_projection() -> None:
    expressions = [e for title, e in dashboard_expressions() if title.lower().startswith("projection lag")]
    assert any("by (projection)" in expression for expression in expressions)


HA_ALERTS = ROOT / "deploy" / "prometheus" / "ha-alerts.yaml"
HA_ALERT_TESTS = ROOT / "deploy" / "prometheus" / "ha-alerts.test.yaml"
PATRONI_METRIC = re.compile(r"\bpatroni_\w+")
# What Patroni 3's REST API serves on GET /metrics and these rules read.
PATRONI_METRICS = {"patroni_primary", "patroni_sync_standby", "patroni_postgres_running"}


def ha_rules() -> list[dict[str, Any]]:
    loaded = yaml.safe_load(HA_ALERTS.read_text())
    return [rule for group in loaded["groups"] for rule in group["rules"]]


@pytest.mark.parametrize("rule", ha_rules(), ids=[r["alert"] for r in ha_rules()])
def test_every_high_availability_alert_reads_patroni_and_has_a_runbook(rule: dict[str, Any]) -> None:
    named = set(PATRONI_METRIC.findall(rule["expr"]))
    assert named and named <= PATRONI_METRICS, f"{rule['alert']}: {sorted(named)}"
    assert rule["labels"]["severity"] in SEVERITIES
    found = RUNBOOK.match(rule["annotations"]["runbook_url"])
    assert found and found.group(1) in anchors(OPERATIONS), rule["annotations"]["runbook_url"]
    assert f"### {rule['alert']}\n" in OPERATIONS.read_text()


def test_the_high_availability_alerts_pass_their_promtool_unit_tests() -> None:
    """A lost synchronous standby and a cluster without a primary each fire; the healthy pair stays quiet."""
    checked = subprocess.run(
        [promtool(), "check", "rules", str(HA_ALERTS)], capture_output=True, text=True, timeout=60, check=False
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    result = subprocess.run(
        [promtool(), "test", "rules", str(HA_ALERT_TESTS)], capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
