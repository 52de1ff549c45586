"""A wait between two looks at the log, from the rate at which recent looks found events: about `events` events
at that rate, within `least` .. `most`. The relay paces its looks by it, and a projection job its rounds: a
look's fixed costs outweigh its events' own at live rates, so waiting for a few events is cheaper per event."""

from __future__ import annotations

from collections import deque


class RatePace:
    """The wait from a look's start to the next look's, from the events the looks of the last `window` s found."""

    def __init__(self, events: float, least: float, most: float, window: float) -> None:
        self.events, self.least, self.most, self.window = events, least, most, window
        self._looks: deque[tuple[float, int]] = deque()  # (start, events found), oldest first
        self._found = 0  # found by the looks after the oldest

    def interval_after(self, started: float, found: int) -> float:
        """The time from `started` (a look's start, which found `found` events) to the next look's start: `events`
        events at the rate of the looks of the window (the events found after the window's first look over the
        time since it began), within `least` .. `most`; `least` while no earlier look is in the window."""
        looks = self._looks
        if looks:
            self._found += found
        looks.append((started, found))
        while started - looks[0][0] > self.window:
            looks.popleft()
            self._found -= looks[0][1]  # the new oldest's events no longer count (the look just added stays)
        elapsed = started - looks[0][0]
        if elapsed <= 0 or self._found <= 0:
            return self.least
        return min(max(self.events * elapsed / self._found, self.least), self.most)
