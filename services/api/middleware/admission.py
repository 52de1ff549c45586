"""How many requests one API worker process serves at once: a WSGI middleware around the app.

A Server-Sent Events stream holds its thread for minutes while it waits on Redis. Sharing the request
threads with streams let eight followers of a table take every thread of the default server (2 workers x 4
threads), and then nothing answered, not even /healthz. So the two are counted apart:

- ordinary requests: at most `requests` at once (CARDLEDGER_API_THREADS); the rest wait their turn, but no
  longer than `wait_seconds` (CARDLEDGER_API_QUEUE_SECONDS): then 503 `server_busy` with Retry-After, so a
  flood of slow calls cannot hold every caller in a queue without end;
- streams (a table's public stream, GET /v1/tables/{id}/stream, and a seat view's, GET .../view/stream):
  at most `streams` at once (CARDLEDGER_API_STREAMS), on threads of their own (gunicorn runs
  `requests + streams` threads); one more is refused at once with 503 `stream_busy` and Retry-After, so the
  client reconnects later (EventSource does) or reads the table instead; one caller (one bearer token, or
  one address without a token) follows at most `streams_per_caller` of them (CARDLEDGER_API_STREAMS_PER_CALLER),
  so no single caller takes every stream slot (429 `too_many_streams`);
- players come first: `reserved` of the stream slots (CARDLEDGER_API_STREAMS_RESERVED, half by default) are kept
  for the seated players of a table. The route classifies a stream once it knows the caller
  (`services.api.pushes.stream_claims`): a bystander's stream (or long-poll) is refused 503 `stream_busy` once
  bystanders hold `streams - reserved` slots, and 429 `too_many_streams` once its client address follows
  `streams_per_address` as a bystander, whatever its tokens (CARDLEDGER_API_STREAMS_PER_ADDRESS; the address as
  CARDLEDGER_TRUSTED_PROXIES resolves it: registering tokens is free). People watching never crowd out a seated
  player's seat stream or long-poll, and players behind one address are not capped by it;
- one bearer token has at most `requests_per_caller` requests in progress at once
  (CARDLEDGER_API_REQUESTS_PER_CALLER); one more is refused at once with 429 `too_many_requests_at_once`,
  before Flask sees it. A client that sends its requests one after the other never meets this; one that
  opens many connections cannot hold more than its share of the request slots, nor burn the server's time
  on refusals (a refusal here costs far less than the rate limiter's);
- a token that was answered 429 (by a rate limit or the limit above) and sends again before its
  Retry-After has passed is held (asleep, costing nothing) until it has, at most `wait_seconds`, and then
  served; at most `held_per_caller` of its requests are held at once, more are refused at once. A client
  that waits as told never meets this; one that ignores Retry-After from many connections is slowed to what
  its limits allow instead of keeping the server busy refusing it;
- a long-poll read (`wait_for_version` on GET /v1/tables/{id} or its /view) waits like a stream, so it is
  admitted as one: a stream slot and one of its caller's `streams_per_caller`, refused with the same codes;
- /healthz and /readyz are never held back, so a busy worker still answers its probes.
- a CORS preflight (OPTIONS) carries no token (browsers never send one), so it is admitted as a request
  without a token: a request slot, no count of any caller, never held. With CORS on (`services.api.middleware.cors`)
  every refusal above carries the CORS headers of its origin, so a browser page can read it and its
  Retry-After.

A slot is given back when the server closes the response (a stream's ends with its generator).
"""

from __future__ import annotations

import hashlib
import math
import re
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import unquote

from services.api.middleware.cors import CorsPolicy
from services.api.middleware.problems import problem

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]

