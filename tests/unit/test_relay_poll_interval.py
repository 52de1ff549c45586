"""The relay's wait between looks while awake (`Relay._interval_after`): about `EVENTS_PER_LOOK` events at the
recent commit rate, within `poll_interval` .. `MAX_POLL_INTERVAL_S`."""

from __future__ import annotations

import threading

import pytest

from services.relay.relay import EVENTS_PER_LOOK, MAX_POLL_INTERVAL_S, POLL_INTERVAL_S, RATE_WINDOW_S, Relay


def relay() -> Relay:
    return Relay("postgresql://unused", "redis://unused", threading.Event())


def test_the_first_batch_of_a_burst_is_followed_by_the_shortest_wait() -> None:
    assert relay()._interval_after(100.0, 1) == POLL_INTERVAL_S


def test_at_a_steady_rate_the_wait_collects_about_events_per_look() -> None:
    r, now = relay(), 100.0
    for _ in range(40):  # the input: two events found every 8 ms
        interval = r._interval_after(now, 2)
        now += 0.008
    assert interval == pytest.approx(EVENTS_PER_LOOK / 250, rel=0.05)


def test_a_fast_rate_keeps_the_shortest_wait_and_a_slow_one_the_longest() -> None:
    fast, slow, now = relay(), relay(), 100.0
    for step in range(20):
        fast_interval = fast._interval_after(now + step * 0.002, 10)  # 5,000 events a second
        slow_interval = slow._interval_after(now + step * 0.05, 1)  # 20 a second
    assert fast_interval == POLL_INTERVAL_S
    assert slow_interval == MAX_POLL_INTERVAL_S


def test_the_rate_forgets_batches_older_than_its_window() -> None:
    r, now = relay(), 100.0
    for step in range(20):
        r._interval_after(now + step * 0.002, 10)
    later = now + 19 * 0.002 + RATE_WINDOW_S * 2  # after a pause longer than the window: a burst's first batch
    assert r._interval_after(later, 1) == POLL_INTERVAL_S
    assert len(r._pace._looks) == 1 and r._pace._found == 0
