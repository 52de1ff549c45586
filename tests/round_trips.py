"""Counting SQL round trips: libpq's trace of a few connections, read back.

A round trip is a simple Query or a batch of the extended protocol ended by Sync, whatever ran: a statement
or psycopg's preparing of one.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections import Counter
from typing import Any


class Trace:
    """libpq's trace of `conns`, one file each, from now until `close`."""

    def __init__(self, conns: list[Any]) -> None:
        from psycopg import pq

        self.conns = conns
        self.files = [tempfile.TemporaryFile() for _ in conns]  # noqa: SIM115 (closed by close())
        for conn, file in zip(conns, self.files, strict=True):
            conn.pgconn.trace(file.fileno())
            conn.pgconn.set_trace_flags(pq.Trace.SUPPRESS_TIMESTAMPS | pq.Trace.REGRESS_MODE)

    def mark(self) -> list[int]:
        """Where each connection's trace is now (for `between`)."""
        return [os.fstat(file.fileno()).st_size for file in self.files]

    def between(self, start: list[int], end: list[int]) -> list[str]:
        lines: list[str] = []
        for file, first, last in zip(self.files, start, end, strict=True):
            file.seek(first)
            lines += file.read(last - first).decode("utf-8", "replace").splitlines()
        return lines

    def since(self, start: list[int]) -> list[str]:
        return self.between(start, self.mark())

    def close(self) -> None:
        for conn, file in zip(self.conns, self.files, strict=True):
            if not conn.closed:
                conn.pgconn.untrace()
            file.close()


def traced_pool(pool: Any, size: int) -> Trace:
    """Trace every connection of `pool`, which must hold exactly `size` (min_size = max_size = size)."""
    conns = [pool.getconn() for _ in range(size)]
    trace = Trace(conns)
    for conn in conns:
        pool.putconn(conn)
    return trace


def round_trips(lines: list[str]) -> int:
    """The round trips the client began in `lines`: each simple Query, and each Sync that ends a batch of the
    extended protocol. (Counted on the client's side: libpq traces a server's message only when it next reads,
    so the last ReadyForQuery of a window shows up in the next one.)"""
    return sum(1 for line in lines if _message(line) in (("F", "Query"), ("F", "Sync")))


def prepares(lines: list[str]) -> int:
    """Round trips that prepared a named statement (once per connection and statement)."""
    return sum(1 for line in lines if _message(line) == ("F", "Parse") and not line.split("\t", 3)[3].startswith(' ""'))


def in_a_transaction(lines: list[str]) -> bool:
    """Whether the server was inside a transaction block at the end of any round trip in `lines` (the
    transaction status its ReadyForQuery reports: T, or E for a failed one), whatever statements opened it."""
    ready = [line.rsplit("\t", 1)[-1].strip() for line in lines if _message(line) == ("B", "ReadyForQuery")]
    return any(status in ("T", "E") for status in ready)


def statements(lines: list[str], names: dict[str, str] | None = None) -> Counter[str]:
    """What each round trip ran: a simple query's text, an unnamed statement's text, or a prepared one's text
    (from `names`, to which the statements prepared in `lines` are added; else its name). For reports (bench's
    action_cost) and failure messages: tests assert round trips and results, not what the statements say."""
    names = {} if names is None else names
    found: Counter[str] = Counter()
    for line in lines:
        direction, kind = _message(line)
        if direction != "F":
            continue
        body = line.split("\t", 3)[3] if line.count("\t") >= 3 else ""
        if kind == "Query":
            found[_shorten(body)] += 1
        elif kind == "Parse":
            named = re.match(r' "([^"]*)" "(.*)', body, re.DOTALL)
            if named and named.group(1):
                names[named.group(1)] = _shorten(named.group(2))
            elif named:
                found[_shorten(named.group(2))] += 1
        elif kind == "Bind":
            name = re.match(r' "" "([^"]+)"', body)
            if name:
                found[names.get(name.group(1), name.group(1))] += 1
    return found


def _message(line: str) -> tuple[str, str]:
    parts = line.split("\t")
    return (parts[0], parts[2].strip()) if len(parts) >= 3 else ("", "")


def _shorten(sql: str) -> str:
    text = " ".join(sql.split())
    return text[: text.rfind('"')] if '"' in text else text
