"""What a long-poll (`wait_for_version`) reads, with two API processes on one database (two containers: each
its own folded states and pool): its answer is the view an immediate read gives at that version, never below
the version asked for once the table is there, current after another process's write when this process does
not keep that version, and it reads the store once per wake (none when this process keeps the version)."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask

from infra import redis_bus
from infra.config import Settings
from services.api import create_app
from services.api.pushes import table_waits
from services.bootstrap import Container, bootstrap
from tests.api.conftest import TEST_CONFIG, Api, bearer, bot_action
from tests.round_trips import Trace, round_trips, traced_pool

POOL_SIZE = 2


class Process:
    """Another API process on the same database and Redis: its app, its container, a trace of its pool."""

    def __init__(self, settings: Settings) -> None:
        self.container: Container = bootstrap(
            settings, pool_min_size=POOL_SIZE, pool_max_size=POOL_SIZE, start_embedded=False
        )
        self.waits = table_waits.of(self.container.redis)
        self.app: Flask = create_app(container=self.container, config={**TEST_CONFIG, "LONG_POLL_SECONDS": 30})
        self.trace: Trace = traced_pool(self.container.pool, POOL_SIZE)

    def get(self, path: str, token: str, **headers: str) -> tuple[int, dict[str, Any], int]:
        """(status, body, SQL round trips) of a GET."""
        start = self.trace.mark()
        response = self.app.test_client().get(path, headers={**bearer(token), **headers})
        return response.status_code, response.get_json(), round_trips(self.trace.since(start))

    def follows(self) -> int:
        """The waits on a table's stream this process has started (a long-poll that waits starts one)."""
        return self.waits.follows

    def await_waiter(self, table_id: str) -> None:
        deadline = time.monotonic() + 30
        while self.waits.waiters(table_id) == 0:
            assert time.monotonic() < deadline, "the long-poll did not wait on the table's stream"
            time.sleep(0.001)

    def close(self) -> None:
        self.trace.close()
        self.container.close()


@pytest.fixture
def other(api_settings: Settings, app: Flask) -> Iterator[Process]:
    process = Process(api_settings)
    yield process
    process.close()


class Table:
    """A two-seat table of `game` in play, driven through the first app; publishes as the relay would."""

    def __init__(self, api: Api, container: Container, game: str) -> None:
        self.api, self.container = api, container
        _, alice = api.register("alice")
        _, bob = api.register("bob")
        self.tokens = [alice, bob]
        self.id = api.open_table(alice, game)["id"]
        api.sit(alice, self.id, 0)
        api.sit(bob, self.id, 1)
        self.rng = random.Random(24)
        self.published = 0

    def version(self) -> int:
        return int(self.api.table(self.tokens[0], self.id)["version"])

    def act(self) -> tuple[int, str]:
        """One action of the seat to act (or `ready` between deals); (its version, the other seat's token)."""
        state = self.api.table(self.tokens[0], self.id)
        seat = state["to_act"] if state["status"] == "playing" else min({0, 1} - set(state.get("ready") or []))
        token = self.tokens[seat]
        action = bot_action(self.api.view(token, self.id), self.rng) if state["status"] == "playing" else None
        answer = self.api.act(token, self.id, action or {"type": "ready"})
        return int(answer["version"]), self.tokens[1 - seat]

    def publish(self) -> None:
        """What the relay does: publish the events not published yet to the table's stream."""
        events = self.container.store.read_stream(self.id, from_version=self.published + 1)
        redis_bus.publish(self.container.redis, events)
        self.published = events[-1].version if events else self.published


def view_path(table: Table, version: int) -> str:
    return f"/v1/tables/{table.id}/view?wait_for_version={version}"


def woken(other: Process, table: Table, token: str) -> tuple[int, dict[str, Any], int, int]:
    """A long-poll on `other` for the table's next version, started before the action that wakes it:
    (status, body, SQL round trips, the action's version)."""
    answered: dict[str, Any] = {}
    asked = table.version() + 1

    def wait() -> None:
        answered["reply"] = other.get(view_path(table, asked), token)

    thread = threading.Thread(target=wait)
    thread.start()
    try:
        other.await_waiter(table.id)
        version, _ = table.act()
        table.publish()
        thread.join(20)  # below the 30 s wait: only the publication can have answered it
        assert not thread.is_alive(), "the long-poll was not woken"
    finally:
        thread.join()
    status, body, trips = answered["reply"]
    return status, body, trips, version


