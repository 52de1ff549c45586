"""The command line's one HTTP client (`demo`, `verify --url`, `simulate`'s bots): JSON over HTTP/1.1 on a socket,
one keep-alive connection, used by one thread; answers bounded by MAX_BODY_BYTES, redirects not followed.

The bots' every action is a request, and their process shares the cores with the server it loads: each request
is one `sendall` of bytes built with one format and its answer is read with one header split, instead of
`http.client`'s header-by-header request and `email`-parser answer (docs/performance.md, "Running the benches").
"""

from __future__ import annotations

import json
import socket
import ssl
import struct
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

CONNECT_ATTEMPTS = 3
MAX_HEAD_BYTES = 65536  # an answer's status line and headers
READ_BYTES = 65536
MAX_BODY_BYTES = 64 * 1024 * 1024  # an answer's body: a larger one is refused (AnswerTooLarge)
NO_BODY_STATUSES = frozenset({204, 304})
BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})  # sent with Content-Length even when empty


@dataclass(frozen=True)
class Response:
    status: int
    headers: dict[str, str]
    payload: Any
    seconds: float

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    @property
    def code(self) -> str:
        """The problem+json `code` of an error answer (`http_<status>` when the body has none)."""
        if isinstance(self.payload, dict) and isinstance(self.payload.get("code"), str):
            return str(self.payload["code"])
        return f"http_{self.status}"

    def body(self) -> dict[str, Any]:
        """The JSON object of a 2xx answer (raises ApiError otherwise)."""
        if not self.ok or not isinstance(self.payload, dict):
            raise ApiError(self)
        return self.payload


class ApiError(Exception):
    def __init__(self, response: Response, context: str = "") -> None:
        self.response = response
        detail = response.payload.get("detail") if isinstance(response.payload, dict) else response.payload
        prefix = f"{context}: " if context else ""
        super().__init__(f"{prefix}{response.status} {response.code}: {str(detail)[:300]}")


class AnswerTooLarge(ValueError):
    """An answer's body is larger than MAX_BODY_BYTES (not sent again: the server would answer the same)."""


class BrokenAnswer(ConnectionError):
    """The connection ended or carried something that is not an HTTP/1.1 answer (the request is sent again)."""


@dataclass(frozen=True)
class Endpoint:
    """Where a base URL's requests go: the address, the `Host` header, the path prefix."""

    https: bool
    host: str
    port: int
    prefix: str

    @classmethod
    def of(cls, base_url: str) -> Endpoint:
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"not an http(s) URL: {base_url!r}")
        https = parts.scheme == "https"
        return cls(https, parts.hostname, parts.port or (443 if https else 80), parts.path.rstrip("/"))

    @property
    def host_header(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return host if self.port == (443 if self.https else 80) else f"{host}:{self.port}"

    def connect(self, timeout: float) -> socket.socket:
        sock = socket.create_connection((self.host, self.port), timeout)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        # Blocking, with the kernel's timeouts: a socket with a Python timeout polls before every send and recv.
        sock.settimeout(None)
        limit = struct.pack("ll", int(timeout), int(timeout % 1 * 1_000_000))
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, limit)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, limit)
        if self.https:
            return ssl.create_default_context().wrap_socket(sock, server_hostname=self.host)
        return sock


def request_body_and_headers(
    body: Any, token: str | None, headers: Mapping[str, str] | None
) -> tuple[bytes | None, dict[str, str]]:
    """A request's JSON body (None without one) and its headers: JSON accepted and sent, the bearer token."""
    data = None if body is None else json.dumps(body).encode()
    sent = {"Accept": "application/json", **(headers or {})}
    if data is not None:
        sent["Content-Type"] = "application/json"
    if token:
        sent["Authorization"] = f"Bearer {token}"
    return data, sent


def request_bytes(endpoint: Endpoint, method: str, path: str, headers: Mapping[str, str], body: bytes | None) -> bytes:
    """The request as sent, byte for byte what `http.client` sends for it: the request line, Host,
    Accept-Encoding, Content-Length (with a body, or 0 for a method that expects one), `headers`, the body."""
    if "\r" in path or "\n" in path or " " in path:
        raise ValueError(f"the path holds a space or a line break: {path!r}")
    lines = [f"{method} {endpoint.prefix}{path} HTTP/1.1", f"Host: {endpoint.host_header}", "Accept-Encoding: identity"]
    if body is not None or method in BODY_METHODS:
        lines.append(f"Content-Length: {0 if body is None else len(body)}")
    for name, value in headers.items():
        if "\r" in value or "\n" in value:
            raise ValueError(f"header {name} holds a line break: {value!r}")
        lines.append(f"{name}: {value}")
    head = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
    return head if body is None else head + body


