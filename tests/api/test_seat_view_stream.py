"""GET /v1/tables/{id}/view/stream: every message is the caller's seat view as GET /view answers it at that
version (another seat's cards never appear), one message per move of the version (coalesced), resumable by
Last-Event-ID, with /view's problems before the first message, a lifetime, and `event: error` when Redis or
the seat is lost. The events are published as the relay would (`Table.publish`)."""

from __future__ import annotations

import dataclasses
import json
import random
import threading
import time
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient
from redis.connection import AbstractConnection

from infra.config import Settings
from services.api import create_app
from services.bootstrap import Container
from tests.api.conftest import AUDITOR_TOKEN, TEST_CONFIG, Api, Scene, bearer, play_deal
from tests.api.test_endpoints import assert_problem
from tests.api.test_long_poll_reads import Process, Table
from tests.redis_commands import client_with, command_names
from tests.round_trips import prepares, round_trips, statements

LIVE_CONFIG = {**TEST_CONFIG, "SSE_MAX_SECONDS": 30.0, "SSE_HEARTBEAT_SECONDS": 0.2}


def stream_path(table_id: str) -> str:
    return f"/v1/tables/{table_id}/view/stream"


class Messages:
    """The Server-Sent Events of one open stream, read one at a time (heartbeats and comments skipped)."""

    def __init__(self, client: FlaskClient, table_id: str, token: str, **headers: str) -> None:
        self.response = client.get(stream_path(table_id), headers={**bearer(token), **headers})
        assert self.response.status_code == 200, self.response.get_data(as_text=True)
        assert self.response.mimetype == "text/event-stream"
        self.chunks: Iterator[bytes] = iter(self.response.response)
        self.buffer = ""

    def next(self, skip_heartbeats: int = 100) -> dict[str, str] | None:
        """The next message with an `event` (None when the stream ended, or after `skip_heartbeats` comments)."""
        comments = 0
        while comments <= skip_heartbeats:
            if "\n\n" not in self.buffer:
                chunk = next(self.chunks, None)
                if chunk is None:
                    return None
                self.buffer += chunk.decode() if isinstance(chunk, bytes) else chunk
                continue
            block, self.buffer = self.buffer.split("\n\n", 1)
            fields: dict[str, str] = {}
            for line in block.splitlines():
                name, _, value = line.partition(": ")
                if name:
                    fields[name] = value
            if "event" in fields:
                return fields
            comments += 1
        return None

    def view(self) -> tuple[int, dict[str, Any]]:
        message = self.next()
        assert message is not None and message["event"] == "view", message
        return int(message["id"]), json.loads(message["data"])

    def close(self) -> None:
        self.response.close()


@pytest.fixture
def live(container: Container, clean: str) -> Flask:
    return create_app(container=container, config=LIVE_CONFIG)


@pytest.mark.parametrize("served_by", ["the writer", "another process"])
@pytest.mark.parametrize("game", ["cholek-tiga", "cha-kau-tsz"])
def test_every_message_is_the_seat_view_at_its_version_and_never_another_seats_cards(
    live: Flask, container: Container, api_settings: Settings, game: str, served_by: str
) -> None:
    """Served by the process that wrote (which keeps the state of each version: the view of it, no read) and
    by another (which reads the store for each message)."""
    api = Api(live.test_client())
    table = Table(api, container, game)
    table.publish()
    other = Process(api_settings) if served_by == "another process" else None
    streamer = live if other is None else create_app(container=other.container, config=LIVE_CONFIG)
    streams = [Messages(streamer.test_client(), table.id, token) for token in table.tokens]
    try:
        for seat, stream in enumerate(streams):
            version, view = stream.view()
            assert view == api.view(table.tokens[seat], table.id) and version == view["version"]
        for _ in range(40):
            table.act()
            table.publish()
            views = [api.view(token, table.id) for token in table.tokens]
            for seat, stream in enumerate(streams):
                version, pushed = stream.view()
                assert pushed == views[seat], f"seat {seat}: the pushed view is not GET /view's"
                assert version == pushed["version"] == views[seat]["version"]
                assert pushed["seat"] == seat
                if "hand_sizes" in pushed:  # its own hand only: the others' are counts
                    assert len(pushed["hand"]) == pushed["hand_sizes"][seat]
    finally:
        for stream in streams:
            stream.close()
        if other is not None:
            other.close()


