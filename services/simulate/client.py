"""A small JSON-over-HTTP client on `http.client`: one keep-alive connection, used by one thread."""

from __future__ import annotations

import http.client
import json
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

CONNECT_ATTEMPTS = 3


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


class HttpClient:
    """Requests against one base URL over a persistent connection (reconnects when the server closed it).

    A request that fails on the connection itself (reset, closed keep-alive) is sent again on a new one, at
    most CONNECT_ATTEMPTS times in all. Actions carry an Idempotency-Key, so sending one twice is safe.
    """

    def __init__(self, base_url: str, timeout: float = 30.0) -> None:
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"not an http(s) URL: {base_url!r}")
        self.https = parts.scheme == "https"
        self.host = parts.hostname
        self.port = parts.port or (443 if self.https else 80)
        self.prefix = parts.path.rstrip("/")
        self.timeout = timeout
        self._conn: http.client.HTTPConnection | None = None

    def _connection(self) -> http.client.HTTPConnection:
        if self._conn is None:
            kind = http.client.HTTPSConnection if self.https else http.client.HTTPConnection
            self._conn = kind(self.host, self.port, timeout=self.timeout)
        return self._conn

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
        data = None if body is None else json.dumps(body).encode()
        sent = {"Accept": "application/json", **(headers or {})}
        if data is not None:
            sent["Content-Type"] = "application/json"
        if token:
            sent["Authorization"] = f"Bearer {token}"
        for attempt in range(1, CONNECT_ATTEMPTS + 1):
            started = time.perf_counter()
            try:
                conn = self._connection()
                conn.request(method, self.prefix + path, body=data, headers=sent)
                answer = conn.getresponse()
                raw = answer.read()
            except (http.client.HTTPException, OSError):
                self.close()
                if attempt == CONNECT_ATTEMPTS:
                    raise
                continue
            seconds = time.perf_counter() - started
            received = {name.lower(): value for name, value in answer.getheaders()}
            if received.get("connection", "").lower() == "close":
                self.close()
            return Response(answer.status, received, _decode(raw), seconds)
        raise AssertionError("unreachable")


def _decode(raw: bytes) -> Any:
    if not raw:
        return None
    try:
        return json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return raw.decode(errors="replace")
