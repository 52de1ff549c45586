"""A seat's view stream (`GET /v1/tables/{id}/view/stream`, Server-Sent Events) read on a connection of its own.

`next_view(after)` gives the first view pushed at a version above `after`; the stream reconnects with
`Last-Event-ID` when the server ends it (its lifetime) or the connection breaks, so no version is missed. An
`event: error` ends it with StreamError. The stream is read a chunk at a time and split into messages at their
blank lines; a view's JSON is decoded only when its `id` (the view's version) is above `after`.
"""

from __future__ import annotations

import contextlib
import json
import socket
import time
from collections.abc import Callable
from typing import Any

from services.cli.http_client import Connection, Endpoint, request_bytes

RECONNECTS = 5  # in a row without a message; the server's lifetime ends a stream every SSE_MAX_SECONDS


class StreamError(Exception):
    pass


def message_fields(block: bytes) -> dict[bytes, bytes]:
    """The fields of one message (its lines up to the blank line); a comment line gives the empty name."""
    fields = {}
    for line in block.split(b"\n"):
        name, _, value = line.partition(b":")
        fields[name] = value[1:] if value.startswith(b" ") else value
    return fields


class SeatStream:
    def __init__(
        self, base_url: str, path: str, token: str, timeout: float, on_connect: Callable[[], None] | None = None
    ) -> None:
        self.endpoint = Endpoint.of(base_url)
        self.path = self.endpoint.prefix + path
        self.relative_path = path
        self.token, self.timeout, self.on_connect = token, timeout, on_connect
        self.last_id: str | None = None
        self._conn: Connection | None = None
        self._chunked = True
        self._text = b""  # the stream's text received and not yet split into messages

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
        self._conn = None
        self._text = b""

    def _open(self) -> Connection:
        headers = {"Accept": "text/event-stream", "Authorization": f"Bearer {self.token}"}
        if self.last_id is not None:
            headers["Last-Event-ID"] = self.last_id
        if self.on_connect is not None:
            self.on_connect()
        self._conn = conn = Connection(self.endpoint, self.timeout)
        conn.sock.sendall(request_bytes(self.endpoint, "GET", self.relative_path, headers, None))
        status, answer_headers, _ = conn.head()
        if status != 200:
            body, _ = conn.body(answer_headers, "GET", status)
            self.close()
            raise StreamError(f"GET {self.path}: {status} {body.decode(errors='replace')[:300]}")
        self._chunked = "chunked" in answer_headers.get("transfer-encoding", "").lower()
        return conn

    def _more(self, conn: Connection) -> bytes | None:
        """The stream's next piece of text (None when the server ended the stream)."""
        if self._chunked:
            return conn.chunk()
        if conn.received:
            data, conn.received = conn.received, b""
            return data
        return conn.sock.recv(65536) or None

    def _message(self) -> dict[bytes, bytes] | None:
        """The next message with an `event` (None when the server ended the stream)."""
        conn = self._conn or self._open()
        while True:
            end = self._text.find(b"\n\n")
            if end < 0:
                more = self._more(conn)
                if more is None:
                    return None
                self._text += more
                if b"\r" in more:  # lines may end with CRLF or CR too (the server's end with LF)
                    self._text = self._text.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
                continue
            block, self._text = self._text[:end], self._text[end + 2 :]
            fields = message_fields(block)
            if b"event" in fields:
                return fields

    def interrupt(self) -> None:
        """End a read in progress on another thread (its `next_view` then raises when `stopped`)."""
        conn = self._conn
        if conn is not None:
            with contextlib.suppress(OSError):
                conn.sock.shutdown(socket.SHUT_RDWR)

    def next_view(self, after: int, stopped: Callable[[], bool] = lambda: False) -> dict[str, Any]:
        """The first view pushed at a version above `after` (reconnecting as needed)."""
        quiet = 0
        while True:
            try:
                message = self._message()
            except (OSError, ValueError):
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
            event = message[b"event"]
            if event == b"error":
                self.close()
                data = message.get(b"data", b"").decode(errors="replace")
                raise StreamError(f"GET {self.path}: event: error {data}")
            if event != b"view":
                continue
            quiet = 0
            sse_id = message.get(b"id")
            if sse_id is not None:
                self.last_id = sse_id.decode()
                if sse_id.isdigit() and int(sse_id) <= after:  # the id is the view's version
                    continue
            view: dict[str, Any] = json.loads(message[b"data"])
            if int(view["version"]) > after:
                return view