def test_several_events_published_together_give_one_message_at_the_newest_version(
    live: Flask, container: Container
) -> None:
    api = Api(live.test_client())
    table = Table(api, container, "cholek-tiga")
    table.publish()
    stream = Messages(live.test_client(), table.id, table.tokens[0])
    try:
        first, _ = stream.view()
        for _ in range(3):
            table.act()
        table.publish()
        version, view = stream.view()
        assert version == table.version() > first + 2
        assert view == api.view(table.tokens[0], table.id)
        assert stream.next(skip_heartbeats=3) is None, "one message for the three actions"
        table.publish()  # nothing new: the entries already sent wake nobody
        assert stream.next(skip_heartbeats=3) is None
    finally:
        stream.close()


def test_last_event_id_resumes_after_a_version(live: Flask, container: Container, client: FlaskClient) -> None:
    api = Api(live.test_client())
    table = Table(api, container, "cholek-tiga")
    table.publish()
    now = table.version()
    resumed = Messages(live.test_client(), table.id, table.tokens[1], **{"Last-Event-ID": str(now - 1)})
    caught_up = Messages(live.test_client(), table.id, table.tokens[1], **{"Last-Event-ID": str(now)})
    try:
        assert resumed.view()[0] == now
        assert caught_up.next(skip_heartbeats=3) is None, "the client holds this version: nothing to send"
        table.act()
        table.publish()
        assert caught_up.view()[1] == api.view(table.tokens[1], table.id)
    finally:
        resumed.close()
        caught_up.close()
    now = table.version()
    past = client.get(f"{stream_path(table.id)}?after={now}", headers=bearer(table.tokens[0]))
    assert "event: view" not in past.get_data(as_text=True)  # TEST_CONFIG's 1 s lifetime ends it
    behind = client.get(f"{stream_path(table.id)}?after={now - 1}", headers=bearer(table.tokens[0]))
    assert f"id: {now}\nevent: view" in behind.get_data(as_text=True)


@pytest.mark.parametrize("last_event_id", ["x", "1-0", "-1", "99999999999", ""])
def test_a_malformed_last_event_id_is_a_400(api: Api, scene: Scene, last_event_id: str) -> None:
    response = api.client.get(stream_path(scene.table), headers={**bearer(scene.alice), "Last-Event-ID": last_event_id})
    assert_problem(response, 400)


def test_a_caller_without_the_view_gets_what_view_gives(api: Api, scene: Scene) -> None:
    unknown = "5d0c4d4e-0000-4000-8000-000000000001"
    for token, table_id in [
        (scene.eve, scene.table),  # no seat at the table
        (scene.carol, scene.table),  # seated at another table
        (AUDITOR_TOKEN, scene.table),  # the auditor has no seat
        (scene.alice, unknown),
    ]:
        viewed = api.client.get(f"/v1/tables/{table_id}/view", headers=bearer(token))
        streamed = api.client.get(stream_path(table_id), headers=bearer(token))
        assert viewed.status_code in (403, 404)
        assert (streamed.status_code, streamed.get_json()["code"]) == (viewed.status_code, viewed.get_json()["code"])
    assert api.client.get(stream_path(scene.table)).status_code == 401
    assert api.client.get("/v1/tables/not-a-uuid/view/stream", headers=bearer(scene.alice)).status_code == 404


def test_a_stream_beats_and_ends_at_its_lifetime(api: Api, scene: Scene) -> None:
    text = api.client.get(stream_path(scene.table), headers=bearer(scene.alice)).get_data(as_text=True)
    assert text.startswith("retry: 2000\n")
    assert text.count("event: view") == 1
    assert text.count(": heartbeat") >= 2
    assert text.rstrip().endswith("connection lifetime reached; reconnect with Last-Event-ID")


