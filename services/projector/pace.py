"""How long a projection job that goes on waits between two catch-up rounds.

A round's fixed costs (a look at the log, a transaction, the checkpoints' statement, a row per table touched)
outweigh its events' own at live rates, so a job waits for about `EVENTS_PER_ROUND` events at the recent rate
before it looks again, within `ROUND_SECONDS` .. `MAX_ROUND_SECONDS`, as the relay does before its looks
(docs/performance.md, "The workers' cost per event at live rates").
"""

from __future__ import annotations

from collections import deque

EVENTS_PER_ROUND = 12.0
# The least time between two rounds: back to back they would take the CPU of the processes writing the events.
ROUND_SECONDS = 0.01
# The most: the wait is part of every event's way to the read models (the lag's target is a p99 of 100 ms).
MAX_ROUND_SECONDS = 0.03
RATE_WINDOW_S = 0.5  # the recent rate: the events of the rounds that began in this long


class RoundPace:
    """The wait from a round's start to the next round's, from the events the recent rounds found."""

    def __init__(self) -> None:
        self._rounds: deque[tuple[float, int]] = deque()  # (start, events found), oldest first
        self._events = 0  # found by the rounds after the oldest

    def interval_after(self, started: float, found: int) -> float:
        """The time from `started` (a round's start, which found `found` events) to the next round's start:
        `EVENTS_PER_ROUND` events at the rate of the rounds of the last `RATE_WINDOW_S` (the events found after
        the window's first round over the time since it began), within `ROUND_SECONDS` .. `MAX_ROUND_SECONDS`;
        `ROUND_SECONDS` while no earlier round is in the window."""
        rounds = self._rounds
        if rounds:
            self._events += found
        rounds.append((started, found))
        while started - rounds[0][0] > RATE_WINDOW_S:
            rounds.popleft()
            self._events -= rounds[0][1]  # the new oldest's events no longer count (the round just added stays)
        elapsed = started - rounds[0][0]
        if elapsed <= 0 or self._events <= 0:
            return ROUND_SECONDS
        return min(max(EVENTS_PER_ROUND * elapsed / self._events, ROUND_SECONDS), MAX_ROUND_SECONDS)