STREAM_PATH = re.compile(r"^/v1/tables/[^/]+(?:/view)?/stream/?$")  # the public stream and the seat view's
LONG_POLL_PATH = re.compile(r"^/v1/tables/[^/]+(?:/view)?/?$")
LONG_POLL_PARAMETER = "wait_for_version"
PROBES = frozenset({"/healthz", "/readyz"})
RETRY_AFTER_SECONDS = 5
DEFAULT_WAIT_SECONDS = 5.0
DEFAULT_STREAMS_PER_CALLER = 4
DEFAULT_REQUESTS_PER_CALLER = 2
DEFAULT_HELD_PER_CALLER = 16
DEFAULT_STREAMS_PER_ADDRESS = 8
STREAM_TICKET = "cardledger.stream_ticket"  # the WSGI environ key of a stream's `StreamTicket`
MAX_PENALTIES = 10_000


class _PerCaller:
    """How many things each caller holds at once, up to `limit` each (callers holding none are forgotten)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.held: dict[str, int] = {}
        self._lock = threading.Lock()

    def enter(self, caller: str) -> bool:
        with self._lock:
            count = self.held.get(caller, 0)
            if count >= self.limit:
                return False
            self.held[caller] = count + 1
            return True

    def leave(self, caller: str) -> None:
        with self._lock:
            left = self.held.pop(caller) - 1
            if left:
                self.held[caller] = left


class Slots:
    """`threading.BoundedSemaphore`'s `acquire` and `release` for the request and stream slots: a slot free (the
    usual case) is taken and given back under one lock, where the semaphore runs its Condition's Python code
    for both; only a request that finds none free waits on the Condition, until one is given back or its
    timeout passes."""

    def __init__(self, count: int) -> None:
        self.count = count
        self._free = count
        self._lock = threading.Lock()
        self._given_back = threading.Condition(self._lock)
        self._waiting = 0

    def acquire(self, blocking: bool = True, timeout: float | None = None) -> bool:
        with self._lock:
            if self._free:
                self._free -= 1
                return True
            if not blocking:
                return False
            deadline = None if timeout is None else time.monotonic() + timeout
            self._waiting += 1
            try:
                while not self._free:
                    left = None if deadline is None else deadline - time.monotonic()
                    if left is not None and left <= 0:
                        return False
                    self._given_back.wait(left)
                self._free -= 1
                return True
            finally:
                self._waiting -= 1

    def release(self) -> None:
        with self._lock:
            if self._free >= self.count:
                raise ValueError(f"all {self.count} slots were already free: a slot was given back twice")
            self._free += 1
            if self._waiting:
                self._given_back.notify()


class StreamPool:
    """The stream slots of a worker, `reserved` of them for seated players: a stream enters provisionally (any slot
    free), then a bystander's keeps its slot only while bystanders hold fewer than `total - reserved`, and fewer
    than `per_address` from its client address."""

    def __init__(self, total: int, reserved: int, per_address: int = DEFAULT_STREAMS_PER_ADDRESS) -> None:
        self.total = total
        self.reserved = min(reserved, total)
        self.per_address = per_address
        self._held = 0
        self._bystanders = 0
        self._from = _PerCaller(per_address)
        self._lock = threading.Lock()

    def enter(self) -> bool:
        with self._lock:
            if self._held >= self.total:
                return False
            self._held += 1
            return True

    def as_bystander(self, address: str) -> str | None:
        """None when a bystander's stream from `address` may keep its slot, else the refusal's code."""
        with self._lock:
            if self._bystanders >= self.total - self.reserved:
                return "stream_busy"
            if not self._from.enter(address):
                return "too_many_streams"
            self._bystanders += 1
            return None

    def leave(self, bystander_from: str | None) -> None:
        with self._lock:
            self._held -= 1
            if bystander_from is not None:
                self._bystanders -= 1
                self._from.leave(bystander_from)


class StreamTicket:
    """One admitted stream's hold on its slot (in the WSGI environ under STREAM_TICKET): the route says when the
    caller is a bystander (`as_bystander`: None, or the code of the refusal; the slot is kept for players)."""

    def __init__(self, pool: StreamPool, address: str) -> None:
        self.pool = pool
        self.address = address
        self.bystander_from: str | None = None

    def as_bystander(self) -> str | None:
        if self.bystander_from is not None:
            return None
        refused = self.pool.as_bystander(self.address)
        if refused is None:
            self.bystander_from = self.address
        return refused

    def release(self) -> None:
        self.pool.leave(self.bystander_from)


class Admission:
    def __init__(
        self,
        app: WSGIApp,
        requests: int,
        streams: int,
        wait_seconds: float = DEFAULT_WAIT_SECONDS,
        streams_per_caller: int = DEFAULT_STREAMS_PER_CALLER,
        requests_per_caller: int = DEFAULT_REQUESTS_PER_CALLER,
        held_per_caller: int = DEFAULT_HELD_PER_CALLER,
        cors: CorsPolicy | None = None,
        streams_per_address: int = DEFAULT_STREAMS_PER_ADDRESS,
        reserved_streams: int | None = None,
    ) -> None:
        if requests < 1:
            raise ValueError(f"an API worker must serve at least 1 request at once, got {requests}")
        if streams < 0:
            raise ValueError(f"the number of streams at once cannot be negative, got {streams}")
        if wait_seconds <= 0:
            raise ValueError(f"a request must be allowed to wait for its turn, got {wait_seconds} s")
        if streams_per_caller < 1:
            raise ValueError(f"a caller must be allowed at least 1 stream, got {streams_per_caller}")
        if requests_per_caller < 1:
            raise ValueError(f"a caller must be allowed at least 1 request at once, got {requests_per_caller}")
        self.app = app
        self.requests = requests
        self.streams = streams
        self.wait_seconds = wait_seconds
        self.streams_per_caller = streams_per_caller
        self.requests_per_caller = requests_per_caller
        self._request_slots = Slots(requests)
        reserved = streams // 2 if reserved_streams is None else reserved_streams
        self._stream_slots = StreamPool(streams, reserved, max(streams_per_address, streams_per_caller))
        self._streams_of = _PerCaller(streams_per_caller)
        self._requests_of = _PerCaller(requests_per_caller)
        self._held_of = _PerCaller(max(1, held_per_caller))
        self._refused_until: dict[str, float] = {}  # token -> monotonic time its last Retry-After ends
        self._cors = cors
        self._refused_lock = threading.Lock()

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "")
        if path in PROBES:
            return self.app(environ, start_response)
        if environ.get("REQUEST_METHOD") == "GET" and (STREAM_PATH.match(path) or _is_long_poll(path, environ)):
            return self._stream(environ, start_response)
        token = _token_key(environ)
        if token is not None:
            early = self._hold_until_retry_after(environ, token)
            if early is not None:
                return early(environ, start_response)
            start_response = self._noting_refusals(token, start_response)
        if token is not None and not self._requests_of.enter(token):
            self._refused(token, 1.0)
            refused = self._refusal(
                environ,
                429,
                "too_many_requests_at_once",
                f"one caller has at most {self.requests_per_caller} requests in progress at once; "
                "send the next when one has been answered",
                headers={"Retry-After": "1"},
            )
            return refused(environ, start_response)
        slots = self._request_slots
        if not slots.acquire(timeout=self.wait_seconds):
            if token is not None:
                self._requests_of.leave(token)
            busy = self._refusal(
                environ,
                503,
                "server_busy",
                f"every request slot of this server stayed taken for {self.wait_seconds:g} s; retry in 1 s",
                headers={"Retry-After": "1"},
            )
            return busy(environ, start_response)

        def release() -> None:
            if token is not None:
                self._requests_of.leave(token)
            slots.release()

        return self._run(environ, start_response, release)

    def _refusal(
        self, environ: dict[str, Any], status: int, code: str, detail: str, headers: dict[str, str]
    ) -> WSGIApp:
        """A problem+json refusal, with the CORS headers of the request's origin when CORS is on."""
        cors = {} if self._cors is None else self._cors.headers_for(environ)
        return problem(status, code, detail, headers={**headers, **cors})

    def _hold_until_retry_after(self, environ: dict[str, Any], token: str) -> WSGIApp | None:
        """Sleep until the token's last Retry-After has passed (at most `wait_seconds`); None when the request may
        go on, or a 429 when the token already has `held_per_caller` requests asleep."""
        with self._refused_lock:
            until = self._refused_until.get(token)
        wait = 0.0 if until is None else until - time.monotonic()
        if wait <= 0:
            return None
        if not self._held_of.enter(token):
            seconds = max(1, math.ceil(wait))
            return self._refusal(
                environ,
                429,
                "retry_after_not_waited",
                f"this caller was told to retry after {seconds} s and already has requests waiting for that",
                headers={"Retry-After": str(seconds)},
            )
        try:
            time.sleep(min(wait, self.wait_seconds))
        finally:
            self._held_of.leave(token)
        return None

    def _noting_refusals(self, token: str, start_response: Callable[..., Any]) -> Callable[..., Any]:
        def noted(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            if status.startswith("429"):
                retry = next((value for name, value in headers if name.lower() == "retry-after"), "1")
                self._refused(token, float(retry) if retry.isdigit() else 1.0)
            return start_response(status, headers) if exc_info is None else start_response(status, headers, exc_info)

        return noted

    def _refused(self, token: str, seconds: float) -> None:
        until = time.monotonic() + seconds
        with self._refused_lock:
            if len(self._refused_until) >= MAX_PENALTIES and token not in self._refused_until:
                now = time.monotonic()
                for stale in [key for key, ends in self._refused_until.items() if ends <= now]:
                    del self._refused_until[stale]
                # Still full (many tokens refused at once): forget the oldest penalty, which only lets its token
                # be refused again rather than held; the map never outgrows MAX_PENALTIES.
                if len(self._refused_until) >= MAX_PENALTIES:
                    del self._refused_until[next(iter(self._refused_until))]
            self._refused_until[token] = max(until, self._refused_until.get(token, 0.0))

    def _stream(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        caller = _caller_key(environ)
        if not self._streams_of.enter(caller):
            refused = self._refusal(
                environ,
                429,
                "too_many_streams",
                f"one caller follows at most {self.streams_per_caller} streams at once on this server (a long-poll "
                f"counts as one); close one first, or retry in {RETRY_AFTER_SECONDS} s",
                headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
            )
            return refused(environ, start_response)
        pool = self._stream_slots
        if not pool.enter():
            self._streams_of.leave(caller)
            busy = self._refusal(
                environ,
                503,
                "stream_busy",
                f"this server follows {self.streams} streams at once (a long-poll counts as one) and has none free; "
                f"retry in {RETRY_AFTER_SECONDS} s or read the table instead",
                headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
            )
            return busy(environ, start_response)

        ticket = StreamTicket(pool, str(environ.get("REMOTE_ADDR", "")))
        environ[STREAM_TICKET] = ticket

        def release() -> None:
            self._streams_of.leave(caller)
            ticket.release()

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


def _is_long_poll(path: str, environ: dict[str, Any]) -> bool:
    if not LONG_POLL_PATH.match(path):
        return False
    return names_parameter(str(environ.get("QUERY_STRING", "")), LONG_POLL_PARAMETER)


def names_parameter(query: str, name: str) -> bool:
    """Whether `name` is a key of `parse_qs(query, keep_blank_values=True)`, without decoding every key and value:
    a key is decoded only when it holds something to decode."""
    for field in query.split("&"):
        key = field.partition("=")[0]
        if key == name or (("%" in key or "+" in key) and unquote(key.replace("+", " ")) == name):
            return True
    return False


def _token_key(environ: dict[str, Any]) -> str | None:
    """The caller's bearer token, hashed (never kept as it is); None without one."""
    authorization = environ.get("HTTP_AUTHORIZATION", "")
    if not authorization:
        return None
    return "token:" + hashlib.sha256(authorization.encode("utf-8", "replace")).hexdigest()


def _caller_key(environ: dict[str, Any]) -> str:
    """Whose stream this is: the bearer token, else the client address."""
    return _token_key(environ) or "address:" + str(environ.get("REMOTE_ADDR", ""))


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