class LosingConnection(AbstractConnection):
    """A connection whose blocking stream reads fail, as when Redis is lost while a stream waits."""

    def send_packed_command(self, command: Any, check_health: bool = True) -> None:
        if "XREAD" in command_names(command):
            raise redis.ConnectionError("Redis went away")
        super().send_packed_command(command, check_health)


def test_a_stream_that_loses_redis_ends_with_an_error_event(scene: Scene, container: Container) -> None:
    losing = client_with(container.redis_url, LosingConnection, redis.Redis)
    try:
        app = create_app(container=dataclasses.replace(container, redis=losing), config=TEST_CONFIG)
        text = app.test_client().get(stream_path(scene.table), headers=bearer(scene.alice)).get_data(as_text=True)
    finally:
        losing.close()
    assert text.count("event: view") == 1
    assert text.rstrip().endswith('event: error\ndata: {"code":"stream_unavailable"}')


def test_a_stream_without_redis_is_refused_with_503(scene: Scene, container: Container) -> None:
    gone = redis.Redis(host="127.0.0.1", port=1, socket_connect_timeout=1)  # nothing listens on port 1
    app = create_app(container=dataclasses.replace(container, redis=gone), config=TEST_CONFIG)
    response = app.test_client().get(stream_path(scene.table), headers=bearer(scene.alice))
    assert_problem(response, 503)
    assert response.get_json()["code"] == "stream_unavailable"


def test_a_seat_that_leaves_receives_no_seat_and_the_stream_ends(live: Flask, container: Container) -> None:
    """After `leave` the caller has no seat: what /view answers (403 no_seat) ends the stream as an error
    event, and the view of the table without the caller (public now, but no longer a seat view) is not sent."""
    api = Api(live.test_client())
    table = Table(api, container, "cholek-tiga")
    play_deal(api, table.id, table.tokens, random.Random(7))
    table.publish()
    stream = Messages(live.test_client(), table.id, table.tokens[0])
    try:
        version, view = stream.view()
        assert view["status"] == "between_deals" and version == table.version()
        api.act(table.tokens[0], table.id, {"type": "leave"})
        table.publish()
        assert stream.next() == {"event": "error", "data": '{"code":"no_seat"}'}
        assert stream.next() is None, "the stream ends after the error"
    finally:
        stream.close()
    refused = api.client.get(stream_path(table.id), headers=bearer(table.tokens[0]))
    assert refused.status_code == 403 and refused.get_json()["code"] == "no_seat"


def _stream_other_process(
    live: Flask, container: Container, api_settings: Settings, game: str
) -> tuple[Api, Table, Process, Any]:
    api = Api(live.test_client())
    table = Table(api, container, game)
    table.publish()
    other = Process(api_settings)
    return api, table, other, other.container.ledger.queries.states


def _slowed(current: Any, failures: list[Exception] | None = None) -> Any:
    """`current`, each call slowed so that reads at once would overlap, and raising `failures` first."""

    def slow_current(*args: Any, **kwargs: Any) -> Any:
        time.sleep(0.05)
        if failures:
            raise failures.pop()
        return current(*args, **kwargs)

    return slow_current


def _pull_all(streams: list[Messages]) -> dict[int, dict[str, str] | None]:
    """The next message of every stream, each read on a thread of its own (as a server's stream threads are)."""
    got: dict[int, dict[str, str] | None] = {}

    def pull(index: int) -> None:
        got[index] = streams[index].next()

    readers = [threading.Thread(target=pull, args=(index,)) for index in range(len(streams))]
    for reader in readers:
        reader.start()
    for reader in readers:
        reader.join(20)
    assert not any(reader.is_alive() for reader in readers), "a stream was left waiting"
    return got


STREAMS_PER_SEAT = 3


