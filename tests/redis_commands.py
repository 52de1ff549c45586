"""The Redis commands a connection sends, read from what `send_packed_command` receives (every command goes
through it: one sent alone, a pipeline's, or the reader of the tables' streams' XREAD, packed by that reader),
for test doubles and benchmarks that count or fail commands; and clients whose connections carry such a double
whatever the server's address (TCP, or the embedded server's unix socket)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar
from urllib.parse import urlsplit

import redis
from redis.connection import AbstractConnection

Client = TypeVar("Client", bound=redis.Redis)


def command_names(packed: bytes | str | Sequence[bytes | memoryview]) -> list[str]:
    """The names of the commands packed in `packed` (RESP arrays of bulk strings), upper case, in order."""
    if isinstance(packed, str):
        data = packed.encode()
    elif isinstance(packed, bytes):
        data = packed
    else:
        data = b"".join(bytes(part) for part in packed)
    names: list[str] = []
    at = 0
    while at < len(data):
        end = data.index(b"\r\n", at)
        words, at = int(data[at + 1 : end]), end + 2  # "*<words>"
        for word in range(words):
            end = data.index(b"\r\n", at)
            length, at = int(data[at + 1 : end]), end + 2  # "$<length>"
            if word == 0:
                names.append(data[at : at + length].decode().upper())
            at += length + 2
    return names


def client_with(url: str, behaviour: type[AbstractConnection], client_class: type[Client], **options: Any) -> Client:
    """A `client_class` of `url` whose connections are `behaviour` (a class that overrides what a connection
    does and calls on) on the connection class the URL needs: a unix socket for the embedded server (`unix://`),
    TCP otherwise. A behaviour made on `redis.Connection` alone could not take the socket's path."""
    base = redis.UnixDomainSocketConnection if urlsplit(url).scheme == "unix" else redis.Connection
    connection_class = type(behaviour.__name__, (behaviour, base), {})
    return client_class.from_url(url, connection_class=connection_class, **options)
