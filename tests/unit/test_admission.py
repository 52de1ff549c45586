"""services.api.middleware.admission: requests and streams admitted apart, slots given back when the server closes."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import pytest

from services.api.middleware import admission as admission_module
from services.api.middleware.admission import Admission, Slots, StreamPool, StreamTicket

STREAM = "/v1/tables/5d0c4d4e-0000-4000-8000-000000000001/stream"


class Body:
    """A response body that records whether the server closed it."""

    def __init__(self, fail_on_close: bool = False) -> None:
        self.closed = 0
        self.fail_on_close = fail_on_close

    def __iter__(self) -> Iterator[bytes]:
        yield b"ok"

    def close(self) -> None:
        self.closed += 1
        if self.fail_on_close:
            raise RuntimeError("close failed")


class App:
    """A WSGI app that answers 200 with a fresh Body, or raises when told to."""

    def __init__(self) -> None:
        self.bodies: list[Body] = []
        self.fail = False
        self.fail_on_close = False

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if self.fail:
            raise RuntimeError("app failed")
        start_response("200 OK", [("Content-Type", "text/plain")])
        body = Body(self.fail_on_close)
        self.bodies.append(body)
        return body


def call(
    app: Admission, path: str, method: str = "GET", token: str | None = None, query: str = ""
) -> tuple[str, dict[str, str], Any]:
    """(status, headers, body iterable) of one request; the body is not closed."""
    seen: dict[str, Any] = {}

    def start_response(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> None:
        seen["status"], seen["headers"] = status, dict(headers)

    environ = {"PATH_INFO": path, "REQUEST_METHOD": method, "REMOTE_ADDR": "198.51.100.7", "QUERY_STRING": query}
    if token is not None:
        environ["HTTP_AUTHORIZATION"] = f"Bearer {token}"
    body = app(environ, start_response)
    return seen["status"], seen["headers"], body


def test_streams_past_the_limit_are_refused_with_a_problem_and_retry_after() -> None:
    admission = Admission(App(), requests=1, streams=2)
    first, second = call(admission, STREAM)[2], call(admission, STREAM)[2]
    status, headers, body = call(admission, STREAM)
    assert status.startswith("503")
    assert headers["Content-Type"] == "application/problem+json"
    assert headers["Retry-After"] == "5"
    problem = json.loads(b"".join(body))
    assert problem["code"] == "stream_busy" and problem["status"] == 503
    assert "2 streams at once" in problem["detail"]
    first.close()  # type: ignore[attr-defined]
    assert call(admission, STREAM)[0].startswith("200")
    second.close()  # type: ignore[attr-defined]


def test_streams_do_not_take_the_request_slots() -> None:
    admission = Admission(App(), requests=1, streams=2)
    streams = [call(admission, STREAM)[2] for _ in range(2)]
    status, _, body = call(admission, "/v1/tables")
    assert status.startswith("200")
    body.close()  # type: ignore[attr-defined]
    for stream in streams:
        stream.close()  # type: ignore[attr-defined]


def test_a_request_past_the_limit_waits_for_a_slot_to_be_given_back() -> None:
    admission = Admission(App(), requests=1, streams=0)
    held = call(admission, "/v1/players")[2]
    answered = threading.Event()

    def second() -> None:
        status, _, body = call(admission, "/v1/players")
        assert status.startswith("200")
        answered.set()
        body.close()  # type: ignore[attr-defined]

    thread = threading.Thread(target=second)
    thread.start()
    assert not answered.wait(0.3), "the second request must wait while the only slot is taken"
    held.close()  # type: ignore[attr-defined]
    assert answered.wait(5)
    thread.join(5)


def test_probes_answer_even_when_every_slot_is_taken() -> None:
    admission = Admission(App(), requests=1, streams=0)
    held = call(admission, "/v1/players")[2]
    for probe in ("/healthz", "/readyz"):
        status, _, body = call(admission, probe)
        assert status.startswith("200")
        body.close()  # type: ignore[attr-defined]
    held.close()  # type: ignore[attr-defined]


def test_with_no_stream_slots_every_stream_is_refused_and_other_methods_are_requests() -> None:
    admission = Admission(App(), requests=1, streams=0)
    assert call(admission, STREAM)[0].startswith("503")
    status, _, body = call(admission, STREAM, method="POST")  # not a stream: the app answers (405 in the real one)
    assert status.startswith("200")
    body.close()  # type: ignore[attr-defined]


def test_a_slot_is_given_back_once_even_when_closing_fails_or_repeats() -> None:
    app = App()
    admission = Admission(app, requests=1, streams=0)
    app.fail_on_close = True
    body = call(admission, "/v1/players")[2]
    with pytest.raises(RuntimeError, match="close failed"):
        body.close()  # type: ignore[attr-defined]
    body.close()  # type: ignore[attr-defined]  # a second close gives nothing back twice
    assert app.bodies[0].closed == 1
    app.fail_on_close = False
    again = call(admission, "/v1/players")[2]  # the slot came back once: this one does not wait
    again.close()  # type: ignore[attr-defined]
    assert admission._request_slots.acquire(blocking=False), "exactly one slot is free"


def test_an_app_that_raises_gives_its_slot_back() -> None:
    app = App()
    admission = Admission(app, requests=1, streams=0)
    app.fail = True
    with pytest.raises(RuntimeError, match="app failed"):
        call(admission, "/v1/players")
    app.fail = False
    call(admission, "/v1/players")[2].close()  # type: ignore[attr-defined]


@pytest.mark.parametrize(("requests", "streams"), [(0, 1), (1, -1)])
def test_limits_are_checked(requests: int, streams: int) -> None:
    with pytest.raises(ValueError):
        Admission(App(), requests=requests, streams=streams)


def test_a_request_that_waits_too_long_for_a_slot_gets_503_with_retry_after() -> None:
    admission = Admission(App(), requests=1, streams=0, wait_seconds=0.2)
    held = call(admission, "/v1/reports/settlement")[2]
    status, headers, body = call(admission, "/v1/tables")
    assert status.startswith("503") and headers["Retry-After"] == "1"
    problem = json.loads(b"".join(body))
    assert problem["code"] == "server_busy" and "0.2 s" in problem["detail"]
    assert call(admission, "/healthz")[0].startswith("200"), "the probes are never held back"
    held.close()  # type: ignore[attr-defined]
    again = call(admission, "/v1/tables")
    assert again[0].startswith("200"), "the slot came back"
    again[2].close()


def test_one_caller_cannot_take_every_stream_slot() -> None:
    admission = Admission(App(), requests=1, streams=8, streams_per_caller=2)
    mine = [call(admission, STREAM, token="alice")[2] for _ in range(2)]
    status, headers, body = call(admission, STREAM, token="alice")
    assert status.startswith("429") and headers["Retry-After"] == "5"
    assert json.loads(b"".join(body))["code"] == "too_many_streams"
    others = [call(admission, STREAM, token=name) for name in ("bob", "carol")]
    anonymous = call(admission, STREAM)
    assert all(status.startswith("200") for status, _, _ in [*others, anonymous])
    mine[0].close()  # type: ignore[attr-defined]
    assert call(admission, STREAM, token="alice")[0].startswith("200"), "a closed stream frees the caller's place"
    assert admission._streams_of.held["token:" + __import__("hashlib").sha256(b"Bearer alice").hexdigest()] == 2
    for _, _, body in [*others, anonymous]:
        body.close()
    assert len(admission._streams_of.held) == 1  # callers with no stream left are forgotten


def test_one_token_cannot_hold_more_than_its_share_of_the_request_slots() -> None:
    admission = Admission(App(), requests=5, streams=0, requests_per_caller=2)
    held = [call(admission, "/v1/reports/settlement", token="abuser")[2] for _ in range(2)]
    status, headers, body = call(admission, "/v1/reports/settlement", token="abuser")
    assert status.startswith("429") and headers["Retry-After"] == "1"
    assert json.loads(b"".join(body))["code"] == "too_many_requests_at_once"
    honest = call(admission, "/v1/tables", token="player")
    anonymous = [call(admission, "/v1/players", "POST") for _ in range(2)]  # no token: the slots alone bound them
    assert honest[0].startswith("200") and all(status.startswith("200") for status, _, _ in anonymous)
    for _, _, answered in [honest, *anonymous]:
        answered.close()
    held[0].close()  # type: ignore[attr-defined]
    again = call(admission, "/v1/reports/settlement", token="abuser")
    assert again[0].startswith("200"), "an answered request frees the caller's place"
    for body in (held[1], again[2]):
        body.close()
    assert admission._requests_of.held == {}


def test_a_refused_slot_gives_the_callers_place_back() -> None:
    admission = Admission(App(), requests=1, streams=0, wait_seconds=0.1, requests_per_caller=1)
    held = call(admission, "/v1/tables", token="a")[2]
    assert call(admission, "/v1/tables", token="b")[0].startswith("503")
    held.close()  # type: ignore[attr-defined]
    assert admission._requests_of.held == {}
    answered = call(admission, "/v1/tables", token="b")
    assert answered[0].startswith("200")
    answered[2].close()


class LimitedApp(App):
    """Answers its first request 429 with Retry-After 1, then 200."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        self.calls += 1
        if self.calls == 1:
            start_response("429 Too Many Requests", [("Retry-After", "1")])
            return [b"{}"]
        return super().__call__(environ, start_response)


