"""How many requests one API worker process serves at once: a WSGI middleware around the app.

A Server-Sent Events stream holds its thread for minutes while it waits on Redis. Sharing the request
threads with streams let eight followers of a table take every thread of the default server (2 workers x 4
threads), and then nothing answered, not even /healthz. So the two are counted apart:

- ordinary requests: at most `requests` at once (CARDLEDGER_API_THREADS); the rest wait their turn, but no
  longer than `wait_seconds` (CARDLEDGER_API_QUEUE_SECONDS): then 503 `server_busy` with Retry-After, so a
  flood of slow calls cannot hold every caller in a queue without end;
- streams: at most `streams` at once (CARDLEDGER_API_STREAMS), on threads of their own (gunicorn runs
  `requests + streams` threads); one more is refused at once with 503 `stream_busy` and Retry-After, so the
  client reconnects later (EventSource does) or reads the table instead; one caller (one bearer token, or
  one address without a token) follows at most `streams_per_caller` of them (CARDLEDGER_API_STREAMS_PER_CALLER),
  so no single caller takes every stream slot (429 `too_many_streams`);
- /healthz and /readyz are never held back, so a busy worker still answers its probes.

A slot is given back when the server closes the response (a stream's ends with its generator).
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Callable, Iterable
from typing import Any

from services.api.problems import problem

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]

STREAM_PATH = re.compile(r"^/v1/tables/[^/]+/stream/?$")
PROBES = frozenset({"/healthz", "/readyz"})
RETRY_AFTER_SECONDS = 5
DEFAULT_WAIT_SECONDS = 5.0
DEFAULT_STREAMS_PER_CALLER = 4


class Admission:
    def __init__(
        self,
        app: WSGIApp,
        requests: int,
        streams: int,
        wait_seconds: float = DEFAULT_WAIT_SECONDS,
        streams_per_caller: int = DEFAULT_STREAMS_PER_CALLER,
    ) -> None:
        if requests < 1:
            raise ValueError(f"an API worker must serve at least 1 request at once, got {requests}")
        if streams < 0:
            raise ValueError(f"the number of streams at once cannot be negative, got {streams}")
        if wait_seconds <= 0:
            raise ValueError(f"a request must be allowed to wait for its turn, got {wait_seconds} s")
        if streams_per_caller < 1:
            raise ValueError(f"a caller must be allowed at least 1 stream, got {streams_per_caller}")
        self.app = app
        self.requests = requests
        self.streams = streams
        self.wait_seconds = wait_seconds
        self.streams_per_caller = streams_per_caller
        self._request_slots = threading.BoundedSemaphore(requests)
        self._stream_slots = threading.BoundedSemaphore(streams) if streams else None
        self._streams_of: dict[str, int] = {}
        self._streams_lock = threading.Lock()

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "")
        if path in PROBES:
            return self.app(environ, start_response)
        if environ.get("REQUEST_METHOD") == "GET" and STREAM_PATH.match(path):
            return self._stream(environ, start_response)
        slots = self._request_slots
        if not slots.acquire(timeout=self.wait_seconds):
            busy = problem(
                503,
                "server_busy",
                f"every request slot of this server stayed taken for {self.wait_seconds:g} s; retry in 1 s",
                headers={"Retry-After": "1"},
            )
            return busy(environ, start_response)
        return self._run(environ, start_response, slots.release)

    def _stream(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        caller = _caller_key(environ)
        with self._streams_lock:
            if self._streams_of.get(caller, 0) >= self.streams_per_caller:
                refused = problem(
                    429,
                    "too_many_streams",
                    f"one caller follows at most {self.streams_per_caller} streams at once on this server; close "
                    f"one first, or retry in {RETRY_AFTER_SECONDS} s",
                    headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
                )
                return refused(environ, start_response)
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
            self._streams_of[caller] = self._streams_of.get(caller, 0) + 1

        def release() -> None:
            with self._streams_lock:
                left = self._streams_of.pop(caller) - 1
                if left:
                    self._streams_of[caller] = left
            slots.release()

        return self._run(environ, start_response, release)

    def _run(
        self, environ: dict[str, Any], start_response: Callable[..., Any], release: Callable[[], None]
    ) -> Iterable[bytes]:
        try:
            body = self.app(environ, start_response)
        except BaseException:
            release()
            raise
        return _ReleasedOnClose(body, release)


def _caller_key(environ: dict[str, Any]) -> str:
    """Whose stream this is: the bearer token (hashed; never kept as it is), else the client address."""
    authorization = environ.get("HTTP_AUTHORIZATION", "")
    if authorization:
        return "token:" + hashlib.sha256(authorization.encode("utf-8", "replace")).hexdigest()
    return "address:" + str(environ.get("REMOTE_ADDR", ""))


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
