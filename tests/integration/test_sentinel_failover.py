"""A Redis connection held across a Sentinel failover (the relay's, a stream reader's) reaches the new primary:
redis-py's own reconnects to the address it had, so it would knock at the old primary for ever
(`infra.redis_clients.PrimaryFollowingConnection`)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from infra import redis_clients
from tests.ha.cluster import SERVICE_NAME, Folder, RedisShape, wait_for


@pytest.fixture
def sentinels(tmp_path: Path) -> Iterator[RedisShape]:
    if shutil.which("redis-sentinel") is None:
        pytest.skip("redis-sentinel is missing: apt-get install redis-sentinel")
    shape = RedisShape(Folder(tmp_path))
    shape.start()
    yield shape
    shape.stop()


def test_a_held_connection_writes_to_the_new_primary_after_a_failover(sentinels: RedisShape) -> None:
    client = redis_clients.connect(sentinels.url, socket_timeout=5, socket_connect_timeout=2)
    held = client.connection_pool.get_connection()
    held.send_command("SET", "k", "before")
    assert held.read_response() in (b"OK", "OK")
    old = sentinels.primary_port()
    sentinels.client(sentinels.sentinel_ports[0]).execute_command("SENTINEL", "FAILOVER", SERVICE_NAME)
    new = wait_for(lambda: (port := sentinels.primary_port()) not in (None, old) and port, 60, "the failover")
    assert old is not None
    demoted = sentinels.client(old)
    wait_for(lambda: demoted.info("replication")["role"] == "slave", 60, "the old primary to follow the new one")

    def write() -> bool:
        try:
            held.send_command("SET", "k", "after")
            held.read_response()
        except (redis.ConnectionError, redis.ReadOnlyError):  # the old primary, now a replica, refuses once
            return False
        return True

    wait_for(write, 30, "a write on the held connection")
    assert held.port == new
    assert sentinels.client(new).get("k") == b"after"
    client.connection_pool.release(held)
    client.close()
