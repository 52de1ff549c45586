"""One Redis command packed here and sent on a connection of a client's pool, its reply read by that connection.

`redis.Redis.execute_command` wraps every command in a retry policy, observability hooks and an argument encoder
written in Python, which together cost the relay more than the round trip of its publishing script
(docs/performance.md). This sends the same bytes and reads the reply with the same connection code (handshake,
AUTH, TLS, timeouts, health checks and reconnection are the connection's); an error reply is raised as
redis-py raises it, and a connection that failed mid-command is dropped (by redis-py) so that no later command
reads a stale reply. Nothing is retried here: the caller decides.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import redis
from redis.connection import AbstractConnection

Arg = bytes | str | int
# A client (a connection taken from its pool for the command, and given back), or a connection of a client's
# pool that the caller holds (taken once: taking one checks it for unread data, which costs a system call).
Target = redis.Redis | AbstractConnection


def bulk(item: bytes) -> bytes:
    """One RESP bulk string."""
    return b"$%d\r\n%b\r\n" % (len(item), item)


def packed(args: Sequence[Arg]) -> bytes:
    """The RESP array of bulk strings of `args` (str as UTF-8, int in decimal), as redis-py packs it."""
    data = [arg if type(arg) is bytes else str(arg).encode() for arg in args]
    return b"".join([b"*%d\r\n" % len(data), *map(bulk, data)])


def call(target: Target, args: Sequence[Arg]) -> Any:
    """Send the command `args` and return its reply (as the connection parses it: bytes unless the client
    decodes); raises redis.ResponseError (NoScriptError...) for an error reply, redis.ConnectionError or
    redis.TimeoutError when the server cannot be reached."""
    if isinstance(target, AbstractConnection):
        target.send_packed_command((packed(args),))  # type: ignore[no-untyped-call]
        return target.read_response()
    pool = target.connection_pool
    connection = pool.get_connection()
    try:
        connection.send_packed_command((packed(args),))  # type: ignore[no-untyped-call]
        return connection.read_response()
    finally:
        pool.release(connection)
