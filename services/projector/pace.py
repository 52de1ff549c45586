"""How long a projection job that goes on waits between two catch-up rounds.

A round's fixed costs (a look at the log, a transaction, the checkpoints' statement, a row per table touched)
outweigh its events' own at live rates, so a job waits for about `EVENTS_PER_ROUND` events at the recent rate
before it looks again, within `ROUND_SECONDS` .. `MAX_ROUND_SECONDS`, as the relay does before its looks
(`infra.pacing`; docs/performance.md, "The read models").
"""

from __future__ import annotations

from infra.pacing import RatePace

EVENTS_PER_ROUND = 12.0
# The least time between two rounds: back to back they would take the CPU of the processes writing the events.
ROUND_SECONDS = 0.01
# The most: the wait is part of every event's way to the read models (the lag's target is a p99 of 100 ms).
MAX_ROUND_SECONDS = 0.03
RATE_WINDOW_S = 0.5  # the recent rate: the events of the rounds that began in this long


class RoundPace(RatePace):
    """The wait from a round's start to the next round's, from the events the recent rounds found."""

    def __init__(self) -> None:
        super().__init__(EVENTS_PER_ROUND, ROUND_SECONDS, MAX_ROUND_SECONDS, RATE_WINDOW_S)