def test_a_token_that_does_not_wait_its_retry_after_is_held_until_it_has_passed() -> None:
    import time

    app = LimitedApp()
    admission = Admission(app, requests=2, streams=0, held_per_caller=1)
    assert call(admission, "/v1/reports/settlement", token="eager")[0].startswith("429")
    done: list[float] = []

    def again() -> None:
        started = time.monotonic()
        status, _, body = call(admission, "/v1/reports/settlement", token="eager")
        done.append(time.monotonic() - started)
        assert status.startswith("200")
        body.close()

    thread = threading.Thread(target=again)
    thread.start()
    time.sleep(0.2)
    status, _, body = call(admission, "/v1/reports/settlement", token="eager")  # one is held already
    assert status.startswith("429") and json.loads(b"".join(body))["code"] == "retry_after_not_waited"
    other = call(admission, "/v1/tables", token="patient")
    assert other[0].startswith("200"), "another token is not held"
    other[2].close()
    thread.join()
    assert done and 0.6 < done[0] < 5.0, "held until the Retry-After had passed (at most wait_seconds), then served"


@pytest.mark.parametrize(("wait", "per_caller"), [(0, 4), (-1, 4), (1, 0)])
def test_a_wait_or_a_per_caller_limit_out_of_range_is_refused(wait: float, per_caller: int) -> None:
    with pytest.raises(ValueError):
        Admission(App(), requests=1, streams=1, wait_seconds=wait, streams_per_caller=per_caller)
    with pytest.raises(ValueError):
        Admission(App(), requests=1, streams=1, wait_seconds=wait, requests_per_caller=per_caller)


