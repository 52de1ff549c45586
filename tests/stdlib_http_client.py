"""A JSON-over-HTTP client on `http.client`: the reference that tests/unit/test_http_client.py compares the
command line's client (`services.cli.http_client.HttpClient`) with, byte for byte."""

from __future__ import annotations

import http.client
import time
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from services.cli.http_client import CONNECT_ATTEMPTS, Response, decode_answer, request_body_and_headers


class StdlibHttpClient:
    """Requests against one base URL over a persistent `http.client` connection (reconnects when the server
    closed it); a request that fails on the connection itself is sent again, at most CONNECT_ATTEMPTS times."""

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
        data, sent = request_body_and_headers(body, token, headers)
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
            return Response(answer.status, received, decode_answer(raw), seconds)
        raise AssertionError("unreachable")
