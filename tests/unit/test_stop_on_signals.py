"""The CLI's signal handling: a signal that arrives while the main thread is inside the stop event's own
lock (setting it for an earlier signal, or waiting on it) still stops the process, and does not deadlock it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# The handler is called with the event's lock held, as Python does when a second signal arrives while the
# first one's handler is inside Event.set (seen: a worker stuck in its handler until the supervisor killed it).
_SIGNAL_INSIDE_THE_LOCK = """
import signal
from services.cli import _stop_on_signals

stop = _stop_on_signals()
handle = signal.getsignal(signal.SIGTERM)
with stop._cond:
    handle(signal.SIGTERM, None)
print("stopped", stop.wait(10))
"""


def test_a_signal_inside_the_stop_events_lock_stops_without_a_deadlock() -> None:
    try:
        done = subprocess.run(
            [sys.executable, "-c", _SIGNAL_INSIDE_THE_LOCK], cwd=ROOT, capture_output=True, text=True, timeout=30
        )
    except subprocess.TimeoutExpired:
        raise AssertionError("the signal handler deadlocked on the stop event's lock") from None
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "stopped True"
