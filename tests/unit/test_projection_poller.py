"""The polling fallback of a projection worker leaves the catching up to a job of its own process that is going
on, and takes it up again once the job's rounds have stopped (the catch-up itself faked)."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from services.projector import jobs, worker


def test_the_fallback_skips_its_catch_up_while_a_job_goes_on_and_not_after(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[float] = []

    def catch_up_all(*args: Any, **kwargs: Any) -> dict[str, int]:
        calls.append(time.monotonic())
        return {}

    monkeypatch.setattr(jobs, "catch_up_all", catch_up_all)
    monkeypatch.setattr(jobs, "_round_ended", float("-inf"))
    stop = threading.Event()
    job_going_on = threading.Event()
    job_going_on.set()

    def rounds() -> None:  # a job's rounds every 10 ms
        while job_going_on.is_set():
            jobs._note_round(time.monotonic())
            time.sleep(0.01)

    job = threading.Thread(target=rounds)
    job.start()
    time.sleep(0.05)
    poller = threading.Thread(target=worker.poll_forever, args=(stop, 0.2))
    poller.start()
    try:
        time.sleep(0.6)  # three of its intervals
        assert calls == []
        job_going_on.clear()
        job.join()
        ended = time.monotonic()
        deadline = ended + 5
        while not calls and time.monotonic() < deadline:
            time.sleep(0.01)
        assert calls and calls[0] >= ended
    finally:
        job_going_on.clear()
        stop.set()
        poller.join()
