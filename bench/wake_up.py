"""The relay's wake-up and the projections' transactions per batch: what they cost (docs/performance.md).

Run: python -m bench.wake_up [--seconds S] [--rounds N] [--relay-only | --publish-only | --steady [--rate R]
[--tables N]]

Rows:
- EventStore.append events/s without the wake-up trigger (migration 012 dropped), with it while the relay is
  awake (no NOTIFY: the usual case under load), and with it while a relay sleeps for good (every append
  NOTIFYs: the worst case), at 1, 4 and 16 writers, interleaved as in bench.append;
- an idle relay's CPU milliseconds per second and the transactions per second it runs on its database;
- a steady stream of appends (one writer, one event every 2, 5 and 20 ms) beside a relay: per append, the
  NOTIFYs sent (counted by a session of its own listening on the channel), the relay's wake-ups, the relay's
  CPU (its thread, /proc/self/task) and its backends' CPU (pg_stat_activity.application_name cardledger-relay,
  /proc/<pid>/stat), the writer's backend's CPU, and the database's transactions; and the commit-to-published
  p50 and p99 (the append's return to its arrival on the global Redis stream, read by XREAD BLOCK);
- a catch-up of a played log in batches of 4 events (a live batch's size), every projection committed in one
  transaction or in two (the table views first, as before): client and database backend CPU microseconds
  per event (user + system, this process and /proc/<backend pid>/stat), the two orders alternated;
- the relay's Redis work per batch of 4 events while a projection job is waiting (steady writes): round trips
  (packets the client sends), commands the server runs (INFO commandstats, a script's inner commands
  included) and client CPU microseconds, the job checked by a pipeline before the publishing script (as
  before) and by the script itself (`infra.queueing.publish_and_enqueue`), the two alternated.

- `--steady` only: a steady write load (`--rate` appends a second in all, default 250, from two writer threads,
  one event each, over `--tables` tables, default 8: the API bench's pace) beside a relay thread and a reader of
  the global stream, for `--seconds`, `--rounds` times: per append, the relay thread's CPU, its backends' CPU
  (pg_stat_activity.application_name cardledger-relay, /proc) and the private Redis server's (/proc), the relay
  thread's looks at the log (those that found nothing apart), SQL statements (psycopg cursor executes) and Redis
  round trips (commands sent; a script call is one), the Redis server's commands (INFO commandstats of the
  private server: a script's inner commands count, the reader's XREAD given apart), NOTIFYs and wake-ups; the
  commit-to-published p50 and p99; and the share of the run during which another database's transaction older
  than 20 ms held back the server's commit-safe horizon (the lag then is not the relay's).

Servers: DATABASE_URL (default postgresql://postgres@127.0.0.1:5432/postgres); throw-away databases; a private
redis-server (REDIS_URL when no redis-server binary is found).
"""

from __future__ import annotations

import argparse
import os
import resource
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg
import redis

from bench.append import EVENT, Appender, cardledger_writers, measure
from bench.lag import _percentile, _redis, cpu_seconds
from infra import projections, redis_bus
from infra.db import application_name, connect, open_pool
from infra.event_store import EventStore, read_log_in
from infra.migrations import migrate
from infra.projections import runner
from infra.projections.checkpoint import LOG_CHANNEL, RELAY_ASLEEP_KEY, ensure_position, store_position
from infra.queueing import enqueue_projections, publish_and_enqueue
from infra.sql.session import ping
from services.relay import Relay
from tests.conftest import fresh_database
from tests.faults.workload import play_tables

DEFAULT_URL = "postgresql://postgres@127.0.0.1:5432/postgres"


def _row(benchmark: str, value: float, unit: str) -> dict[str, Any]:
    return {"benchmark": benchmark, "value": value, "target": None, "unit": unit}


