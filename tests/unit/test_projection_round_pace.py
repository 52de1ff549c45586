"""A projection job's wait between rounds (`services.projector.pace.RoundPace`): about `EVENTS_PER_ROUND` events at
the recent rate, within `ROUND_SECONDS` .. `MAX_ROUND_SECONDS`."""

from __future__ import annotations

import pytest

from services.projector.pace import EVENTS_PER_ROUND, MAX_ROUND_SECONDS, RATE_WINDOW_S, ROUND_SECONDS, RoundPace


def test_the_first_round_is_followed_by_the_shortest_wait() -> None:
    assert RoundPace().interval_after(100.0, 5) == ROUND_SECONDS


def test_at_a_steady_rate_the_wait_collects_about_events_per_round() -> None:
    pace, now = RoundPace(), 100.0
    for _ in range(60):  # the input: 10 events found every 20 ms, 500 a second
        interval = pace.interval_after(now, 10)
        now += 0.02
    assert interval == pytest.approx(EVENTS_PER_ROUND / 500, rel=0.05)


def test_a_fast_rate_keeps_the_shortest_wait_and_a_slow_one_or_none_the_longest() -> None:
    fast, slow, idle, now = RoundPace(), RoundPace(), RoundPace(), 100.0
    for step in range(30):
        fast_interval = fast.interval_after(now + step * 0.01, 50)  # 5,000 events a second
        slow_interval = slow.interval_after(now + step * 0.03, 1)  # about 33 a second
        idle_interval = idle.interval_after(now + step * 0.03, 0)
    assert fast_interval == ROUND_SECONDS
    assert slow_interval == MAX_ROUND_SECONDS
    assert idle_interval == ROUND_SECONDS  # nothing found in the window: no rate, the shortest wait


def test_the_rate_forgets_rounds_older_than_its_window() -> None:
    pace, now = RoundPace(), 100.0
    for step in range(30):
        pace.interval_after(now + step * 0.01, 50)
    later = now + 29 * 0.01 + RATE_WINDOW_S * 2  # after a pause longer than the window
    assert pace.interval_after(later, 1) == ROUND_SECONDS
    assert pace.interval_after(later + 0.01, 1) == MAX_ROUND_SECONDS  # 100 a second: 12 events take 0.12 s
