"""How far behind are the views? Commit-to-published (Redis) and commit-to-table_view lag while writers append
random games (sampled by processes of their own), the relay's and workers' CPU per event; then the rebuild rate.

Run: python -m bench.lag     (BENCH_LAG_SECONDS (10), BENCH_LAG_WRITERS (4), BENCH_REBUILD_EVENTS (200000))
"""

from __future__ import annotations

import itertools
import json
import multiprocessing
import random
import statistics
import subprocess
import sys
import threading
import time
from multiprocessing.connection import Connection
from typing import Any

import psycopg
import redis
from psycopg.rows import dict_row

from bench.counting import cpu_seconds
from bench.harness import ROOT, Row, env_int, fresh_database, in_threads, percentile, print_table, private_redis, row
from infra import projections, redis_bus
from infra.db import open_pool
from infra.event_store import EventStore, NewEvent
from tests.faults.servers import spawn, terminate
from tests.faults.workload import TableGame

REBUILD_TARGET = 20_000  # events/s, from the issue
SAMPLE_SECONDS = 0.005  # how often the sampler reads table_views
Records = dict[str, list[tuple[int, float]]]  # table -> (version first seen, when)


def append_games(store: EventStore, writers: int, seconds: float) -> dict[tuple[str, int], float]:
    """`writers` threads appending random games a command at a time for `seconds`: when each (table, version) was."""
    commits: dict[tuple[str, int], float] = {}
    stop = threading.Event()

    def write(w: int) -> None:
        rng = random.Random(w)
        for n in itertools.count():
            game = TableGame(f"lag{writers}-{w}-{n}", seats=rng.choice([2, 3, 4]), deals=2, rng=rng)
            for version in game.play_into(store):
                commits[game.table_id, version] = time.monotonic()
                if stop.is_set():
                    return

    threading.Timer(seconds, stop.set).start()
    in_threads(writers, write)
    return commits


def measure_lag(database_url: str, redis_url: str, seconds: float, writers: int) -> list[Row]:
    services = [spawn("services.relay", database_url, redis_url)]
    services += [spawn("services.projector", database_url, redis_url) for _ in range(2)]
    context = multiprocessing.get_context("spawn")
    pipes = [context.Pipe() for _ in range(2)]
    samplers = [
        context.Process(target=sample_versions, args=(database_url, pipes[0][1]), daemon=True),
        context.Process(target=sample_published, args=(redis_url, pipes[1][1]), daemon=True),
    ]
    for sampler in samplers:
        sampler.start()
    pool = open_pool(database_url, min_size=2, max_size=writers + 2)
    try:
        for ours, _ in pipes:
            ours.recv()  # sampling
        time.sleep(2.0)  # let the services start
        cpu_before = [cpu_seconds(process.pid) or 0.0 for process in services]
        started = time.monotonic()
        commits = append_games(EventStore(pool), writers, seconds)
        elapsed = time.monotonic() - started
        finals: dict[str, int] = {}
        for table_id, version in commits:
            finals[table_id] = max(version, finals.get(table_id, 0))
        appended = sum(finals.values())  # a stream's version is its events
        for ours, _ in pipes:
            ours.send(finals)
        seen, published = (first_seen(commits, ours.recv()) for ours, _ in pipes)
        cpu = [(cpu_seconds(p.pid) or 0.0) - before for p, before in zip(services, cpu_before, strict=True)]
        for sampler in samplers:
            sampler.join()
    finally:
        for sampler in samplers:
            if sampler.is_alive():
                sampler.kill()
        for process in services:
            terminate(process)
        pool.close()
    lags = [(seen[key] - commits[key]) * 1000 for key in commits if key in seen]
    relayed = [(published[key] - commits[key]) * 1000 for key in commits if key in published] or [float("nan")]
    events, each = max(appended, 1), f"{writers} writers"
    return [
        row(f"commit-to-published (Redis) lag p50, {each}", statistics.median(relayed), "ms"),
        row(f"commit-to-published (Redis) lag p99, {each}", percentile(relayed, 0.99), "ms"),
        row(f"relay CPU per event, {each}", cpu[0] / events * 1e6, "us"),
        row(f"projection workers' CPU per event (both), {each}", sum(cpu[1:]) / events * 1e6, "us"),
        row(f"append load (events/s, {each})", appended / elapsed, "events/s"),
        row(f"event-to-table_view lag p50, {each}", statistics.median(lags), "ms"),
        row(f"event-to-table_view lag p99, {each}", percentile(lags, 0.99), "ms (max)", 100),
        row(f"appends never seen in table_views, {each}", len(commits) - len(lags), "appends (max)", 0),
    ]


def record_version(records: Records, table_id: str, version: int, now: float) -> None:
    seen = records.setdefault(table_id, [(0, 0.0)])
    if version > seen[-1][0]:
        seen.append((version, now))


def sampled_until_final(pipe: Connection, look: Any, grace: float = 30.0) -> None:
    """In a sampler process: `look(records)` again and again, until it is sent the final version of each table and
    has seen them all (or `grace` s have passed); then send back the records. Times are time.monotonic(), which
    every process of the machine shares; a process of its own, so that the writers' threads do not hold up its
    clock readings."""
    records: Records = {}
    finals: dict[str, int] | None = None
    deadline = 0.0
    pipe.send("sampling")
    while True:
        look(records)
        now = time.monotonic()
        if finals is None and pipe.poll():
            finals, deadline = pipe.recv(), now + grace
        if finals is not None and (
            now > deadline or all(records.get(t, [(0, 0.0)])[-1][0] >= v for t, v in finals.items())
        ):
            break
    pipe.send(records)