@pytest.mark.parametrize("game", ["cholek-tiga", "cha-kau-tsz"])
def test_a_long_poll_answers_what_an_immediate_read_answers(
    game: str, api: Api, container: Container, other: Process
) -> None:
    table = Table(api, container, game)
    table.publish()
    for _ in range(12):
        version, waiter = table.act()
        table.publish()
        now = api.view(waiter, table.id)
        assert now["version"] == version
        # This process wrote the version (kept); the other reads the store (it keeps an older state or none).
        kept = api.client.get(view_path(table, version), headers=bearer(waiter))
        assert kept.status_code == 200 and kept.get_json() == now
        assert kept.headers["ETag"] == f'"{version}"'
        status, body, _ = other.get(view_path(table, version), waiter)
        assert (status, body) == (200, now)
        public = api.client.get(f"/v1/tables/{table.id}?wait_for_version={version}", headers=bearer(waiter))
        assert public.get_json() == api.table(waiter, table.id)
    for _ in range(6):
        to_act = table.api.table(table.tokens[0], table.id).get("to_act")
        if to_act is None:  # the random plays ended the deal: nobody waits for a turn
            break
        seat_to_wait = table.tokens[1 - to_act]
        status, body, _, version = woken(other, table, seat_to_wait)
        assert status == 200 and body["version"] == version
        assert body == api.view(seat_to_wait, table.id)


def test_a_long_poll_never_answers_below_the_version_asked_for(api: Api, container: Container, other: Process) -> None:
    table = Table(api, container, "cholek-tiga")
    version, waiter = table.act()
    table.publish()
    assert other.get(f"/v1/tables/{table.id}/view", waiter)[1]["version"] == version  # the other keeps it
    # Committed by the first process, not published yet: the other keeps an older state and the stream's
    # newest entry is older too; after its wait it reads the store.
    newer, waiter = table.act()
    status, body, _ = other.get(view_path(table, newer), waiter, Prefer="wait=1")
    assert status == 200 and body["version"] >= newer
    assert body == api.view(waiter, table.id)
    # Published: answered at once, from the store.
    table.publish()
    follows = other.follows()
    status, body, _ = other.get(view_path(table, newer), waiter)
    assert status == 200 and body["version"] >= newer and other.follows() == follows
    # Every version up to the table's, from either process.
    for asked in range(newer + 1):
        assert api.client.get(view_path(table, asked), headers=bearer(waiter)).get_json()["version"] >= asked
        assert other.get(view_path(table, asked), waiter)[1]["version"] >= asked


def test_a_read_after_another_processs_write_is_current(api: Api, container: Container, other: Process) -> None:
    table = Table(api, container, "cha-kau-tsz")
    first, waiter = table.act()
    assert other.get(f"/v1/tables/{table.id}/view", waiter)[1]["version"] == first  # the other keeps `first`
    for _ in range(3):
        table.act()
    now = api.view(waiter, table.id)
    assert now["version"] > first + 1
    assert other.get(f"/v1/tables/{table.id}/view", waiter)[1] == now
    kept = now["version"]
    table.act()
    table.act()
    now = api.view(waiter, table.id)
    # A version above the state the other keeps: read from the store, so the view now.
    assert other.get(view_path(table, kept + 1), waiter)[1] == now
    assert other.get(f"/v1/tables/{table.id}?wait_for_version={now['version']}", waiter)[1] == api.table(
        waiter, table.id
    )


def test_a_long_poll_for_a_version_this_process_keeps_answers_the_newest(
    api: Api, container: Container, other: Process
) -> None:
    table = Table(api, container, "cholek-tiga")
    kept, waiter = table.act()
    table.publish()
    assert other.get(f"/v1/tables/{table.id}/view", waiter)[1]["version"] == kept  # the other keeps `kept`
    newer, _ = table.act()  # committed by the first process; the other's state is now behind
    table.publish()
    status, body, trips = other.get(view_path(table, kept), waiter)
    assert status == 200 and body["version"] == newer, "the view as it is, not the older state kept"
    assert body == api.view(waiter, table.id)
    assert trips == 1


def test_a_woken_long_poll_reads_the_store_once(api: Api, container: Container, other: Process) -> None:
    table = Table(api, container, "cholek-tiga")
    table.publish()
    for token in table.tokens:  # the other process keeps the table and knows both tokens now
        status, body, trips = other.get(f"/v1/tables/{table.id}/view", token)
        assert status == 200 and body["version"] == table.version()
    for _ in range(4):
        waiter = table.tokens[1 - api.table(table.tokens[0], table.id)["to_act"]]
        status, body, trips, version = woken(other, table, waiter)
        assert status == 200 and body["version"] == version
        assert trips == 1, "one read of the store after the wake, none before it"
        status, again, trips = other.get(view_path(table, version), waiter)
        assert (status, again, trips) == (200, body, 1), "a version reached: one read, no wait"


def test_a_long_poll_without_a_seat_is_refused_at_once(api: Api, container: Container, other: Process) -> None:
    table = Table(api, container, "cholek-tiga")
    table.publish()
    _, stranger = api.register("stranger")
    version = table.version()
    for process_get in (
        lambda path: api.client.get(path, headers=bearer(stranger)).status_code,
        lambda path: other.get(path, stranger)[0],
    ):
        follows = other.follows()
        assert process_get(view_path(table, version + 1)) == 403
        assert process_get(view_path(table, version)) == 403
        assert other.follows() == follows
