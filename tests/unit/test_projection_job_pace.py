"""A projection job that goes on spaces its rounds by `RoundPace`: at a steady rate each round finds about
`EVENTS_PER_ROUND` events (a fake clock, log and Redis: only the loop of `jobs._catch_up_while_events_come`)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from services.projector import jobs
from services.projector.pace import EVENTS_PER_ROUND, MAX_ROUND_SECONDS, ROUND_SECONDS

ROUND_COST_S = 0.001  # the clock's advance during a round


class SteadyLog:
    """Events committed at `rate` a second until `until`; each catch-up takes those committed since the last."""

    def __init__(self, rate: float, until: float) -> None:
        self.now = 0.0
        self.rate, self.until = rate, until
        self.taken = 0
        self.found: list[int] = []  # events found by each round, in order

    def monotonic(self) -> float:
        return self.now

    def catch_up_all(self, *args: Any, **kwargs: Any) -> dict[str, int]:
        committed = int(self.rate * min(self.now, self.until))
        found, self.taken = committed - self.taken, committed
        self.found.append(found)
        self.now += ROUND_COST_S
        return {"table_views": found}

    def pause(self, seconds: float) -> None:
        self.now += max(seconds, 0.0)


def run_job(monkeypatch: pytest.MonkeyPatch, rate: float, seconds: float = 2.0) -> SteadyLog:
    log = SteadyLog(rate, until=seconds)
    monkeypatch.setattr(jobs, "time", SimpleNamespace(monotonic=log.monotonic))
    monkeypatch.setattr(jobs.projections, "catch_up_all", log.catch_up_all)
    monkeypatch.setattr(jobs, "_pause", log.pause)
    monkeypatch.setattr(jobs, "_hold", lambda client, job_id: True)
    monkeypatch.setattr(jobs.redis_bus, "release_looking", lambda client, job_id: True)
    monkeypatch.setattr(jobs, "connection", lambda: None)
    monkeypatch.setattr(jobs, "caches", lambda: None)
    monkeypatch.setattr(jobs, "_stopping", lambda: False)  # a worker test earlier in the run may have set the stop
    job = SimpleNamespace(id="job", connection=None, origin="projections")
    applied = jobs._catch_up_while_events_come(job, lambda counts: None)  # type: ignore[arg-type]
    assert applied["table_views"] == int(rate * seconds)  # every event taken in, the last by the final look
    return log


@pytest.mark.parametrize("rate", [250.0, 470.0])
def test_at_a_steady_rate_a_round_finds_about_events_per_round(monkeypatch: pytest.MonkeyPatch, rate: float) -> None:
    log = run_job(monkeypatch, rate)
    steady = log.found[len(log.found) // 2 : -5]  # past the first rounds, before the load ends
    expected = min(max(EVENTS_PER_ROUND / rate, ROUND_SECONDS), MAX_ROUND_SECONDS) * rate
    assert sum(steady) / len(steady) == pytest.approx(expected, rel=0.15)
    assert sum(steady) / len(steady) > ROUND_SECONDS * rate * 1.5  # more than the 10 ms rounds took in


def test_a_fast_rate_keeps_rounds_the_shortest_wait_apart(monkeypatch: pytest.MonkeyPatch) -> None:
    log = run_job(monkeypatch, 5000.0)
    steady = log.found[len(log.found) // 2 : -5]
    assert sum(steady) / len(steady) == pytest.approx(ROUND_SECONDS * 5000.0, rel=0.15)