def append_rows(server_url: str, seconds: float) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    with (
        fresh_database(server_url, prefix="cardledger_bench") as plain,
        fresh_database(server_url, prefix="cardledger_bench") as awake,
        fresh_database(server_url, prefix="cardledger_bench") as asleep,
    ):
        for url in (plain, awake, asleep):
            migrate(url)
        with psycopg.connect(plain, autocommit=True) as conn:
            conn.execute("DROP TRIGGER events_wake_relay ON events")
        stop, ready = threading.Event(), threading.Event()

        def sleeping_relay() -> None:
            with psycopg.connect(asleep, autocommit=True) as conn:
                conn.execute(f"LISTEN {LOG_CHANNEL}")
                conn.execute("SELECT pg_advisory_lock(%s)", (RELAY_ASLEEP_KEY,))
                ready.set()
                while not stop.is_set():
                    for _ in conn.notifies(timeout=0.2, stop_after=1000):
                        pass

        sleeper = threading.Thread(target=sleeping_relay, daemon=True)
        sleeper.start()
        ready.wait()

        def on(url: str) -> Callable[[str, int], tuple[list[Appender], Callable[[], None]]]:
            return lambda _url, writers: cardledger_writers(url, writers)

        kinds = {"plain": on(plain), "awake": on(awake), "asleep": on(asleep)}
        try:
            for n in (1, 4, 16):
                rate = measure(kinds, plain, n, seconds)
                awake_ratio, asleep_ratio = rate["awake"] / rate["plain"], rate["asleep"] / rate["plain"]
                rows += [
                    _row(f"append without the wake-up trigger, {n} writers", rate["plain"], "events/s"),
                    _row(f"append with it, relay awake / without, {n} writers", awake_ratio, "ratio"),
                    _row(f"append with it, relay asleep / without, {n} writers", asleep_ratio, "ratio"),
                ]
        finally:
            stop.set()
            sleeper.join()
    return rows


def idle_relay_rows(server_url: str, seconds: float) -> list[dict[str, Any]]:
    with _redis() as redis_url, fresh_database(server_url, prefix="cardledger_bench") as url:
        migrate(url)
        stop = threading.Event()
        relay = threading.Thread(target=Relay(url, redis_url, stop).run, daemon=True)
        relay.start()
        try:
            time.sleep(2.0)
            with psycopg.connect(url, autocommit=True) as conn:

                def transactions() -> int:
                    conn.execute("SELECT pg_stat_clear_snapshot()")
                    row = conn.execute(
                        "SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()"
                    ).fetchone()
                    return int(row[0]) if row is not None else 0

                before, usage = transactions(), resource.getrusage(resource.RUSAGE_SELF)
                time.sleep(seconds)
                after_usage = resource.getrusage(resource.RUSAGE_SELF)
                time.sleep(0.6)  # statistics reach pg_stat_database within half a second
                after = transactions() - 2  # this connection's two reads
        finally:
            stop.set()
            relay.join()
    cpu = after_usage.ru_utime + after_usage.ru_stime - usage.ru_utime - usage.ru_stime
    return [
        _row("idle relay CPU", cpu / seconds * 1000, "ms per second"),
        _row("idle relay transactions on its database", (after - before) / seconds, "per second"),
    ]


STEADY_INTERVALS_MS = (2.0, 5.0, 20.0)