def sample_versions(database_url: str, pipe: Connection) -> None:
    """Every table's version from table_views, every SAMPLE_SECONDS."""
    with psycopg.connect(database_url, autocommit=True) as conn:

        def look(records: Records) -> None:
            found = conn.execute("SELECT table_id, version FROM table_views").fetchall()
            now = time.monotonic()
            for table_id, version in found:
                record_version(records, table_id, version, now)
            time.sleep(SAMPLE_SECONDS)

        sampled_until_final(pipe, look)


def sample_published(redis_url: str, pipe: Connection) -> None:
    """The relay's global stream as it grows."""
    client, last_id = redis.Redis.from_url(redis_url), ["$"]

    def look(records: Records) -> None:
        entries = redis_bus.read_stream(client, redis_bus.GLOBAL_STREAM, last_id[0], count=1000, block_ms=50)
        now = time.monotonic()
        for entry_id, body in entries:
            last_id[0] = entry_id
            if isinstance(body["version"], int):
                record_version(records, str(body["table_id"]), body["version"], now)

    sampled_until_final(pipe, look)
    client.close()


def first_seen(commits: dict[tuple[str, int], float], records: Records) -> dict[tuple[str, int], float]:
    """For each committed (table, version), the first sample time at which the table showed that version or later."""
    seen = {}
    for table_id, version in commits:
        for shown, at in records.get(table_id, ()):
            if shown >= version:
                seen[(table_id, version)] = at
                break
    return seen


def write_games(database_url: str, events: int, writers: int = 4, chunk: int = 12) -> int:
    """At least `events` events of 2-deal games, tables interleaved in chunks of `chunk` events."""
    pool = open_pool(database_url, min_size=writers, max_size=writers)
    store = EventStore(pool)
    per_writer, counts = events // writers + 1, [0] * writers

    def write(w: int) -> None:
        rng, n = random.Random(1000 + w), 0
        live: list[tuple[TableGame, list[NewEvent], int]] = []
        while counts[w] < per_writer or live:
            while counts[w] < per_writer and len(live) < 16:
                game, n = TableGame(f"rb-{w}-{n}", seats=rng.choice([2, 3, 4]), deals=2, rng=rng), n + 1
                pending: list[NewEvent] = []
                while not game.finished:
                    pending += game.advance(game.step())
                live.append((game, pending, 0))
                counts[w] += len(pending)
            index = rng.randrange(len(live))
            game, pending, done = live[index]
            part = pending[done : done + chunk]
            store.append(game.table_id, done, part)
            if done + len(part) >= len(pending):
                live.pop(index)
            else:
                live[index] = (game, pending, done + len(part))

    in_threads(writers, write)
    pool.close()
    return sum(counts)


_REBUILD_CHILD = """
import json, resource, sys
from services.projector.rebuild import rebuild
reports = rebuild(sys.argv[1], None, progress=True)
print(json.dumps({"reports": [[r.name, r.events, r.seconds, r.equal] for r in reports],
                  "maxrss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
"""


def measure_rebuild(database_url: str, events: int) -> list[Row]:
    started = time.monotonic()
    written = write_games(database_url, events)
    write_seconds = time.monotonic() - started
    with psycopg.connect(database_url, autocommit=True, row_factory=dict_row) as conn:
        live_started = time.monotonic()
        for name in projections.NAMES:
            projections.catch_up(conn, name, batch_size=1000)
        live_seconds = time.monotonic() - live_started
    child = subprocess.run(
        [sys.executable, "-c", _REBUILD_CHILD, database_url], cwd=ROOT, stdout=subprocess.PIPE, check=True
    )
    result = json.loads(child.stdout.decode().strip().splitlines()[-1])
    return [
        row(f"events written for the rebuild ({write_seconds:.0f} s)", written, "events"),
        row("live catch-up, all projections", written / live_seconds, "events/s"),
        *(
            row(f"rebuild {name} ({'equal' if equal else 'DIFFERENT'})", count / seconds, "events/s", REBUILD_TARGET)
            for name, count, seconds, equal in result["reports"]
        ),
        # One pass over the log per projection: the target applies to each pass (rows above).
        row(
            f"rebuild of all {len(projections.NAMES)} projections, log events per wall-clock second",
            written / sum(r[2] for r in result["reports"]),
            "events/s",
        ),
        row("rebuild process peak RSS", result["maxrss_kb"] / 1024, "MiB"),
    ]


def run() -> list[Row]:
    rows: list[Row] = []
    with private_redis() as redis_url, fresh_database() as url:
        # One writer shows the pipeline's own latency; four saturate both cores with appends.
        for writers in sorted({1, env_int("BENCH_LAG_WRITERS", 4)}):
            rows += measure_lag(url, redis_url, float(env_int("BENCH_LAG_SECONDS", 10)), writers)
    with fresh_database() as url:
        rows += measure_rebuild(url, env_int("BENCH_REBUILD_EVENTS", 200_000))
    return rows


if __name__ == "__main__":
    print_table(run())