def test_long_polls_are_admitted_as_streams_of_their_caller() -> None:
    table = STREAM.removesuffix("/stream")
    admission = Admission(App(), requests=1, streams=8, streams_per_caller=2)
    plain = call(admission, f"{table}/view", token="alice")  # an ordinary read: the one request slot
    waits = [call(admission, path, token="alice", query="wait_for_version=9")[2] for path in (table, f"{table}/view")]
    status, headers, body = call(admission, f"{table}/view", token="alice", query="min_version=1&wait_for_version=9")
    assert status.startswith("429") and headers["Retry-After"] == "5"
    assert json.loads(b"".join(body))["code"] == "too_many_streams", "the same refusal as a stream's"
    assert call(admission, STREAM, token="alice")[0].startswith("429"), "long-polls and streams share the limit"
    assert call(admission, f"{table}/events", token="bob", query="wait_for_version=9")[0].startswith("503"), (
        "only the table and its view long-poll: another read is an ordinary request (the slot is taken)"
    )
    plain[2].close()
    waits[0].close()
    assert call(admission, table, token="alice", query="wait_for_version=9")[0].startswith("200")


def test_long_polls_are_refused_when_no_stream_slot_is_free() -> None:
    admission = Admission(App(), requests=1, streams=0)
    status, _, body = call(admission, STREAM.removesuffix("/stream"), query="wait_for_version=1")
    assert status.startswith("503") and json.loads(b"".join(body))["code"] == "stream_busy"