def thread_cpu_seconds(native_id: int) -> float:
    """User and system CPU seconds of a thread of this process (Linux /proc)."""
    fields = Path(f"/proc/self/task/{native_id}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _committed(conn: psycopg.Connection[Any]) -> int:
    conn.execute("SELECT pg_stat_clear_snapshot()")
    row = conn.execute("SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()").fetchone()
    return int(row[0]) if row is not None else 0


def steady_appends(server_url: str, interval_ms: float, seconds: float) -> dict[str, Any]:
    """One writer appending one event every `interval_ms` for `seconds` beside a relay: totals over the run, and
    each append's commit-to-published seconds (from its return to its arrival on the global Redis stream)."""
    with _redis() as redis_url, fresh_database(server_url, prefix="cardledger_bench") as url:
        migrate(url)
        stop, counting = threading.Event(), threading.Event()
        relay = Relay(url, redis_url, stop)
        relay_thread: list[int] = []
        notifies = [0]
        committed: dict[int, float] = {}  # global position -> when its append returned
        arrived: dict[int, float] = {}  # global position -> when it was read from the global stream

        def read_published() -> None:
            client, last = redis.Redis.from_url(redis_url), "0-0"
            try:
                while not stop.is_set():
                    for entry_id, body in redis_bus.read_stream(
                        client, redis_bus.GLOBAL_STREAM, last, count=1000, block_ms=50
                    ):
                        arrived[int(str(body["global_position"]))], last = time.monotonic(), entry_id
            finally:
                client.close()

        def run_relay() -> None:
            relay_thread.append(threading.get_native_id())
            relay.run()

        def count_notifies() -> None:
            with psycopg.connect(url, autocommit=True) as conn:
                conn.execute(f"LISTEN {LOG_CHANNEL}")
                counting.set()
                while not stop.is_set():
                    for _ in conn.notifies(timeout=0.1, stop_after=1):
                        notifies[0] += 1

        threads = [
            threading.Thread(target=run_relay, daemon=True),
            threading.Thread(target=count_notifies),
            threading.Thread(target=read_published),
        ]
        for thread in threads:
            thread.start()
        pool = open_pool(url, min_size=1, max_size=1)
        store = EventStore(pool)
        head: list[str | None] = [None]

        def append(version: int) -> None:
            recorded = store.append("steady", version, [EVENT], head_hash=head[0])
            committed[recorded[-1].global_position] = time.monotonic()
            head[0] = recorded[-1].hash

        try:
            counting.wait()
            append(0)  # the writer's connection opened, the relay's sessions too
            with psycopg.connect(url, autocommit=True) as conn:
                while len(_relay_backends(conn)) < 2:
                    time.sleep(0.05)
                time.sleep(0.5)
                relay_pids = _relay_backends(conn)
                writer_pid = _writer_backend(conn)
                before = {
                    "relay": thread_cpu_seconds(relay_thread[0]),
                    "relay backends": sum(cpu_seconds(pid) for pid in relay_pids),
                    "writer backend": cpu_seconds(writer_pid),
                    "transactions": _committed(conn),
                    "notifies": notifies[0],
                    "wake-ups": relay.wake_ups,
                }
                appends, started = 0, time.monotonic()
                first = max(committed)
                while time.monotonic() - started < seconds:
                    append(appends + 1)
                    appends += 1
                    next_at = started + appends * interval_ms / 1000
                    time.sleep(max(0.0, next_at - time.monotonic()))
                time.sleep(0.6)  # the last appends published; statistics reach pg_stat_database
                after = {
                    "relay": thread_cpu_seconds(relay_thread[0]),
                    "relay backends": sum(cpu_seconds(pid) for pid in relay_pids),
                    "writer backend": cpu_seconds(writer_pid),
                    "transactions": _committed(conn) - 2,  # this connection's two reads
                    "notifies": notifies[0],
                    "wake-ups": relay.wake_ups,
                }
        finally:
            pool.close()
            stop.set()
            for thread in threads:
                thread.join()
    lags = [arrived[p] - at for p, at in committed.items() if p > first and p in arrived]
    return {"appends": appends, "lags": lags, **{name: after[name] - before[name] for name in before}}


def _relay_backends(conn: psycopg.Connection[Any]) -> list[int]:
    rows = conn.execute(
        "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = %s",
        (application_name("relay"),),
    ).fetchall()
    return [int(row[0]) for row in rows]


def _writer_backend(conn: psycopg.Connection[Any]) -> int:
    row = conn.execute(
        "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = %s",
        (application_name(None),),
    ).fetchone()
    assert row is not None, "the writer's connection"
    return int(row[0])


def steady_rows(
    server_url: str, seconds: float, intervals_ms: tuple[float, ...] = STEADY_INTERVALS_MS
) -> list[dict[str, Any]]:
    rows = []
    for interval in intervals_ms:
        got = steady_appends(server_url, interval, seconds)
        n = got["appends"]
        label = f"appends every {interval:g} ms beside a relay"
        rows += [
            _row(f"{label}: NOTIFYs", got["notifies"] / n, "per append"),
            _row(f"{label}: relay wake-ups", got["wake-ups"] / n, "per append"),
            _row(f"{label}: relay CPU", got["relay"] / n * 1e6, "us/append"),
            _row(f"{label}: relay's backends' CPU", got["relay backends"] / n * 1e6, "us/append"),
            _row(f"{label}: writer's backend's CPU", got["writer backend"] / n * 1e6, "us/append"),
            _row(f"{label}: transactions on the database", got["transactions"] / n, "per append"),
            _row(f"{label}: commit-to-published p50", _percentile(got["lags"], 0.5) * 1000, "ms"),
            _row(f"{label}: commit-to-published p99", _percentile(got["lags"], 0.99) * 1000, "ms"),
            _row(f"{label}: appends not seen published", n - len(got["lags"]), "appends"),
        ]
    return rows


# The steady load's defaults, near the API bench's (docs/performance.md gives that bench's rate).
STEADY_RATE = 250.0
STEADY_TABLES = 8
STEADY_WRITERS = 2


class _RelayCounts:
    """What the relay thread sends while `installed`: SQL statements (psycopg cursor executes, the log reads
    among them and those that found no event) and Redis commands (a pipeline's or a script's call counts one,
    as a round trip). Only the relay thread's calls count; the other threads' (writers, readers) do not."""

    def __init__(self) -> None:
        self.thread: int | None = None
        self.statements = 0
        self.looks = 0
        self.empty_looks = 0
        self.redis_calls = 0
        self._execute = psycopg.Cursor.execute
        self._send = redis.connection.Connection.send_packed_command

    def install(self) -> None:
        counts, execute, send = self, self._execute, self._send

        def counted_execute(cursor: Any, query: Any, *args: Any, **kwargs: Any) -> Any:
            result = execute(cursor, query, *args, **kwargs)
            if threading.get_ident() == counts.thread:
                counts.statements += 1
                if "pg_snapshot_xmin" in str(query):  # a look at the log (the relay's read)
                    counts.looks += 1
                    counts.empty_looks += cursor.rowcount == 0
            return result

        def counted_send(connection: Any, command: Any, check_health: bool = True) -> None:
            if threading.get_ident() == counts.thread:
                counts.redis_calls += 1
            send(connection, command, check_health)

        psycopg.Cursor.execute = counted_execute  # type: ignore[method-assign, assignment]
        redis.connection.Connection.send_packed_command = counted_send  # type: ignore[method-assign]

    def uninstall(self) -> None:
        psycopg.Cursor.execute = self._execute  # type: ignore[method-assign]
        redis.connection.Connection.send_packed_command = self._send  # type: ignore[method-assign]

    def snapshot(self) -> dict[str, float]:
        return {
            "SQL statements": self.statements,
            "looks at the log": self.looks,
            "looks that found nothing": self.empty_looks,
            "Redis round trips": self.redis_calls,
        }


def _redis_server_pid(redis_url: str) -> int | None:
    """The pid of the Redis server at `redis_url` when it runs on this machine (a private one)."""
    client = redis.Redis.from_url(redis_url)
    try:
        pid = int(client.info("server")["process_id"])
    finally:
        client.close()
    return pid if Path(f"/proc/{pid}/stat").exists() else None


def _redis_commands(redis_url: str) -> dict[str, int]:
    client = redis.Redis.from_url(redis_url)
    try:
        stats = client.info("commandstats")
    finally:
        client.close()
    return {name.removeprefix("cmdstat_"): int(value["calls"]) for name, value in stats.items()}


def steady_load(
    server_url: str,
    rate: float = STEADY_RATE,
    tables: int = STEADY_TABLES,
    seconds: float = 5.0,
    writers: int = STEADY_WRITERS,
) -> dict[str, Any]:
    """`writers` threads appending one event each to `tables` tables in turn, `rate` appends a second in all,
    for `seconds`, beside a relay thread and a reader of the global stream (as a long-poll would be): totals
    over the run (CPU of the relay thread, its backends and the Redis server; the relay's SQL statements,
    looks and Redis round trips; the Redis server's commands; NOTIFYs) and each append's commit-to-published
    seconds."""
    with _redis() as redis_url, fresh_database(server_url, prefix="cardledger_bench") as url:
        migrate(url)
        redis_pid = _redis_server_pid(redis_url)
        stop, counting, writing = threading.Event(), threading.Event(), threading.Event()
        relay = Relay(url, redis_url, stop)
        counts = _RelayCounts()
        notifies = [0]
        committed: dict[int, float] = {}
        arrived: dict[int, float] = {}

        def read_published() -> None:
            client, last = redis.Redis.from_url(redis_url), "0-0"
            try:
                while not stop.is_set():
                    for entry_id, body in redis_bus.read_stream(
                        client, redis_bus.GLOBAL_STREAM, last, count=1000, block_ms=50
                    ):
                        arrived[int(str(body["global_position"]))], last = time.monotonic(), entry_id
            finally:
                client.close()

        def run_relay() -> None:
            counts.thread = threading.get_ident()
            relay.run()

        def count_notifies() -> None:
            with psycopg.connect(url, autocommit=True) as conn:
                conn.execute(f"LISTEN {LOG_CHANNEL}")
                counting.set()
                while not stop.is_set():
                    for _ in conn.notifies(timeout=0.1, stop_after=1):
                        notifies[0] += 1

        held = [0, 0]  # samples taken while the run is measured, those that found the horizon held by another
        # database's transaction older than 20 ms (the server's commit-safe horizon: the lag then is not the relay's)

        def watch_horizon() -> None:
            with psycopg.connect(url, autocommit=True) as conn:
                while not stop.is_set():
                    row = conn.execute(
                        "SELECT count(*) FROM pg_stat_activity WHERE datname IS DISTINCT FROM current_database()"
                        " AND backend_xid IS NOT NULL AND now() - xact_start > interval '20 ms'"
                    ).fetchone()
                    if writing.is_set() and started_at[0] > 0:
                        held[0] += 1
                        held[1] += bool(row and row[0])
                    stop.wait(0.05)

        pool = open_pool(url, min_size=writers, max_size=writers)
        store = EventStore(pool)
        appended = [0] * writers
        ends = [0.0] * writers
        started_at = [0.0]

        def write(w: int) -> None:
            mine = [f"steady-{t}" for t in range(tables) if t % writers == w]
            versions = dict.fromkeys(mine, 0)
            heads: dict[str, str | None] = dict.fromkeys(mine)
            for table in mine:  # each table's first event, before the measurement
                recorded = store.append(table, 0, [EVENT])
                committed[recorded[-1].global_position] = time.monotonic()
                versions[table], heads[table] = 1, recorded[-1].hash
            writing.wait()
            interval, n = writers / rate, 0
            while time.monotonic() - started_at[0] < seconds:
                table = mine[n % len(mine)]
                recorded = store.append(table, versions[table], [EVENT], head_hash=heads[table])
                committed[recorded[-1].global_position] = time.monotonic()
                versions[table], heads[table] = recorded[-1].version, recorded[-1].hash
                n += 1
                time.sleep(max(0.0, started_at[0] + w * interval / writers + n * interval - time.monotonic()))
            appended[w], ends[w] = n, time.monotonic()

        threads = [
            threading.Thread(target=run_relay, daemon=True),
            threading.Thread(target=count_notifies),
            threading.Thread(target=read_published),
            threading.Thread(target=watch_horizon),
        ]
        writer_threads = [threading.Thread(target=write, args=(w,)) for w in range(writers)]
        counts.install()
        try:
            for thread in threads:
                thread.start()
            counting.wait()
            for thread in writer_threads:
                thread.start()
            with psycopg.connect(url, autocommit=True) as conn:
                while len(_relay_backends(conn)) < 2 or len(committed) < tables:
                    time.sleep(0.05)
                time.sleep(1.0)  # the tables' first events published; the relay asleep again
                relay_pids = _relay_backends(conn)
                first = max(committed)

                def sample() -> dict[str, float]:
                    commands = _redis_commands(redis_url)
                    return {
                        "relay CPU": thread_cpu_seconds(_native_id(threads[0])),
                        "relay backends CPU": sum(cpu_seconds(pid) for pid in relay_pids),
                        "Redis server CPU": cpu_seconds(redis_pid) if redis_pid is not None else 0.0,
                        "Redis server commands": sum(commands.values()) - commands.get("info", 0),
                        "Redis server commands (the reader's XREAD)": commands.get("xread", 0),
                        "NOTIFYs": notifies[0],
                        "wake-ups": relay.wake_ups,
                        **counts.snapshot(),
                    }

                before = sample()
                started_at[0] = time.monotonic()
                writing.set()
                for thread in writer_threads:
                    thread.join()
                time.sleep(0.3)  # the last appends published
                after = sample()
        finally:
            writing.set()  # writers not started yet end at once (started_at 0)
            for thread in writer_threads:
                thread.join()
            pool.close()
            stop.set()
            for thread in threads:
                thread.join()
            counts.uninstall()
    appends = sum(appended)
    lags = [arrived[p] - at for p, at in committed.items() if p > first and p in arrived]
    return {
        "appends": appends,
        "rate": appends / (max(ends) - started_at[0]),
        "lags": lags,
        "unseen": appends - len(lags),
        "horizon held": held[1] / max(1, held[0]),
        **{name: after[name] - before[name] for name in before},
    }


def _native_id(thread: threading.Thread) -> int:
    assert thread.native_id is not None
    return thread.native_id


def steady_load_rows(
    server_url: str, seconds: float, rate: float = STEADY_RATE, tables: int = STEADY_TABLES, rounds: int = 1
) -> list[dict[str, Any]]:
    rows = []
    for round_no in range(rounds):
        got = steady_load(server_url, rate, tables, seconds)
        n = got["appends"]
        label = f"steady {rate:g}/s over {tables} tables" + (f" (round {round_no + 1})" if rounds > 1 else "")
        rows.append(_row(f"{label}: appends/s reached", got["rate"], "per second"))
        for name in ("relay CPU", "relay backends CPU", "Redis server CPU"):
            rows.append(_row(f"{label}: {name}", got[name] / n * 1e6, "us/append"))
        total = got["relay CPU"] + got["relay backends CPU"] + got["Redis server CPU"]
        rows.append(_row(f"{label}: the three together", total / n * 1e6, "us/append"))
        for name in (
            "looks at the log",
            "looks that found nothing",
            "SQL statements",
            "Redis round trips",
            "Redis server commands",
            "Redis server commands (the reader's XREAD)",
            "NOTIFYs",
            "wake-ups",
        ):
            rows.append(_row(f"{label}: {name}", got[name] / n, "per append"))
        rows += [
            _row(f"{label}: commit-to-published p50", _percentile(got["lags"], 0.5) * 1000, "ms"),
            _row(f"{label}: commit-to-published p99", _percentile(got["lags"], 0.99) * 1000, "ms"),
            _row(f"{label}: appends not seen published", got["unseen"], "appends"),
            _row(f"{label}: horizon held by another database's transaction", got["horizon held"], "of the time"),
        ]
    return rows


def _cpu_or_zero(pid: int | None) -> float:
    return cpu_seconds(pid) if pid is not None else 0.0


def step_cost_rows(server_url: str, repeat: int = 2000) -> list[dict[str, Any]]:
    """The CPU of each step of the relay, done `repeat` times in this process over a played log of 8 tables
    (client: `time.process_time`; its backend and the private Redis server: /proc): a look at the log that finds
    nothing and one that finds an event, publishing a batch of 1, 2, 4 and 8 events (a job waiting), storing
    the position, pinging the lock's session."""
    rows: list[dict[str, Any]] = []
    with _redis() as redis_url, fresh_database(server_url, prefix="cardledger_bench") as url:
        migrate(url)
        pool = open_pool(url, min_size=1, max_size=1)
        store = EventStore(pool)
        for table in range(8):
            head: str | None = None
            for version in range(130):
                head = store.append(f"table-{table}", version, [EVENT], head_hash=head)[-1].hash
        events = store.read_log(limit=100_000)
        pool.close()
        with connect(url, "relay") as conn:
            pid = conn.info.backend_pid
            with conn.transaction():
                ensure_position(conn, "bench")

            def timed(label: str, step: Callable[[int], object]) -> None:
                for n in range(10):  # prepared by psycopg after a few runs
                    step(n)
                client, backend = time.process_time(), cpu_seconds(pid)
                for n in range(repeat):
                    step(n)
                rows.append(_row(f"{label}: client CPU", (time.process_time() - client) / repeat * 1e6, "us"))
                rows.append(_row(f"{label}: backend CPU", (cpu_seconds(pid) - backend) / repeat * 1e6, "us"))

            last, before_last = events[-1].log_position, events[-2].log_position
            timed("a look that finds nothing", lambda n: read_log_in(conn, last, 500))
            timed("a look that finds an event", lambda n: read_log_in(conn, before_last, 500))
            timed("storing the position", lambda n: store_position(conn, "bench", events[n % len(events)].log_position))
            timed("pinging the lock's session", lambda n: ping(conn))
        client = redis.Redis.from_url(redis_url)
        redis_pid = _redis_server_pid(redis_url)
        try:
            for size in (1, 2, 4, 8):
                batches = [events[i : i + size] for i in range(0, len(events) - size + 1, size)]
                cpu = server = 0.0
                for _pass in range(repeat // 250):  # the log's ~1,000 events a pass, into emptied streams
                    client.flushdb()
                    enqueue_projections(client)  # a job waiting: no batch enqueues another
                    started, server_started = time.process_time(), _cpu_or_zero(redis_pid)
                    for each in batches:
                        publish_and_enqueue(client, each)
                    cpu += time.process_time() - started
                    server += _cpu_or_zero(redis_pid) - server_started
                count = len(batches) * (repeat // 250)
                label = f"publishing a batch of {size}"
                rows.append(_row(f"{label}: client CPU", cpu / count * 1e6, "us/batch"))
                rows.append(_row(f"{label}: Redis server CPU", server / count * 1e6, "us/batch"))
        finally:
            client.close()
    return rows


def batch_transaction_rows(server_url: str, rounds: int, batch: int = 4) -> list[dict[str, Any]]:
    every = tuple(name for group in runner.COMMITTED_TOGETHER for name in group)
    variants = {"one": (every,), "two": ((every[0],), every[1:])}
    totals: dict[str, list[float]] = {name: [0.0, 0.0, 0.0] for name in variants}  # client s, backend s, events
    kept = runner.COMMITTED_TOGETHER
    try:
        for round_no in range(rounds):
            for name in sorted(variants, reverse=bool(round_no % 2)):
                with fresh_database(server_url, prefix="cardledger_bench") as url:
                    migrate(url)
                    pool = open_pool(url, min_size=1, max_size=2)
                    play_tables(EventStore(pool), count=8, deals=2, seed=3)
                    pool.close()
                    runner.COMMITTED_TOGETHER = variants[name]
                    with connect(url) as conn:
                        pid = conn.info.backend_pid
                        client, backend = time.process_time(), cpu_seconds(pid)
                        applied = projections.catch_up_all(conn, batch_size=batch)
                        totals[name][0] += time.process_time() - client
                        totals[name][1] += cpu_seconds(pid) - backend
                        totals[name][2] += applied[every[0]]
    finally:
        runner.COMMITTED_TOGETHER = kept
    rows = []
    for name, (client, backend, events) in totals.items():
        label = "one transaction" if name == "one" else "two transactions"
        rows += [
            _row(f"catch-up in batches of {batch}, {label}: client CPU", client / events * 1e6, "us/event"),
            _row(f"catch-up in batches of {batch}, {label}: backend CPU", backend / events * 1e6, "us/event"),
        ]
    return rows


def publish_rows(server_url: str, rounds: int, batch: int = 4) -> list[dict[str, Any]]:
    def before(client: redis.Redis, events: list[Any]) -> None:
        enqueue_projections(client)
        redis_bus.publish(client, events)

    def after(client: redis.Redis, events: list[Any]) -> None:
        publish_and_enqueue(client, events)

    variants: dict[str, Callable[[redis.Redis, list[Any]], None]] = {"pipeline": before, "script": after}
    totals = {name: [0.0, 0.0, 0.0, 0.0] for name in variants}  # round trips, commands, CPU s, batches
    sent = [0]
    send = redis.connection.Connection.send_packed_command

    def counted(connection: Any, command: Any, check_health: bool = True) -> None:
        sent[0] += 1
        send(connection, command, check_health)

    with _redis() as redis_url, fresh_database(server_url, prefix="cardledger_bench") as url:
        migrate(url)
        pool = open_pool(url, min_size=1, max_size=2)
        play_tables(EventStore(pool), count=8, deals=2, seed=3)
        events = EventStore(pool).read_log(limit=100_000)
        pool.close()
        batches = [events[i : i + batch] for i in range(0, len(events), batch)]
        client = redis.Redis.from_url(redis_url)
        redis.connection.Connection.send_packed_command = counted  # type: ignore[method-assign]
        try:
            for round_no in range(rounds):
                for name in sorted(variants, reverse=bool(round_no % 2)):
                    client.flushdb()
                    enqueue_projections(client)  # a job waiting: no batch enqueues another
                    client.config_resetstat()
                    sent[0], cpu = 0, time.process_time()
                    for each in batches:
                        variants[name](client, each)
                    totals[name][2] += time.process_time() - cpu
                    totals[name][0] += sent[0]
                    stats = client.info("commandstats")
                    totals[name][1] += sum(int(v["calls"]) for k, v in stats.items() if k != "cmdstat_config")
                    totals[name][3] += len(batches)
        finally:
            redis.connection.Connection.send_packed_command = send  # type: ignore[method-assign]
            client.close()
    rows = []
    for name, (trips, commands, cpu, count) in totals.items():
        label = f"relay batch of {batch}, job checked by the {name}"
        rows += [
            _row(f"{label}: round trips", trips / count, "per batch"),
            _row(f"{label}: Redis commands", commands / count, "per batch"),
            _row(f"{label}: client CPU", cpu / count * 1e6, "us/batch"),
        ]
    return rows


def run(seconds: float = 3.0, rounds: int = 4) -> list[dict[str, Any]]:
    server_url = os.environ.get("DATABASE_URL", "").strip() or DEFAULT_URL
    return (
        append_rows(server_url, seconds)
        + idle_relay_rows(server_url, 10.0)
        + steady_rows(server_url, seconds)
        + batch_transaction_rows(server_url, rounds)
        + publish_rows(server_url, rounds)
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=3.0, help="measuring time per append point")
    parser.add_argument("--rounds", type=int, default=4, help="catch-ups of each kind")
    parser.add_argument("--publish-only", action="store_true", help="only the relay's Redis work per batch")
    parser.add_argument(
        "--relay-only", action="store_true", help="only the idle relay and the steady appends beside a relay"
    )
    parser.add_argument(
        "--steady",
        action="store_true",
        help="only a steady write load (--rate appends/s over --tables tables) beside a relay: its cost per event",
    )
    parser.add_argument(
        "--step-costs", action="store_true", help="only the CPU of each step of the relay (a look, a publish...)"
    )
    parser.add_argument("--rate", type=float, default=STEADY_RATE, help="appends a second of --steady")
    parser.add_argument("--tables", type=int, default=STEADY_TABLES, help="tables written by --steady")
    args = parser.parse_args()
    server_url = os.environ.get("DATABASE_URL", "").strip() or DEFAULT_URL
    if args.step_costs:
        rows = step_cost_rows(server_url)
    elif args.steady:
        rows = steady_load_rows(server_url, args.seconds, args.rate, args.tables, args.rounds)
    elif args.publish_only:
        rows = publish_rows(server_url, args.rounds)
    elif args.relay_only:
        rows = idle_relay_rows(server_url, 10.0) + steady_rows(server_url, args.seconds)
    else:
        rows = run(args.seconds, args.rounds)
    for row in rows:
        print(f"{row['benchmark']:<70}  {row['value']:>10,.2f}  {row['unit']}")


if __name__ == "__main__":
    main()
