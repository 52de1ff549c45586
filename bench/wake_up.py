"""The relay's wake-up and the projections' transactions per batch: what they cost (docs/performance.md).

Run: python -m bench.wake_up [--seconds S] [--rounds N]

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
from infra.event_store import EventStore
from infra.migrations import migrate
from infra.projections import runner
from infra.projections.checkpoint import LOG_CHANNEL, RELAY_ASLEEP_KEY
from infra.queueing import enqueue_projections, publish_and_enqueue
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
    args = parser.parse_args()
    server_url = os.environ.get("DATABASE_URL", "").strip() or DEFAULT_URL
    if args.publish_only:
        rows = publish_rows(server_url, args.rounds)
    elif args.relay_only:
        rows = idle_relay_rows(server_url, 10.0) + steady_rows(server_url, args.seconds)
    else:
        rows = run(args.seconds, args.rounds)
    for row in rows:
        print(f"{row['benchmark']:<70}  {row['value']:>10,.2f}  {row['unit']}")


if __name__ == "__main__":
    main()