class Connection:
    """One socket to an endpoint: requests written whole, answers' heads read and split once."""

    def __init__(self, endpoint: Endpoint, timeout: float) -> None:
        self.sock = endpoint.connect(timeout)
        self.received = b""  # read from the socket, not yet consumed

    def close(self) -> None:
        self.sock.close()

    def fill(self) -> None:
        data = self.sock.recv(READ_BYTES)
        if not data:
            raise BrokenAnswer("the server closed the connection")
        self.received += data

    def take(self, count: int) -> bytes:
        while len(self.received) < count:
            self.fill()
        taken, self.received = self.received[:count], self.received[count:]
        return taken

    def line(self) -> bytes:
        """The next CRLF-ended line, without its end."""
        while (end := self.received.find(b"\r\n")) < 0:
            if len(self.received) > MAX_HEAD_BYTES:
                raise BrokenAnswer("a line longer than any answer's head")
            self.fill()
        found, self.received = self.received[:end], self.received[end + 2 :]
        return found

    def head(self) -> tuple[int, dict[str, str], bool]:
        """The answer's status, its headers (names lower-cased, the last of a repeated one) and whether the server
        keeps the connection; informational (1xx) answers are skipped."""
        while True:
            while (end := self.received.find(b"\r\n\r\n")) < 0:
                if len(self.received) > MAX_HEAD_BYTES:
                    raise BrokenAnswer(f"an answer's head longer than {MAX_HEAD_BYTES} bytes")
                self.fill()
            text, self.received = self.received[:end].decode("latin-1"), self.received[end + 4 :]
            status_line, *lines = text.split("\r\n")
            version, _, rest = status_line.partition(" ")
            code = rest[:3]
            if not version.startswith("HTTP/1.") or not code.isdigit():
                raise BrokenAnswer(f"not an HTTP/1.x status line: {status_line[:100]!r}")
            headers = {}
            for line in lines:  # no space may come before a field's colon (RFC 9112, 5.1)
                name, _, value = line.partition(":")
                headers[name.lower()] = value.strip()
            status = int(code)
            if status >= 200 or status == 101:
                connection = headers.get("connection", "").lower()
                keeps = connection != "close" and (version != "HTTP/1.0" or connection == "keep-alive")
                return status, headers, keeps

    def chunk(self) -> bytes | None:
        """The next chunk of a chunked body (None after the last, its trailer read)."""
        size_line = self.line()
        try:
            size = int(size_line.split(b";", 1)[0], 16)
        except ValueError:
            raise BrokenAnswer(f"not a chunk size: {size_line[:40]!r}") from None
        if size == 0:
            while self.line():  # trailer fields, up to the empty line
                pass
            return None
        if size > MAX_BODY_BYTES:
            raise AnswerTooLarge(f"the answer is larger than {MAX_BODY_BYTES} bytes")
        data = self.take(size + 2)
        return data[:size]

    def body(self, headers: Mapping[str, str], method: str, status: int) -> tuple[bytes, bool]:
        """The answer's body, and False when it ran to the connection's end (the connection is then spent)."""
        if method == "HEAD" or status in NO_BODY_STATUSES or status < 200:
            return b"", True
        if "chunked" in headers.get("transfer-encoding", "").lower():
            parts, size = [], 0
            while (part := self.chunk()) is not None:
                size += len(part)
                if size > MAX_BODY_BYTES:
                    raise AnswerTooLarge(f"the answer is larger than {MAX_BODY_BYTES} bytes")
                parts.append(part)
            return b"".join(parts), True
        length = headers.get("content-length")
        if length is not None:
            if not length.isdigit():
                raise BrokenAnswer(f"Content-Length {length!r}")
            if int(length) > MAX_BODY_BYTES:
                raise AnswerTooLarge(f"the answer is larger than {MAX_BODY_BYTES} bytes")
            return self.take(int(length)), True
        while True:  # neither: the body is everything up to the end of the connection
            data = self.sock.recv(READ_BYTES)
            if not data:
                taken, self.received = self.received, b""
                return taken, False
            self.received += data
            if len(self.received) > MAX_BODY_BYTES:
                raise AnswerTooLarge(f"the answer is larger than {MAX_BODY_BYTES} bytes")


class HttpClient:
    """Requests against one base URL over a persistent connection (reconnects when the server closed it).

    A request that fails on the connection itself (reset, closed keep-alive) is sent again on a new one, at
    most CONNECT_ATTEMPTS times in all. Actions carry an Idempotency-Key, so sending one twice is safe.
    """

    def __init__(self, base_url: str, timeout: float = 30.0) -> None:
        self.endpoint = Endpoint.of(base_url)
        self.timeout = timeout
        self._conn: Connection | None = None

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        token: str | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> Response:
        data, sent = request_body_and_headers(body, token, headers)
        message = request_bytes(self.endpoint, method, path, sent, data)
        for attempt in range(1, CONNECT_ATTEMPTS + 1):
            started = time.perf_counter()
            try:
                if self._conn is None:
                    self._conn = Connection(self.endpoint, self.timeout)
                conn = self._conn
                conn.sock.sendall(message)
                status, received, keeps = conn.head()
                raw, whole = conn.body(received, method, status)
            except OSError:
                self.close()
                if attempt == CONNECT_ATTEMPTS:
                    raise
                continue
            except AnswerTooLarge:
                self.close()  # the rest of the answer is still on the connection
                raise
            seconds = time.perf_counter() - started
            if not (keeps and whole):
                self.close()
            return Response(status, received, decode_answer(raw), seconds)
        raise AssertionError("unreachable")


def decode_answer(raw: bytes) -> Any:
    if not raw:
        return None
    try:
        return json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return raw.decode(errors="replace")
