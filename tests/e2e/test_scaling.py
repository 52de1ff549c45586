"""The stack as several processes (2 API instances, an active relay and its standby, 3 workers) under
`cardledger simulate` spread over both API URLs, with the active relay killed mid-run (bench/scaling.py, the
measurement behind docs/scaling.md): every deal verifies and every projection equals its rebuild."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.scaling import COMPONENTS, rows, run_scaled
from infra import projections

pytestmark = pytest.mark.slow


def test_a_multi_process_run_verifies_and_its_projections_equal_their_rebuild(
    pg_server_url: str, tmp_path: Path
) -> None:
    result = run_scaled(pg_server_url, seconds=6, tables=3, client="holding", folder=tmp_path)
    summary = result.simulation["summary"]
    logs = f"process logs in {tmp_path}"
    assert result.simulation["ok"] is True, logs
    assert summary["errors"] == {} and summary["deals_failed"] == 0, summary
    assert summary["deals_completed"] >= 3 and result.actions > 0
    assert result.simulation["config"]["other_urls"], "simulate was given both API instances"

    # Every deal played is checked from the log, and verifies.
    assert result.verification.ok, result.verification.render()
    assert result.verification.tables == 3
    assert result.verification.deals == summary["deals_completed"]
    # Every projection, kept by three workers fed by two relays in turn, equals its rebuild from the log.
    assert [r.name for r in result.rebuilds] == list(projections.NAMES)
    assert all(r.equal and r.events == result.events for r in result.rebuilds), [r.summary() for r in result.rebuilds]

    # The standby took the lock after the active relay was killed; the restarted one stands by.
    assert result.relay_takeover_s is not None and result.relay_takeover_s < 30, logs
    assert result.relay_restarted_stands_by, logs
    # Both API instances served the bots (round-robin), and every component's cost was measured.
    api = {name: seconds for name, seconds in result.cpu_by_process.items() if name.startswith("api-")}
    assert sorted(api) == ["api-1", "api-2"] and min(api.values()) > 0.2 * sum(api.values()), api
    # PostgreSQL's backends are counted only when they run on this machine (not in a container), and its WAL
    # only where pg_walinspect may be used (a superuser on PostgreSQL 15 or later).
    started_here = [c for c in COMPONENTS if c != "postgres"]
    assert all(result.cpu[component] > 0 for component in started_here), result.cpu
    # The backends' CPU is also split by whose they are (application_name): the parts add up to the total.
    parts = {name: seconds for name, seconds in result.cpu_by_process.items() if name.startswith("postgres-")}
    assert sum(parts.values()) == pytest.approx(result.cpu["postgres"])
    if result.cpu["postgres"] > 0:
        assert parts.get("postgres-api", 0) > 0 and parts.get("postgres-relay", 0) > 0, parts
    assert any(row["benchmark"].endswith("postgres backends of the relay") for row in rows(result))
    assert result.counters["xact_commit"] >= result.actions  # each action is at least its committed append
    if result.wal.bytes is not None:
        assert result.wal.commits is not None and result.wal.commits >= result.actions
        assert 0 < result.wal.bytes <= result.wal.cluster_bytes
        assert "events" in result.wal.by_relation
    assert result.ok
