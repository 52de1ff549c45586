"""The name of a Redis command as a connection's `send_command` receives it (str, or bytes as the reader of the
tables' streams sends its XREAD), for test doubles that count or fail commands."""

from __future__ import annotations


def command_name(name: bytes | str) -> str:
    return (name.decode() if isinstance(name, bytes) else str(name)).upper()
