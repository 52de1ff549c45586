"""The process's one reader of the tables' streams (`services.api.pushes.table_waits`): one XREAD wakes every waiter
of a table, a table that joins a read already blocking is read at once, a waiter never misses an entry noted
by another, a lost Redis fails every waiter (and is logged), a client closed on shutdown ends the reader
quietly, and the tables followed are bounded."""

from __future__ import annotations

import json
import logging
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from redis.connection import AbstractConnection

from infra import redis_bus
from infra.config import Settings
from services.api.pushes import table_waits
from services.api.pushes.table_waits import TableWaitFailed, TableWaits
from services.bootstrap import bootstrap
from tests.redis_commands import client_with, command_names


class CountingConnection(AbstractConnection):
    """A connection that counts the stream commands sent on it (the reader sends its XREAD on a connection)."""

    sent: Counter[str] = Counter()

    def send_packed_command(self, command: Any, check_health: bool = True) -> None:
        for name in command_names(command):
            if name in ("XREAD", "XREVRANGE"):
                self.sent[name] += 1
        super().send_packed_command(command, check_health)


class CountingRedis(redis.Redis):
    """A Redis client that counts the stream commands sent through it."""

    sent: Counter[str]


class LosingConnection(AbstractConnection):
    def send_packed_command(self, command: Any, check_health: bool = True) -> None:
        if "XREAD" in command_names(command):
            raise redis.ConnectionError("Redis went away")
        super().send_packed_command(command, check_health)


@pytest.fixture
def client(redis_url: str, redis_client: redis.Redis) -> Iterator[CountingRedis]:
    # no socket timeout: the reader blocks READ_BLOCK_SECONDS
    counting = client_with(redis_url, CountingConnection, CountingRedis)
    counting.sent = CountingConnection.sent = Counter()
    yield counting
    redis_bus.close(counting)  # the readers of the waits made on it stop first


def publish(client: redis.Redis, table_id: str, version: int) -> str:
    """An entry as the relay publishes one (the reader reads only its version)."""
    entry = client.xadd(redis_bus.table_stream(table_id), {"event": json.dumps({"version": version})})
    return entry.decode() if isinstance(entry, bytes) else str(entry)


def test_one_read_wakes_every_waiter_of_a_table(client: CountingRedis) -> None:
    waits, table, other = TableWaits(client), str(uuid.uuid4()), str(uuid.uuid4())
    followers = [waits.follow(table, None) for _ in range(3)]
    bystander = waits.follow(other, None)
    try:
        assert waits.waiters(table) == 3
        _wait_until_reading(waits, {table, other})
        time.sleep(0.2)  # the read for both tables is sent by then (it is packed before it is sent)
        reads = client.sent["XREAD"]
        publish(client, table, 7)
        assert [following.next(5) for following in followers] == [7, 7, 7]
        assert bystander.next(0.2) is None
        assert client.sent["XREAD"] - reads <= 2, "one read woke the three (and the next read started)"
        publish(client, table, 8)
        publish(client, table, 9)
        assert followers[0].next(5) in (8, 9)
    finally:
        for following in [*followers, bystander]:
            following.close()
    assert waits.waiters(table) == 0


def test_a_table_that_joins_a_blocking_read_is_read_at_once(client: CountingRedis) -> None:
    """The reader blocks READ_BLOCK_SECONDS on the first table; the second is read without waiting for that."""
    waits, first, second = TableWaits(client), str(uuid.uuid4()), str(uuid.uuid4())
    holding = waits.follow(first, None)
    _wait_until_reading(waits, {first})
    joining = waits.follow(second, None)
    try:
        publish(client, second, 3)
        started = time.monotonic()
        assert joining.next(table_waits.READ_BLOCK_SECONDS - 1) == 3
        assert time.monotonic() - started < table_waits.READ_BLOCK_SECONDS - 1
    finally:
        holding.close()
        joining.close()


def test_a_waiter_is_woken_by_an_entry_another_waiter_noted(client: CountingRedis) -> None:
    """A waiter that follows from a newer head than the reader has read makes that entry the newest known:
    the waiters already there learn of it (the reader, reading it later, finds nothing newer to tell)."""
    waits, table = TableWaits(client), str(uuid.uuid4())
    early = waits.follow(table, None)
    _wait_until_reading(waits, {table})
    late = waits.follow(table, ("99999999999999-0", 12))  # as if read from the stream before the reader
    try:
        assert early.next(1) == 12
        assert late.next(0.2) is None
    finally:
        early.close()
        late.close()


def test_the_head_of_a_followed_table_needs_no_command(client: CountingRedis) -> None:
    waits, table = TableWaits(client), str(uuid.uuid4())
    entry = publish(client, table, 4)
    assert waits.head(table) == (entry, 4)
    assert client.sent["XREVRANGE"] == 1
    following = waits.follow(table, (entry, 4))
    try:
        assert waits.head(table) == (entry, 4)
        assert client.sent["XREVRANGE"] == 1
    finally:
        following.close()


def test_a_reader_that_loses_redis_fails_every_waiter(redis_url: str, caplog: pytest.LogCaptureFixture) -> None:
    losing = client_with(redis_url, LosingConnection, redis.Redis)
    try:
        waits = TableWaits(losing)
        with caplog.at_level(logging.WARNING, logger="cardledger.api"):
            followers = [waits.follow(str(uuid.uuid4()), None) for _ in range(2)]
            for following in followers:
                with pytest.raises(TableWaitFailed):
                    following.next(5)
                following.close()
        assert waits.tables == {}
        assert _lost_redis(caplog) == [
            "the reader of the tables' streams lost Redis: Redis unreachable: ConnectionError: Redis went away"
        ]
    finally:
        redis_bus.close(losing)


