"""How many requests one API worker process serves at once: a WSGI middleware around the app.

A Server-Sent Events stream holds its thread for minutes while it waits on Redis. Sharing the request
threads with streams let eight followers of a table take every thread of the default server (2 workers x 4
threads), and then nothing answered, not even /healthz. So the two are counted apart:

- ordinary requests: at most `requests` at once (CARDLEDGER_API_THREADS); the rest wait their turn, as they
  waited for a free thread before;
- streams: at most `streams` at once (CARDLEDGER_API_STREAMS), on threads of their own (gunicorn runs
  `requests + streams` threads); one more is refused at once with 503 `stream_busy` and Retry-After, so the
  client reconnects later (EventSource does) or reads the table instead;
- /healthz and /readyz are never held back, so a busy worker still answers its probes.

A slot is given back when the server closes the response (a stream's ends with its generator).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable
from typing import Any

from services.api.problems import problem

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]

STREAM_PATH = re.compile(r"^/v1/tables/[^/]+/stream/?$")
PROBES = frozenset({"/healthz", "/readyz"})
RETRY_AFTER_SECONDS = 5


class Admission:
    def __init__(self, app: WSGIApp, requests: int, streams: int) -> None:
        if requests < 1:
            raise ValueError(f"an API worker must serve at least 1 request at once, got {requests}")
        if streams < 0:
            raise ValueError(f"the number of streams at once cannot be negative, got {streams}")
        self.app = app
        self.requests = requests
        self.streams = streams
        self._request_slots = threading.BoundedSemaphore(requests)
        self._stream_slots = threading.BoundedSemaphore(streams) if streams else None

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "")
        if path in PROBES:
            return self.app(environ, start_response)
        if environ.get("REQUEST_METHOD") == "GET" and STREAM_PATH.match(path):
            slots = self._stream_slots
            if slots is None or not slots.acquire(blocking=False):
                busy = problem(
                    503,
                    "stream_busy",
                    f"this server follows {self.streams} streams at once and has none free; "
                    f"retry in {RETRY_AFTER_SECONDS} s or read the table instead",
                    headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
                )
                return busy(environ, start_response)
        else:
            slots = self._request_slots
            slots.acquire()
        try:
            body = self.app(environ, start_response)
        except BaseException:
            slots.release()
            raise
        return _ReleasedOnClose(body, slots.release)


class _ReleasedOnClose:
    """The app's response body, which gives its slot back when the server closes it (even if the body's own
    close fails); closing it again does nothing."""

    def __init__(self, body: Iterable[bytes], release: Callable[[], None]) -> None:
        self._body = body
        self._iterator = iter(body)
        self._release: Callable[[], None] | None = release

    def __iter__(self) -> _ReleasedOnClose:
        return self

    def __next__(self) -> bytes:
        return next(self._iterator)

    def close(self) -> None:
        release, self._release = self._release, None
        if release is None:  # closed already
            return
        try:
            close = getattr(self._body, "close", None)
            if close is not None:
                close()
        finally:
            release()
