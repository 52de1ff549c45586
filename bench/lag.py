"""Read-path benchmarks: event-to-projection lag under append load, and the rebuild rate.

`python -m bench.lag` prints a table; `run()` returns its rows as dicts
{"benchmark", "value", "target", "unit"}.

Servers: DATABASE_URL (default postgresql://postgres@127.0.0.1:5432/postgres)
names the PostgreSQL server; a throw-away database is created on it and dropped
at the end. Redis: a private `redis-server` on a free port (REDIS_URL when
no redis-server binary is found).

Settings (environment): BENCH_LAG_SECONDS (10), BENCH_LAG_WRITERS (4),
BENCH_REBUILD_EVENTS (200000).

Lag: writer threads play random Cha Kau Tsz games, one command per
transaction, while a relay and two projection workers run as subprocesses; a
sampler process polls table_views every 5 ms and records, for each append, the
time from its commit to the first sample showing that table at that version;
another reads the relay's global Redis stream as it grows (XREAD BLOCK) and
records when each append's last event arrived there (commit-to-published). The
relay's and the workers' CPU seconds (user + system, /proc/<pid>/stat) from
the writers' start until every append is seen, per event appended, are rows
too.

Rebuild: N events of interleaved games are written, projected live, and then
every projection is rebuilt in a subprocess (`services.projector.rebuild`),
whose peak RSS is reported.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import random
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import psycopg
import redis
from psycopg.rows import dict_row

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from infra import projections, redis_bus  # noqa: E402
from infra.db import open_pool  # noqa: E402
from infra.event_store import EventStore, NewEvent  # noqa: E402
from infra.migrations import migrate  # noqa: E402
from tests.conftest import fresh_database  # noqa: E402
from tests.faults.servers import RedisServer, redis_server_binary, spawn, terminate  # noqa: E402
from tests.faults.workload import TableGame  # noqa: E402

REBUILD_TARGET = 20_000  # events/s, from the issue


def _env_int(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip()
    return int(raw) if raw else default


@contextmanager
def _redis() -> Iterator[str]:
    try:
        redis_server_binary()
        available = True
    except RuntimeError:
        available = False
    if available:
        server = RedisServer()
        server.start()
        try:
            yield server.url
        finally:
            server.stop()
    else:
        yield os.environ["REDIS_URL"]


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


# Lag -----------------------------------------------------------------------


def measure_lag(database_url: str, redis_url: str, seconds: float, writers: int) -> list[dict[str, Any]]:
    pool = open_pool(database_url, min_size=2, max_size=writers + 2)
    store = EventStore(pool)
    commits: dict[tuple[str, int], float] = {}
    lock = threading.Lock()
    stop = threading.Event()
    appended = [0]

    def write(w: int) -> None:
        rng = random.Random(w)
        n = 0
        game: TableGame | None = None
        while not stop.is_set():
            if game is None or game.finished:
                game = TableGame(f"lag{writers}-{w}-{n}", seats=rng.choice([2, 3, 4]), deals=2, rng=rng)
                n += 1
            version = 0 if game.state is None else game.state.version
            new = game.advance(game.step())
            store.append(game.table_id, version, new)
            now = time.monotonic()
            assert game.state is not None
            with lock:
                commits[(game.table_id, game.state.version)] = now
                appended[0] += len(new)

    services = [spawn("services.relay", database_url, redis_url)]
    services += [spawn("services.projector", database_url, redis_url) for _ in range(2)]
    context = multiprocessing.get_context("spawn")
    ours, theirs = context.Pipe()
    sampler = context.Process(target=sample_versions, args=(database_url, theirs), daemon=True)
    ours_published, theirs_published = context.Pipe()
    reader = context.Process(target=sample_published, args=(redis_url, theirs_published), daemon=True)
    sampler.start()
    reader.start()
    try:
        ours.recv()  # the sampler is connected and sampling
        ours_published.recv()
        time.sleep(2.0)  # let the services start
        threads = [threading.Thread(target=write, args=(w,)) for w in range(writers)]
        cpu_before = [cpu_seconds(process.pid) for process in services]
        started = time.monotonic()
        for t in threads:
            t.start()
        time.sleep(seconds)
        stop.set()
        for t in threads:
            t.join()
        elapsed = time.monotonic() - started
        finals: dict[str, int] = {}
        for table_id, version in commits:
            finals[table_id] = max(version, finals.get(table_id, 0))
        ours.send(finals)
        ours_published.send(finals)
        seen = first_seen(commits, ours.recv())
        published = first_seen(commits, ours_published.recv())
        cpu = [cpu_seconds(process.pid) - before for process, before in zip(services, cpu_before, strict=True)]
        sampler.join()
        reader.join()
    finally:
        for child in (sampler, reader):
            if child.is_alive():
                child.kill()
        for process in services:
            terminate(process)
        pool.close()
    lags = [(seen[key] - commits[key]) * 1000 for key in commits if key in seen]
    missing = len(commits) - len(lags)
    relayed = [(published[key] - commits[key]) * 1000 for key in commits if key in published]
    events = max(appended[0], 1)
    return [
        {
            "benchmark": f"commit-to-published (Redis) lag p50, {writers} writers",
            "value": statistics.median(relayed) if relayed else float("nan"),
            "target": None,
            "unit": "ms",
        },
        {
            "benchmark": f"commit-to-published (Redis) lag p99, {writers} writers",
            "value": _percentile(relayed, 0.99) if relayed else float("nan"),
            "target": None,
            "unit": "ms",
        },
        {
            "benchmark": f"relay CPU per event, {writers} writers",
            "value": cpu[0] / events * 1e6,
            "target": None,
            "unit": "us",
        },
        {
            "benchmark": f"projection workers' CPU per event (both), {writers} writers",
            "value": sum(cpu[1:]) / events * 1e6,
            "target": None,
            "unit": "us",
        },
        {
            "benchmark": f"append load (events/s, {writers} writers)",
            "value": appended[0] / elapsed,
            "target": None,
            "unit": "events/s",
        },
        {
            "benchmark": f"event-to-table_view lag p50, {writers} writers",
            "value": statistics.median(lags),
            "target": None,
            "unit": "ms",
        },
        {
            "benchmark": f"event-to-table_view lag p99, {writers} writers",
            "value": _percentile(lags, 0.99),
            "target": 100,
            "unit": "ms (max)",
        },
        {
            "benchmark": f"appends never seen in table_views, {writers} writers",
            "value": missing,
            "target": 0,
            "unit": "appends (max)",
        },
    ]


def sample_versions(database_url: str, pipe: Connection, interval: float = 0.005, grace: float = 30.0) -> None:
    """In a process of its own (the writers' threads would hold up its clock readings): read every table's
    version from table_views every `interval` s, recording (version, time) whenever a table's version moves,
    until it is sent the final version of each table and has seen them all (or `grace` s have passed);
    then send back the records. Times are time.monotonic(), which every process of the machine shares."""
    records: dict[str, list[tuple[int, float]]] = {}
    with psycopg.connect(database_url, autocommit=True) as conn:
        pipe.send("sampling")
        finals: dict[str, int] | None = None
        deadline = 0.0
        while True:
            rows = conn.execute("SELECT table_id, version FROM table_views").fetchall()
            now = time.monotonic()
            for table_id, version in rows:
                record_version(records, table_id, version, now)
            if finals is None and pipe.poll():
                finals = pipe.recv()
                deadline = now + grace
            if finals is not None and sampled_enough(records, finals, deadline, now):
                break
            time.sleep(interval)
    pipe.send(records)


def record_version(records: dict[str, list[tuple[int, float]]], table_id: str, version: int, now: float) -> None:
    """Note that `table_id` was first seen at `version` at `now` (records start at (0, 0.0))."""
    seen = records.setdefault(table_id, [(0, 0.0)])
    if version > seen[-1][0]:
        seen.append((version, now))


def sampled_enough(
    records: dict[str, list[tuple[int, float]]], finals: dict[str, int], deadline: float, now: float
) -> bool:
    """Every table reached its final version, or the grace period after the finals arrived has run out."""
    return now > deadline or all(records.get(t, [(0, 0.0)])[-1][0] >= v for t, v in finals.items())


def sample_published(redis_url: str, pipe: Connection, grace: float = 30.0) -> None:
    """In a process of its own: read the relay's global stream as it grows, recording (version, time) per table
    as `sample_versions` does, until it is sent the final version of each table and has seen them all (or
    `grace` s have passed); then send back the records."""
    client = redis.Redis.from_url(redis_url)
    records: dict[str, list[tuple[int, float]]] = {}
    last_id = "$"
    pipe.send("reading")
    finals: dict[str, int] | None = None
    deadline = 0.0
    while True:
        entries = redis_bus.read_stream(client, redis_bus.GLOBAL_STREAM, last_id, count=1000, block_ms=50)
        now = time.monotonic()
        for entry_id, body in entries:
            last_id = entry_id
            version = body["version"]
            if isinstance(version, int):
                record_version(records, str(body["table_id"]), version, now)
        if finals is None and pipe.poll():
            finals = pipe.recv()
            deadline = now + grace
        if finals is not None and sampled_enough(records, finals, deadline, now):
            break
    client.close()
    pipe.send(records)


def cpu_seconds(pid: int) -> float:
    """User and system CPU seconds of process `pid` so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def first_seen(
    commits: dict[tuple[str, int], float], records: dict[str, list[tuple[int, float]]]
) -> dict[tuple[str, int], float]:
    """For each committed (table, version), the first sample time at which the table showed that version or
    a later one."""
    seen = {}
    for table_id, version in commits:
        for shown, at in records.get(table_id, ()):
            if shown >= version:
                seen[(table_id, version)] = at
                break
    return seen


# Rebuild -------------------------------------------------------------------


def write_games(database_url: str, events: int, writers: int = 4, chunk: int = 12) -> int:
    """At least `events` events of 2-deal games, tables interleaved in chunks of `chunk` events."""
    pool = open_pool(database_url, min_size=writers, max_size=writers)
    store = EventStore(pool)
    per_writer = events // writers + 1
    counts = [0] * writers

    def write(w: int) -> None:
        rng = random.Random(1000 + w)
        live: list[tuple[TableGame, list[NewEvent], int]] = []
        n = 0
        while counts[w] < per_writer or live:
            while counts[w] < per_writer and len(live) < 16:
                game = TableGame(f"rb-{w}-{n}", seats=rng.choice([2, 3, 4]), deals=2, rng=rng)
                n += 1
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

    threads = [threading.Thread(target=write, args=(w,)) for w in range(writers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    pool.close()
    return sum(counts)


_REBUILD_CHILD = """
import json, resource, sys
from services.projector.rebuild import rebuild
reports = rebuild(sys.argv[1], None, progress=True)
print(json.dumps({"reports": [[r.name, r.events, r.seconds, r.equal] for r in reports],
                  "maxrss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
"""


def measure_rebuild(database_url: str, events: int) -> list[dict[str, Any]]:
    started = time.monotonic()
    written = write_games(database_url, events)
    write_seconds = time.monotonic() - started
    with psycopg.connect(database_url, autocommit=True, row_factory=dict_row) as conn:
        live_started = time.monotonic()
        for name in projections.NAMES:
            projections.catch_up(conn, name, batch_size=1000)
        live_seconds = time.monotonic() - live_started
    child = subprocess.run(
        [sys.executable, "-c", _REBUILD_CHILD, database_url],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        check=True,
    )
    result = json.loads(child.stdout.decode().strip().splitlines()[-1])
    reports = result["reports"]
    total_seconds = sum(r[2] for r in reports)
    rows: list[dict[str, Any]] = [
        {
            "benchmark": f"events written for the rebuild ({write_seconds:.0f} s)",
            "value": written,
            "target": None,
            "unit": "events",
        },
        {
            "benchmark": "live catch-up, all projections",
            "value": written / live_seconds,
            "target": None,
            "unit": "events/s",
        },
    ]
    for name, count, seconds, equal in reports:
        rows.append(
            {
                "benchmark": f"rebuild {name} ({'equal' if equal else 'DIFFERENT'})",
                "value": count / seconds,
                "target": REBUILD_TARGET,
                "unit": "events/s",
            }
        )
    rows.append(
        {
            # One pass over the log per projection: the target applies to each pass (rows above).
            "benchmark": f"rebuild of all {len(projections.NAMES)} projections, log events per wall-clock second",
            "value": written / total_seconds,
            "target": None,
            "unit": "events/s",
        }
    )
    rows.append(
        {"benchmark": "rebuild process peak RSS", "value": result["maxrss_kb"] / 1024, "target": None, "unit": "MiB"}
    )
    return rows


def run() -> list[dict[str, Any]]:
    server_url = os.environ.get("DATABASE_URL", "").strip() or "postgresql://postgres@127.0.0.1:5432/postgres"
    rows: list[dict[str, Any]] = []
    with _redis() as redis_url:
        with fresh_database(server_url, prefix="cardledger_bench") as url:
            migrate(url)
            # One writer shows the pipeline's own latency; four saturate both cores with appends.
            for writers in sorted({1, _env_int("BENCH_LAG_WRITERS", 4)}):
                rows += measure_lag(url, redis_url, float(_env_int("BENCH_LAG_SECONDS", 10)), writers)
        with fresh_database(server_url, prefix="cardledger_bench") as url:
            migrate(url)
            rows += measure_rebuild(url, _env_int("BENCH_REBUILD_EVENTS", 200_000))
    return rows


def print_table(rows: list[dict[str, Any]]) -> None:
    width = max(len(r["benchmark"]) for r in rows)
    print(f"{'benchmark':<{width}}  {'value':>12}  {'target':>10}  unit")
    for r in rows:
        value = r["value"]
        shown = f"{value:,.1f}" if isinstance(value, float) else f"{value:,}"
        target = "" if r["target"] is None else f"{r['target']:,}"
        print(f"{r['benchmark']:<{width}}  {shown:>12}  {target:>10}  {r['unit']}")


if __name__ == "__main__":
    print_table(run())
