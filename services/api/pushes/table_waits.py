"""One Redis reader per API process for everything that waits on tables' streams: the seat view streams
(`services.api.resources.seat_stream`) and the long-polls (`services.api.pushes.long_poll`).

A waiter follows a table from an entry of its Redis stream (the newest one when it read the table, see
`head`) and is woken in this process when the reader has read a newer entry: it learns the version that
entry carries. The reader is a thread that blocks on one XREAD over every followed table's stream (and a
wake-up stream of its own, written when a table joins a read already blocking), so an action wakes one
Redis reply per process, however many streams and long-polls wait on its table here; no waiter holds a
database connection or a Redis connection (`redis_bus.StreamsRead`).

Bounded: at most MAX_TABLES tables followed (one XREAD's keys), ENTRIES_PER_READ entries per table per
read, and a fixed record per table. A table nobody waits on any more stays followed LINGER_SECONDS (a
long-poll that follows soon finds it followed and needs no Redis command of its own), then is dropped; the
reader ends when no table is followed and starts again with the next waiter. When a read fails, every
waiter is woken with the failure (`redis.ConnectionError`), the tables are dropped and the reader ends.
Closing the waits (`close`, or `redis_bus.close` of their client, as the container's close does) ends the
reader as well and fails the waiters, but logs nothing: a client closed on shutdown is no lost Redis.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
import uuid
import weakref

import redis

from infra import redis_bus

log = logging.getLogger("cardledger.api")

MAX_TABLES = 1_000
ENTRIES_PER_READ = 100
LINGER_SECONDS = 10.0
SWEEP_SECONDS = 1.0  # how often the reader looks for tables that have lingered LINGER_SECONDS
READ_BLOCK_SECONDS = 5.0  # the longest XREAD when the client sets no socket timeout (a dropped table's wait)
WAKE_KEY_PREFIX = "cardledger:waits:"
WAKE_KEY_TTL_MS = 3_600_000  # a reader's wake-up stream outlives a process that died by an hour at most


def entry_order(entry_id: str | bytes) -> tuple[int, int]:
    """A stream entry id as a pair of numbers, to compare ids as Redis orders them."""
    first, _, second = entry_id.partition("-") if isinstance(entry_id, str) else entry_id.partition(b"-")
    return int(first), int(second or 0)


class TableWaitFailed(redis.ConnectionError):
    """The process's reader of the tables' streams lost Redis (or was closed) while a waiter waited."""


class _Table:
    """What this process knows of one followed table's stream."""

    __slots__ = (
        "changed",
        "failed",
        "idle_since",
        "key",
        "key_bytes",
        "newest",
        "position",
        "reading",
        "version",
        "waiters",
    )

    def __init__(self, lock: threading.Lock, table_id: str, head: str, version: int | None) -> None:
        self.key = redis_bus.table_stream(table_id)
        self.key_bytes = self.key.encode()
        self.position = head.encode()  # where the reader's next XREAD of this stream starts
        self.newest = entry_order(head)  # the newest entry known here (read, or noted by a waiter)
        self.version = version  # the version that entry carries
        self.waiters = 0
        self.idle_since = time.monotonic()
        self.failed = False
        self.changed = threading.Condition(lock)
        self.reading = threading.Lock()  # a single read of the store per table at a time (`Following.single_read`)


class Following:
    """One waiter's hold on a table: `next` waits for an entry newer than the last it saw."""

    def __init__(self, waits: TableWaits, table: _Table, seen: tuple[int, int]) -> None:
        self.waits, self.table, self.seen = waits, table, seen
        self.closed = False

    def next(self, timeout: float) -> int | None:
        """The version carried by the newest entry after the last one seen, once there is one (-1 when it
        carries none); None after `timeout` seconds without. Raises TableWaitFailed when the reader lost Redis."""
        table = self.table
        deadline = time.monotonic() + timeout
        with table.changed:
            while not table.failed and table.newest <= self.seen:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return None
                table.changed.wait(remaining)
            if table.failed:
                raise TableWaitFailed(f"the reader of table stream {table.key} lost Redis")
            self.seen = table.newest
            return -1 if table.version is None else table.version

    def single_read(self) -> threading.Lock:
        """Held (`with`) around a read of the store for this table: another waiter of the table in this process
        reads after it, and finds what it folded."""
        return self.table.reading

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.waits._leave(self.table)