def test_the_penalties_kept_are_bounded_however_many_tokens_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every refused token is remembered until its Retry-After has passed; more tokens refused at once than
    MAX_PENALTIES forget the oldest penalties instead of growing the map."""
    monkeypatch.setattr(admission_module, "MAX_PENALTIES", 5)
    admission = Admission(App(), requests=1, streams=0)
    for n in range(50):
        admission._refused(f"token-{n}", 60.0)
    assert len(admission._refused_until) == 5
    assert "token-49" in admission._refused_until and "token-0" not in admission._refused_until


def test_a_seat_view_stream_is_admitted_as_a_stream_within_its_callers_stream_slots() -> None:
    """GET .../view/stream holds its thread like the public stream: a stream slot and one of the caller's."""
    seat_stream = STREAM.replace("/stream", "/view/stream")
    assert call(Admission(App(), requests=1, streams=0), seat_stream)[0].startswith("503")
    admission = Admission(App(), requests=1, streams=3, streams_per_caller=1)
    status, _, held = call(admission, seat_stream, token="alice")
    assert status.startswith("200")
    status, _, refused = call(admission, seat_stream, token="alice")
    assert status.startswith("429")
    assert json.loads(b"".join(refused))["code"] == "too_many_streams"
    status, _, other = call(admission, seat_stream, token="bob")  # another caller's slot, not a request slot
    assert status.startswith("200")
    request_status, _, request = call(admission, "/v1/players")  # the one request slot is free
    assert request_status.startswith("200")
    for body in (held, other, request):
        body.close()


def test_slots_count_as_a_bounded_semaphore() -> None:
    slots = Slots(2)
    assert slots.acquire(blocking=False) and slots.acquire(timeout=0.01)
    assert not slots.acquire(blocking=False)
    assert not slots.acquire(timeout=0.05), "none is free: the wait ends with its timeout"
    slots.release()
    assert slots.acquire(blocking=False)
    slots.release()
    slots.release()
    with pytest.raises(ValueError, match="given back twice"):
        slots.release()


def test_a_slot_given_back_wakes_one_waiter_and_never_more_are_held_than_there_are() -> None:
    slots = Slots(3)
    held, most, lock = [0], [0], threading.Lock()
    taken = []

    def work() -> None:
        for _ in range(200):
            if not slots.acquire(timeout=10):
                taken.append(False)
                return
            with lock:
                held[0] += 1
                most[0] = max(most[0], held[0])
            with lock:
                held[0] -= 1
            slots.release()
        taken.append(True)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert taken == [True] * 8 and most[0] <= 3
    assert [slots.acquire(blocking=False) for _ in range(4)] == [True, True, True, False], "all given back"


def test_the_slots_kept_for_players_are_never_a_bystanders_and_one_address_holds_its_share() -> None:
    pool = StreamPool(total=4, reserved=2, per_address=3)
    tickets = [StreamTicket(pool, address) for address in ("198.51.100.7", "198.51.100.7", "203.0.113.9")]
    assert all(pool.enter() for _ in tickets)
    assert [ticket.as_bystander() for ticket in tickets] == [None, None, "stream_busy"]  # 4 - 2 kept for players
    tickets[2].release()
    assert pool.enter()  # a player's stream: the third slot
    assert pool.enter()  # and the fourth
    assert not pool.enter()  # full
    tickets[0].release()
    one_address = StreamPool(total=8, reserved=0, per_address=2)
    held = [StreamTicket(one_address, "198.51.100.7") for _ in range(3)]
    assert [one_address.enter() and t.as_bystander() for t in held] == [None, None, "too_many_streams"]
    assert StreamTicket(one_address, "203.0.113.9").as_bystander() is None  # another address is not capped by it
