"""The command line's HTTP client and the bots' seat stream reader (services/cli/http_client.py, seat_stream.py)
against a loopback server that answers with scripted bytes: the requests are http.client's byte for byte,
answers are read whole however the server cuts them (and refused past the bound), a connection the server drops
is replaced, and the stream's messages come out one by one across chunks, CRLF lines, heartbeats and
reconnections."""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import pytest

from services.cli import http_client
from services.cli.http_client import AnswerTooLarge, BrokenAnswer, HttpClient
from services.cli.simulate.seat_stream import SeatStream, StreamError
from tests.stdlib_http_client import StdlibHttpClient


@dataclass(frozen=True)
class Answer:
    pieces: tuple[bytes, ...]  # sent one by one, a moment apart
    close: bool = False  # the server closes the connection after it


def plain(status: str, body: bytes = b"", *headers: str, close: bool = False) -> Answer:
    head = "".join(f"{header}\r\n" for header in headers)
    text = f"HTTP/1.1 {status}\r\nServer: scripted\r\n{head}Content-Length: {len(body)}\r\n\r\n"
    return Answer((text.encode() + body,), close)


def chunked(status: str, chunks: tuple[bytes, ...], *headers: str, end: bool = True, close: bool = False) -> Answer:
    head = "".join(f"{header}\r\n" for header in headers)
    pieces = [f"HTTP/1.1 {status}\r\n{head}Transfer-Encoding: chunked\r\n\r\n".encode()]
    pieces += [f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n" for chunk in chunks]
    if end:
        pieces.append(b"0\r\n\r\n")
    return Answer(tuple(pieces), close)


class ScriptedServer:
    """Reads each request whole and answers it with the next scripted answer; records (connection, request)."""

    def __init__(self, answers: list[Answer]) -> None:
        self.answers = list(answers)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.requests: list[tuple[int, bytes]] = []
        self.connections = 0
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def serve(self) -> None:
        while self.answers:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            self.connections += 1
            with conn:
                received = b""
                while self.answers:
                    request, received = read_request(conn, received)
                    if request is None:
                        break
                    self.requests.append((self.connections, request))
                    answer = self.answers.pop(0)
                    for piece in answer.pieces:
                        conn.sendall(piece)
                        time.sleep(0.01)
                    if answer.close:
                        break

    def close(self) -> None:
        self.listener.close()
        self.thread.join(timeout=5)


def read_request(conn: socket.socket, received: bytes) -> tuple[bytes | None, bytes]:
    while b"\r\n\r\n" not in received:
        data = conn.recv(65536)
        if not data:
            return None, b""
        received += data
    head, _, rest = received.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    while len(rest) < length:
        rest += conn.recv(65536)
    return head + b"\r\n\r\n" + rest[:length], rest[length:]


@contextmanager
def scripted(*answers: Answer) -> Iterator[ScriptedServer]:
    server = ScriptedServer(list(answers))
    try:
        yield server
    finally:
        server.close()


REQUESTS = [
    ("POST", "/v1/tables/t/actions", {"type": "discard"}, "tok", {"Idempotency-Key": "k", "If-Match": '"3"'}),
    ("GET", "/v1/tables/t/view?wait_for_version=4", None, "tok", {"Prefer": "wait=10"}),
    ("POST", "/v1/players", None, None, None),
    ("GET", "/readyz", None, None, None),
]


@pytest.mark.parametrize("request_", REQUESTS, ids=[f"{r[0]} {r[1]}" for r in REQUESTS])
def test_a_request_is_what_http_client_sends_byte_for_byte(request_: tuple) -> None:  # type: ignore[type-arg]
    method, path, body, token, headers = request_
    with scripted(plain("200 OK", b"{}", close=True), plain("200 OK", b"{}")) as server:
        for kind in (StdlibHttpClient, HttpClient):
            client = kind(server.url + "/prefix", timeout=5)
            assert client.request(method, path, body, token, headers).status == 200
            client.close()
    sent = [request for _, request in server.requests]
    assert sent[0] == sent[1]
    assert sent[1].startswith(f"{method} /prefix{path} HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n".encode())


def test_answers_are_read_whole_on_one_kept_connection() -> None:
    view = json.dumps({"version": 7, "hand": ["7M"] * 500}).encode()
    with scripted(
        plain("201 CREATED", b'{"id": "p"}', "X-Request-ID: a", "X-Request-ID: b"),
        chunked("200 OK", (view[:5], view[5:3000], view[3000:])),
        Answer((b"HTTP/1.1 100 Continue\r\n\r\n", b"HTTP/1.1 204 NO CONTENT\r\nContent-Length: 0\r\n\r\n")),
        plain("412 PRECONDITION FAILED", b'{"code": "version_mismatch", "detail": "at 8"}'),
    ) as server:
        client = HttpClient(server.url, timeout=5)
        created = client.request("POST", "/v1/players", {"name": "x"})
        assert (created.status, created.payload, created.headers["x-request-id"]) == (201, {"id": "p"}, "b")
        assert client.request("GET", "/view").payload == json.loads(view)
        no_content = client.request("DELETE", "/seat")
        assert (no_content.status, no_content.payload) == (204, None)
        refused = client.request("POST", "/actions", {})
        assert (refused.status, refused.code, refused.ok) == (412, "version_mismatch", False)
        client.close()
    assert server.connections == 1 and len(server.requests) == 4


def test_a_connection_the_server_dropped_is_replaced_and_the_request_sent_again() -> None:
    with scripted(plain("200 OK", b"1", close=True), Answer((), close=True), plain("200 OK", b"2")) as server:
        client = HttpClient(server.url, timeout=5)
        assert client.request("GET", "/a").payload == 1
        # The server closed without saying so: the next request fails on the old connection, then on a second
        # (the server closes it unanswered), and is answered on a third.
        assert client.request("GET", "/b").payload == 2
        client.close()
    assert [connection for connection, _ in server.requests] == [1, 2, 3]


def test_connection_close_and_a_body_to_the_end_close_the_connection() -> None:
    to_the_end = Answer((b"HTTP/1.1 200 OK\r\n\r\n", b'{"whole": ', b"true}"), close=True)
    with scripted(plain("200 OK", b"1", "Connection: close", close=True), to_the_end, plain("200 OK", b"3")) as server:
        client = HttpClient(server.url, timeout=5)
        assert client.request("GET", "/a").payload == 1
        assert client.request("GET", "/b").payload == {"whole": True}
        assert client.request("GET", "/c").payload == 3
        client.close()
    assert [connection for connection, _ in server.requests] == [1, 2, 3]


def test_something_other_than_an_answer_fails_after_every_attempt() -> None:
    garbage = Answer((b"SSH-2.0-OpenSSH\r\n\r\n",), close=True)
    with scripted(garbage, garbage, garbage) as server:
        client = HttpClient(server.url, timeout=5)
        with pytest.raises(BrokenAnswer, match=re.escape("not an HTTP/1.x status line")):
            client.request("GET", "/a")
    assert server.connections == 3


def test_an_answer_that_does_not_come_fails_the_request_at_the_timeout() -> None:
    silent = Answer((b"HTTP/1.1 200 OK\r\n",), close=False)  # a status line, then nothing
    with scripted(silent, silent, silent, silent) as server:  # the fourth keeps the third connection open
        client = HttpClient(server.url, timeout=0.3)
        started = time.monotonic()
        with pytest.raises(OSError):
            client.request("GET", "/a")
        assert 0.9 <= time.monotonic() - started < 10  # three attempts, each given up after 0.3 s
        client.close()
    assert server.connections == 3


def test_an_answer_larger_than_the_bound_is_refused_once_whatever_its_framing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(http_client, "MAX_BODY_BYTES", 100)
    big = b"x" * 101
    to_the_end = Answer((b"HTTP/1.1 200 OK\r\n\r\n", big), close=True)
    with scripted(plain("200 OK", big), chunked("200 OK", (big[:60], big[60:])), to_the_end) as server:
        client = HttpClient(server.url, timeout=5)
        for _ in range(3):
            with pytest.raises(AnswerTooLarge, match="larger than 100 bytes"):
                client.request("GET", "/a")
        client.close()
    assert len(server.requests) == 3  # refused, not sent again


def test_a_line_break_in_a_header_or_the_path_is_refused_before_sending() -> None:
    client = HttpClient("http://127.0.0.1:9", timeout=5)
    with pytest.raises(ValueError, match="header If-Match holds a line break"):
        client.request("GET", "/a", headers={"If-Match": '"1"\r\nX-Evil: 1'})
    with pytest.raises(ValueError, match="the path holds a space or a line break"):
        client.request("GET", "/a HTTP/1.1\r\nX-Evil: 1")


def event(version: int, *, lines: str = "\n") -> bytes:
    view = json.dumps({"version": version, "status": "playing"})
    return f"id: {version}{lines}event: view{lines}data: {view}{lines}{lines}".encode()


def test_the_stream_gives_each_view_above_after_across_chunks_and_reconnects_with_last_event_id() -> None:
    first = event(1)
    opening = b"retry: 2000\n: seat view of table t\n\n"
    stale = b"id: 2\nevent: view\ndata: not json: a view at or below `after` is never decoded\n\n"
    with scripted(
        chunked(
            "200 OK",
            (opening + first[:9], first[9:], b": heartbeat\n\n", stale, event(3, lines="\r\n")),
            "Content-Type: text/event-stream",
        ),
        chunked("200 OK", (event(4),), "Content-Type: text/event-stream", end=False),
    ) as server:
        connected: list[int] = []
        stream = SeatStream(server.url, "/v1/tables/t/view/stream", "tok", 5, lambda: connected.append(1))
        assert stream.next_view(0) == {"version": 1, "status": "playing"}
        assert stream.next_view(2)["version"] == 3
        assert stream.next_view(3)["version"] == 4  # the first stream ended: a second, after id 3
        stream.close()
    (one, first_request), (two, second_request) = server.requests
    assert (one, two, len(connected)) == (1, 2, 2)
    assert b"Accept: text/event-stream\r\nAuthorization: Bearer tok\r\n" in first_request
    assert b"Last-Event-ID" not in first_request and b"Last-Event-ID: 3\r\n" in second_request


def test_an_error_event_or_a_refused_stream_raises_stream_error() -> None:
    with scripted(chunked("200 OK", (b'event: error\ndata: {"code": "no_seat"}\n\n',), end=False)) as server:
        stream = SeatStream(server.url, "/s", "tok", 5)
        with pytest.raises(StreamError, match=re.escape('event: error {"code": "no_seat"}')):
            stream.next_view(0)
    with scripted(plain("403 FORBIDDEN", b'{"code": "no_seat"}')) as server:
        stream = SeatStream(server.url, "/s", "tok", 5)
        with pytest.raises(StreamError, match=re.escape('GET /s: 403 {"code": "no_seat"}')):
            stream.next_view(0)


def test_interrupt_ends_a_read_waiting_on_another_thread() -> None:
    """A seat that failed stops the others' streams at once (the sockets block, with a 30 s timeout)."""
    with scripted(chunked("200 OK", (), end=False)) as server:
        stream = SeatStream(server.url, "/s", "tok", 30)
        stopped = threading.Event()
        failure: list[BaseException] = []

        def follow() -> None:
            try:
                stream.next_view(0, stopped.is_set)
            except StreamError as error:
                failure.append(error)

        reader = threading.Thread(target=follow)
        reader.start()
        time.sleep(0.3)  # the reader is waiting for a message
        stopped.set()
        stream.interrupt()
        reader.join(timeout=5)
        assert not reader.is_alive()
        assert "stopped" in str(failure[0])