class TableWaits:
    """The waits on tables' streams of one process (see the module)."""

    def __init__(self, client: redis.Redis) -> None:
        self.client = client
        self.lock = threading.Lock()
        self.tables: dict[str, _Table] = {}
        self.reader: threading.Thread | None = None
        self.blocking_on: frozenset[str] = frozenset()  # the keys of the XREAD the reader is in
        self.wake_key = f"{WAKE_KEY_PREFIX}{uuid.uuid4().hex}"
        self.wake_position = b"0-0"
        self.pid = os.getpid()
        self.follows = 0  # waiters that have followed a table here (for tests and benchmarks)
        self.generation = 0  # moves whenever a table is followed or dropped (the reader packs its read anew)
        self.closed = False
        redis_bus.stop_on_close(client, self.close)

    def head(self, table_id: str) -> tuple[str, int | None] | None:
        """The table stream's newest entry this process must wait after: (its id, the version it carries), or
        None when the stream holds none. A table followed here answers without a command (every later entry
        reaches the reader); else the stream's newest entry is asked (XREVRANGE)."""
        with self.lock:
            table = self.tables.get(table_id)
            if table is not None and not table.failed:
                return f"{table.newest[0]}-{table.newest[1]}", table.version
        return redis_bus.table_head(self.client, table_id)

    def follow(self, table_id: str, head: tuple[str, int | None] | None) -> Following:
        """Wait on the table from `head` (as `head` gave it): entries after it wake the waiter."""
        head_id, version = head if head is not None else ("0-0", None)
        seen = entry_order(head_id)
        wake = False
        with self.lock:
            if self.closed:
                raise TableWaitFailed(f"the waits on tables' streams are closed (table {table_id})")
            table = self.tables.get(table_id)
            if table is None:
                self._make_room()
                table = self.tables[table_id] = _Table(self.lock, table_id, head_id, version)
                self.generation += 1
                wake = self.reader is not None and table.key not in self.blocking_on
            elif seen > table.newest:  # the reader has not read up to this waiter's entry yet
                table.newest, table.version = seen, version
                table.changed.notify_all()  # the reader will not wake the others for the entries up to it
            table.waiters += 1
            self.follows += 1
            if self.reader is None:
                self.reader = threading.Thread(target=self._read, name="table-waits", daemon=True)
                self.reader.start()
        following = Following(self, table, seen)
        if wake:
            try:
                self._wake_reader()
            except redis.RedisError:
                following.close()
                raise
        return following

    def waiters(self, table_id: str) -> int:
        """The waiters following the table now (for tests and benchmarks)."""
        with self.lock:
            table = self.tables.get(table_id)
            return 0 if table is None else table.waiters

    def _make_room(self) -> None:
        if len(self.tables) < MAX_TABLES:
            return
        idle = [(table.idle_since, table_id) for table_id, table in self.tables.items() if table.waiters == 0]
        if not idle:
            raise TableWaitFailed(f"this process follows {MAX_TABLES} tables' streams at once, each awaited")
        del self.tables[min(idle)[1]]
        self.generation += 1

    def _leave(self, table: _Table) -> None:
        with self.lock:
            table.waiters -= 1
            if table.waiters == 0:
                table.idle_since = time.monotonic()

    def close(self, timeout: float = 1.0) -> None:
        """End the reader (waiting up to `timeout` seconds for it) and fail every waiter, logging nothing; no
        table can be followed here any more."""
        with self.lock:
            if self.closed:
                return
            self.closed = True
            reader = self.reader if self.pid == os.getpid() else None
            self._drop_all()
        if reader is None or reader is threading.current_thread():
            return
        with contextlib.suppress(redis.RedisError):  # Redis gone: the read fails, which a closed reader does not log
            self._wake_reader()
        reader.join(timeout)

    def _wake_reader(self) -> None:
        """End the reader's blocking XREAD (an entry on its own wake-up stream) so that it reads the new table."""
        pipe = self.client.pipeline(transaction=False)
        pipe.xadd(self.wake_key, {"wake": "1"}, maxlen=1, approximate=False)
        pipe.pexpire(self.wake_key, WAKE_KEY_TTL_MS)
        pipe.execute()

    def _read(self) -> None:
        """The reader's loop; the read is made anew only when the tables followed change."""
        longest = redis_bus.longest_block(self.client)
        block_ms = max(1, int(min(READ_BLOCK_SECONDS if longest is None else longest, READ_BLOCK_SECONDS) * 1000))
        wake_key = self.wake_key.encode()
        packed_for, next_sweep = -1, 0.0
        while True:
            with self.lock:
                if self.closed:  # `close` failed the waiters and dropped the tables
                    return
                now = time.monotonic()
                if now >= next_sweep:  # the lingering tables dropped (at most once a second: a scan of them all)
                    next_sweep = now + SWEEP_SECONDS
                    for table_id, table in list(self.tables.items()):
                        if table.waiters == 0 and now - table.idle_since >= LINGER_SECONDS:
                            del self.tables[table_id]
                            self.generation += 1
                if not self.tables:
                    self.reader, self.blocking_on = None, frozenset()
                    return
                if packed_for != self.generation:
                    packed_for = self.generation
                    followed = list(self.tables.values())
                    self.blocking_on = frozenset(table.key for table in followed)
                    read = redis_bus.StreamsRead(
                        [*(table.key_bytes for table in followed), wake_key], ENTRIES_PER_READ, block_ms
                    )
            positions = [table.position for table in followed]
            positions.append(self.wake_position)
            try:
                newest = read.newest(self.client, positions)
            except Exception as error:  # any: a reader that died without failing its waiters would leave them waiting
                self._fail(error)
                return
            if not newest:
                continue
            with self.lock:
                for table in followed:
                    entry = newest.get(table.key_bytes)
                    if entry is None:
                        continue
                    entry_id, version = entry
                    table.position = entry_id  # a table dropped while the read blocked: no longer read anyway
                    order = entry_order(entry_id)
                    if order > table.newest:
                        table.newest, table.version = order, version
                        table.changed.notify_all()
                woken = newest.get(wake_key)
                if woken is not None:
                    self.wake_position = woken[0]

    def _fail(self, error: Exception) -> None:
        with self.lock:
            if self.closed:  # its connection closed with the client (`close` failed the waiters): no lost Redis
                return
            # logged before the waiters are woken, so that their failures follow the cause in the log
            log.warning("the reader of the tables' streams lost Redis: %s", redis_bus.describe_failure(error))
            self._drop_all()

    def _drop_all(self) -> None:
        """Wake every waiter with the failure and drop the tables (the reader, if any, ends); under the lock."""
        for table in self.tables.values():
            table.failed = True
            table.changed.notify_all()
        self.tables.clear()
        self.generation += 1
        self.reader, self.blocking_on = None, frozenset()


_waits: weakref.WeakKeyDictionary[redis.Redis, TableWaits] = weakref.WeakKeyDictionary()
_waits_lock = threading.Lock()


def of(client: redis.Redis) -> TableWaits:
    """The waits of this process on `client` (one per client and process: a forked worker makes its own)."""
    with _waits_lock:
        waits = _waits.get(client)
        if waits is None or waits.pid != os.getpid() or waits.closed:
            waits = _waits[client] = TableWaits(client)
        return waits