@pytest.mark.parametrize("streams_per_seat", [1, STREAMS_PER_SEAT])
@pytest.mark.parametrize("game", ["cholek-tiga", "cha-kau-tsz"])
def test_the_streams_of_a_table_on_another_process_share_one_read_per_version(
    live: Flask,
    container: Container,
    api_settings: Settings,
    game: str,
    streams_per_seat: int,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Both seats' streams (one or three each) on a process that did not write and keeps no state of the
    versions the first wrote, woken by the same entries: one of them reads the store per version, the others
    use the state it folded, and each pushes its own seat's view as GET /view answers it at that version. Each
    read is slowed, so that reads at once would overlap."""
    api, table, other, states = _stream_other_process(live, container, api_settings, game)
    monkeypatch.setattr(states, "current", _slowed(states.current))
    streamer = create_app(container=other.container, config=LIVE_CONFIG)
    seats = [seat for seat in (0, 1) for _ in range(streams_per_seat)]
    streams = [Messages(streamer.test_client(), table.id, table.tokens[seat]) for seat in seats]
    try:
        for stream in streams:
            stream.view()
        start = other.trace.mark()
        actions = 4
        for _ in range(actions):
            version, _ = table.act()
            table.publish()
            got = _pull_all(streams)
            views = [api.view(token, table.id) for token in table.tokens]
            for index, seat in enumerate(seats):
                message = got[index]
                assert message is not None and message["event"] == "view", message
                assert (int(message["id"]), json.loads(message["data"])) == (version, views[seat])
        lines = other.trace.since(start)
        assert round_trips(lines) - prepares(lines) == actions, statements(lines)  # one read of the store per version
    finally:
        for stream in streams:
            stream.close()
        other.close()


def test_a_failed_shared_read_ends_its_stream_and_the_others_read_for_themselves(
    live: Flask, container: Container, api_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The stream that reads the store for the table's other streams fails: it ends with `view_unavailable`
    (as a failed read of a stream does), and the streams that waited for it are neither left waiting nor
    given an older view: the next of them reads, and each pushes its seat's view at the new version."""
    api, table, other, states = _stream_other_process(live, container, api_settings, "cholek-tiga")
    slow_current = _slowed(states.current, [psycopg.OperationalError("the connection to the server was lost")])
    streamer = create_app(container=other.container, config=LIVE_CONFIG)
    seats = [seat for seat in (0, 1) for _ in range(STREAMS_PER_SEAT)]
    streams = [Messages(streamer.test_client(), table.id, table.tokens[seat]) for seat in seats]
    try:
        for stream in streams:
            stream.view()
        monkeypatch.setattr(states, "current", slow_current)
        start = other.trace.mark()
        version, _ = table.act()
        table.publish()
        got = _pull_all(streams)
        failed = [index for index, message in got.items() if message is not None and message["event"] == "error"]
        assert len(failed) == 1 and json.loads(got[failed[0]]["data"]) == {"code": "view_unavailable"}, got
        assert streams[failed[0]].next() is None  # the stream ended
        views = [api.view(token, table.id) for token in table.tokens]
        for index, seat in enumerate(seats):
            if index != failed[0]:
                message = got[index]
                assert message is not None and message["event"] == "view", message
                assert (int(message["id"]), json.loads(message["data"])) == (version, views[seat])
        lines = other.trace.since(start)
        assert round_trips(lines) - prepares(lines) == 1, statements(lines)  # the failed read sent nothing
        alive = [stream for index, stream in enumerate(streams) if index != failed[0]]
        version, _ = table.act()
        table.publish()
        views = [api.view(token, table.id) for token in table.tokens]
        got = _pull_all(alive)
        for index, seat in enumerate(seat for position, seat in enumerate(seats) if position != failed[0]):
            message = got[index]
            assert message is not None and message["event"] == "view", message
            assert (int(message["id"]), json.loads(message["data"])) == (version, views[seat])
    finally:
        for stream in streams:
            stream.close()
        other.close()