def _lost_redis(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if "lost Redis" in r.getMessage()]


def test_a_client_closed_on_shutdown_ends_the_reader_quietly(
    client: CountingRedis, caplog: pytest.LogCaptureFixture
) -> None:
    """Closing the client (`redis_bus.close`, as the container's close does) while the reader blocks in its XREAD
    ends the reader and fails the waiters, logging no lost Redis; the closed waits follow nothing more."""
    waits, table = table_waits.of(client), str(uuid.uuid4())
    following = waits.follow(table, None)
    _wait_until_reading(waits, {table})
    reader = waits.reader
    assert reader is not None
    with caplog.at_level(logging.DEBUG):
        redis_bus.close(client)
        assert not reader.is_alive()
        with pytest.raises(TableWaitFailed):
            following.next(5)
        with pytest.raises(TableWaitFailed, match="closed"):
            waits.follow(table, None)
    following.close()
    assert waits.tables == {} and waits.reader is None
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []
    assert table_waits.of(client) is not waits  # a client used again gets waits of its own


def test_closing_the_container_ends_its_reader_quietly(
    api_settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    """The API's container (`bootstrap`) stops the reader of its Redis client before closing the client."""
    container = bootstrap(api_settings, start_embedded=False)
    try:
        waits, table = table_waits.of(container.redis), str(uuid.uuid4())
        following = waits.follow(table, None)
        _wait_until_reading(waits, {table})
        reader = waits.reader
        assert reader is not None
    finally:
        with caplog.at_level(logging.DEBUG):
            container.close()
    assert not reader.is_alive()
    with pytest.raises(TableWaitFailed):
        following.next(5)
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []


def test_closing_the_waits_while_redis_is_unreachable_logs_nothing(
    redis_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """The reader cannot be woken through Redis: it ends when its connection closes with the client."""
    client = redis.Redis.from_url(redis_url)
    waits, table = TableWaits(client), str(uuid.uuid4())
    following = waits.follow(table, None)
    _wait_until_reading(waits, {table})
    reader = waits.reader
    assert reader is not None
    with caplog.at_level(logging.DEBUG):
        # the wake-up's new connection is refused (TCP, or the embedded server's unix socket)
        unreachable = (
            {"path": "/nonexistent/redis.sock"} if "path" in client.connection_pool.connection_kwargs else {"port": 1}
        )
        client.connection_pool.connection_kwargs.update(unreachable)
        client.connection_pool.disconnect(inuse_connections=False)
        waits.close(timeout=0.1)
        client.close()  # its in-use connection, the reader's, closed under it
        reader.join(5)
        assert not reader.is_alive()
        with pytest.raises(TableWaitFailed):
            following.next(5)
    following.close()
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []


def test_the_tables_followed_are_bounded(client: CountingRedis, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(table_waits, "MAX_TABLES", 3)
    waits = TableWaits(client)
    tables = [str(uuid.uuid4()) for _ in range(5)]
    left = waits.follow(tables[0], None)
    left.close()  # lingers, followed still
    awaited = [waits.follow(table, None) for table in tables[1:3]]
    try:
        extra = waits.follow(tables[3], None)  # the idle table makes room
        assert set(waits.tables) == set(tables[1:4])
        with pytest.raises(TableWaitFailed):
            waits.follow(tables[4], None)  # every table followed is awaited
        extra.close()
    finally:
        for following in awaited:
            following.close()


def test_one_waits_per_client_and_process(client: CountingRedis, redis_url: str) -> None:
    other = redis.Redis.from_url(redis_url)
    try:
        assert table_waits.of(client) is table_waits.of(client)
        assert table_waits.of(client) is not table_waits.of(other)
    finally:
        other.close()


def test_a_single_read_lets_one_waiter_of_a_table_in_at_a_time(client: CountingRedis) -> None:
    waits, table = TableWaits(client), str(uuid.uuid4())
    first, second = waits.follow(table, None), waits.follow(table, None)
    inside: list[str] = []
    try:
        with first.single_read():
            thread = threading.Thread(target=lambda: _enter(second, inside))
            thread.start()
            thread.join(0.2)
            assert inside == [], "the second read waits for the first"
        thread.join(5)
        assert inside == ["second"]
    finally:
        first.close()
        second.close()


def _enter(following: table_waits.Following, inside: list[str]) -> None:
    with following.single_read():
        inside.append("second")


def _wait_until_reading(waits: TableWaits, tables: set[str]) -> None:
    """Until the reader blocks on every table of `tables`."""
    keys = {redis_bus.table_stream(table) for table in tables}
    deadline = time.monotonic() + 5
    while not keys <= waits.blocking_on:
        assert time.monotonic() < deadline, "the reader did not read the tables' streams"
        time.sleep(0.01)


@pytest.mark.parametrize("protocol", [2, 3])
def test_the_reader_reads_either_protocols_replies(redis_url: str, protocol: int) -> None:
    """The reader parses XREAD's raw reply itself: RESP3's map and RESP2's list of pairs, bytes or decoded."""
    for decoded in (False, True):
        client = redis.Redis.from_url(redis_url, protocol=protocol, decode_responses=decoded)
        try:
            waits, table = TableWaits(client), str(uuid.uuid4())
            following = waits.follow(table, None)
            try:
                _wait_until_reading(waits, {table})
                publish(client, table, 3)
                publish(client, table, 4)
                assert following.next(5) in (3, 4)
                if waits.tables[table].version == 3:
                    assert following.next(5) == 4
            finally:
                following.close()
        finally:
            redis_bus.close(client)
