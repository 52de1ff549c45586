"""A seat's view stream (`GET /v1/tables/{id}/view/stream`, Server-Sent Events) read on a connection of its own.

`next_view(after)` gives the first view pushed at a version above `after`; the stream reconnects with
`Last-Event-ID` when the server ends it (its lifetime) or the connection breaks, so no version is missed. An
`event: error` ends it with StreamError.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

RECONNECTS = 5  # in a row without a message; the server's lifetime ends a stream every SSE_MAX_SECONDS


class StreamError(Exception):
    pass


class SeatStream:
    def __init__(
        self, base_url: str, path: str, token: str, timeout: float, on_connect: Callable[[], None] | None = None
    ) -> None:
        parts = urlsplit(base_url)
        self.https = parts.scheme == "https"
        self.host = parts.hostname or ""
        self.port = parts.port or (443 if self.https else 80)
        self.path = parts.path.rstrip("/") + path
        self.token, self.timeout, self.on_connect = token, timeout, on_connect
        self.last_id: str | None = None
        self._conn: http.client.HTTPConnection | None = None
        self._answer: http.client.HTTPResponse | None = None

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
        self._conn = self._answer = None

    def _open(self) -> http.client.HTTPResponse:
        kind = http.client.HTTPSConnection if self.https else http.client.HTTPConnection
        self._conn = kind(self.host, self.port, timeout=self.timeout)
        headers = {"Accept": "text/event-stream", "Authorization": f"Bearer {self.token}"}
        if self.last_id is not None:
            headers["Last-Event-ID"] = self.last_id
        if self.on_connect is not None:
            self.on_connect()
        self._conn.request("GET", self.path, headers=headers)
        answer = self._conn.getresponse()
        if answer.status != 200:
            body = answer.read().decode(errors="replace")
            self.close()
            raise StreamError(f"GET {self.path}: {answer.status} {body[:300]}")
        self._answer = answer
        return answer

    def _message(self) -> dict[str, str] | None:
        """The next message with an `event` (None when the server ended the stream)."""
        answer = self._answer or self._open()
        fields: dict[str, str] = {}
        while True:
            line = answer.readline()
            if not line:
                return None
            text = line.decode().rstrip("\r\n")
            if text:
                name, _, value = text.partition(":")
                fields[name] = value[1:] if value.startswith(" ") else value
                continue
            if "event" in fields:
                return fields
            fields = {}

    def interrupt(self) -> None:
        """End a read in progress on another thread (its `next_view` then raises when `stopped`)."""
        conn = self._conn
        sock = None if conn is None else conn.sock
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def next_view(self, after: int, stopped: Callable[[], bool] = lambda: False) -> dict[str, Any]:
        """The first view pushed at a version above `after` (reconnecting as needed)."""
        quiet = 0
        while True:
            try:
                message = self._message()
            except (http.client.HTTPException, OSError, ValueError):
                message = None
            if message is None:
                self.close()
                if stopped():
                    raise StreamError(f"GET {self.path}: stopped")
                quiet += 1
                if quiet > RECONNECTS:
                    raise StreamError(f"GET {self.path}: {RECONNECTS} connections in a row ended without a view")
                time.sleep(0.05 * quiet)
                continue
            if message.get("event") == "error":
                self.close()
                raise StreamError(f"GET {self.path}: event: error {message.get('data')}")
            if message.get("event") != "view":
                continue
            quiet = 0
            self.last_id = message.get("id", self.last_id)
            view: dict[str, Any] = json.loads(message["data"])
            if int(view["version"]) > after:
                return view
