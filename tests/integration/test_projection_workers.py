"""Projection workers with the relay: RQ jobs (delivered twice), the polling fallback through a Redis outage."""

from __future__ import annotations

import dataclasses
import importlib
import itertools
import json
import logging
import threading
import time
import zlib
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
import redis
from redis.client import PubSubWorkerThread
from rq import Queue

from infra import projections, redis_bus
from infra.event_store import EventStore
from infra.projections import ProjectionCaches
from infra.queueing import CATCH_UP_ALL_JOB, JOB_SERIALIZER, enqueue_projections
from services.projector import jobs
from services.projector.rebuild import rebuild
from services.projector.worker import QUEUE, run_worker, work
from services.relay import Relay
from tests.faults.delayed import pause_of
from tests.faults.servers import RedisServer, wait_until
from tests.faults.workload import TableGame, play_tables
from tests.horizon import wait_until_readable

Conn = psycopg.Connection[dict[str, Any]]


def caught_up(conn: Conn) -> bool:
    row = conn.execute(
        """SELECT count(*) AS behind FROM log_positions p
           WHERE p.name LIKE 'projection:%%'
             AND p.global_position <> (SELECT max(global_position) FROM events)"""
    ).fetchone()
    named = conn.execute("SELECT count(*) AS n FROM log_positions WHERE name LIKE 'projection:%%'").fetchone()
    assert row is not None and named is not None
    return int(named["n"]) == len(projections.NAMES) and int(row["behind"]) == 0


def table_views_current(conn: Conn) -> bool:
    row = conn.execute(
        """SELECT count(*) AS stale FROM streams s LEFT JOIN table_views v ON v.table_id = s.stream_id
           WHERE v.version IS DISTINCT FROM s.version"""
    ).fetchone()
    assert row is not None
    return int(row["stale"]) == 0


class Running:
    """Threads running a service function until stopped."""

    def __init__(self) -> None:
        self.stop = threading.Event()
        self.threads: list[threading.Thread] = []

    def start(self, target: Any, *args: Any) -> None:
        thread = threading.Thread(target=target, args=(*args, self.stop), daemon=True)
        thread.start()
        self.threads.append(thread)

    def close(self) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(timeout=30)
            assert not thread.is_alive(), f"{thread.name} did not stop"


@pytest.fixture
def running() -> Iterator[Running]:
    r = Running()
    yield r
    r.close()


@pytest.mark.slow
def test_relay_and_two_workers_keep_models_current(
    store: EventStore, db_url: str, conn: Conn, redis_server: RedisServer, running: Running
) -> None:
    running.start(lambda d, r, s: Relay(d, r, s, poll_interval=0.05).run(), db_url, redis_server.url)
    running.start(run_worker, db_url, redis_server.url)
    running.start(run_worker, db_url, redis_server.url)
    play_tables(store, count=8, deals=2, seed=31)
    wait_until(lambda: caught_up(conn) and table_views_current(conn), timeout=60, what="projections caught up")
    running.close()
    assert all(report.equal for report in rebuild(db_url, None, progress=False))


def test_every_rq_job_delivered_twice_changes_nothing_twice(
    store: EventStore, db_url: str, conn: Conn, redis_server: RedisServer
) -> None:
    jobs.configure(db_url)
    client = redis_server.client()
    queue = Queue(QUEUE, connection=client, serializer=JOB_SERIALIZER)
    play_tables(store, count=4, deals=2, seed=41)
    wait_until_readable(db_url)  # the jobs find every event played
    for _ in range(2):
        for name in projections.NAMES:
            queue.enqueue("services.projector.jobs.catch_up", name, result_ttl=0)
            queue.enqueue("services.projector.jobs.catch_up", name, result_ttl=0)
    threads = [
        threading.Thread(target=work, args=(redis_server.client(), threading.Event()), kwargs={"burst": True})
        for _ in range(2)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert queue.count == 0
    assert caught_up(conn)
    ledger = conn.execute("SELECT count(*) AS n, sum(abs(amount)) AS total FROM ledger_lines").fetchone()
    assert all(report.equal for report in rebuild(db_url, None, progress=False))
    assert conn.execute("SELECT count(*) AS n, sum(abs(amount)) AS total FROM ledger_lines").fetchone() == ledger
    lines = conn.execute("SELECT count(*) AS n FROM ledger_lines").fetchone()
    transfers = conn.execute(
        "SELECT coalesce(sum(json_array_length(data -> 'transfers')), 0) AS n FROM events"
        " WHERE data -> 'transfers' IS NOT NULL"
    ).fetchone()
    assert lines is not None and transfers is not None and lines["n"] == 2 * transfers["n"]
    jobs.close_connection()
    client.close()


def commands_while_a_job_runs(
    store: EventStore, client: redis.Redis, redis_server: RedisServer, table_id: str, commands: int = 30
) -> list[int]:
    """Run a burst RQ worker in a thread; once its job holds the "looking" key, play a command of a new table
    every 0.05 s and ask to enqueue a job after each (the key must stay held); then wait for the worker.
    Returns what each enqueue gave."""
    thread = threading.Thread(target=work, args=(redis_server.client(), threading.Event()), kwargs={"burst": True})
    thread.start()
    wait_until(lambda: bool(client.exists(redis_bus.PROJECTIONS_LOOKING_KEY)), what="the job looking")
    played = TableGame(table_id, seats=3).play_into(store)
    enqueued = []
    for _ in range(commands):
        next(played)
        assert client.exists(redis_bus.PROJECTIONS_LOOKING_KEY)
        enqueued.append(enqueue_projections(client))
        time.sleep(0.05)
    thread.join(timeout=60)
    assert not thread.is_alive()
    return enqueued


def counted(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str) -> list[float]:
    """Record when `owner.name` is called (replaced for the test); the list of the calls' times."""
    calls: list[float] = []
    real = getattr(owner, name)

    def recorded(*args: Any, **kwargs: Any) -> Any:
        calls.append(time.monotonic())
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, recorded)
    return calls


def test_a_job_goes_on_while_events_come_and_the_relay_enqueues_none_meanwhile(
    store: EventStore, db_url: str, conn: Conn, redis_server: RedisServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(projections.runner, "before_batch_commit", pause_of(0.1, "in a round"))  # 0.1 s or more
    monkeypatch.setattr(jobs, "RENEW_SECONDS", 0.5)
    # Between the job's first round (the played tables) and the first command the test plays, a loaded machine
    # can leave more than the usual 0.05 s: the job would stop before the commands it is to take in.
    monkeypatch.setattr(jobs, "IDLE_SECONDS", 0.5)
    rounds, renewals = counted(monkeypatch, jobs.projections, "catch_up_all"), counted(monkeypatch, jobs, "_hold")
    jobs.configure(db_url)
    client = redis_server.client()
    play_tables(store, count=1, deals=1, seed=45)
    wait_until_readable(db_url)  # a job's first round finds every event played
    assert enqueue_projections(client) == 1
    assert enqueue_projections(client) == 0  # one is waiting
    # A command every 0.05 s, while the job runs: each of its rounds finds some.
    refused = commands_while_a_job_runs(store, client, redis_server, "while-looking")
    assert set(refused) == {0}
    assert 1 <= len(renewals) < len(rounds) - 1  # the key is renewed every 0.5 s, not at each round
    assert not client.exists(redis_bus.PROJECTIONS_LOOKING_KEY)
    assert Queue(QUEUE, connection=client, serializer=JOB_SERIALIZER).count == 0  # no job but the first ran
    assert caught_up(conn) and table_views_current(conn)  # its last look took in every event
    assert enqueue_projections(client) == 1
    jobs.close_connection()
    client.close()


def test_a_job_that_has_gone_on_long_enough_hands_on_to_a_successor_at_the_front_of_the_queue(
    store: EventStore, db_url: str, conn: Conn, redis_server: RedisServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(projections.runner, "before_batch_commit", pause_of(0.05, "in a round"))  # 0.05 s or more
    monkeypatch.setattr(jobs, "LOOP_SECONDS", 0.3)
    client = redis_server.client()
    queue = Queue(QUEUE, connection=client, serializer=JOB_SERIALIZER)
    played = TableGame("handed-on", seats=3).play_into(store)
    commands = 30  # one readable before each round: 1.5 s of rounds or more, five times the time one job goes on
    runs: list[tuple[str, Any]] = []  # (id, what it succeeds) of the jobs run, in order
    holders: list[tuple[str, bytes | None]] = []  # (job, holder of the "looking" key) at each round with a command
    handed_on: list[tuple[str, bytes | None, list[str]]] = []  # (job, key's holder, queue) just after a hand-on
    behind: list[str] = []  # a job enqueued while the first job ran: each successor goes before it
    run_job, round_of, hand_on = jobs._catch_up_while_events_come, jobs.projections.catch_up_all, jobs._hand_on

    def recorded(job: Any, on_batch: Any) -> dict[str, int]:
        runs.append((job.id, job.meta.get("successor_of")))
        return run_job(job, on_batch)

    def round_with_a_new_command(*args: Any, **kwargs: Any) -> dict[str, int]:
        # Each round finds an event (rather than racing a player's pace on a busy machine), so the only way a
        # job ends is its hand-on, until the commands run out.
        nonlocal commands
        job = jobs._current_job()
        if job is not None and commands > 0:
            commands -= 1
            next(played)
            wait_until_readable(db_url)
            holders.append((job.id, client.get(redis_bus.PROJECTIONS_LOOKING_KEY)))
            if not behind:
                behind.append(queue.enqueue("services.projector.jobs.catch_up", "ledger", result_ttl=0).id)
        return round_of(*args, **kwargs)

    def recorded_hand_on(job: Any) -> bool:
        handed = hand_on(job)
        assert handed
        handed_on.append((job.id, client.get(redis_bus.PROJECTIONS_LOOKING_KEY), queue.get_job_ids()))
        return handed

    monkeypatch.setattr(jobs, "_catch_up_while_events_come", recorded)
    monkeypatch.setattr(jobs.projections, "catch_up_all", round_with_a_new_command)
    monkeypatch.setattr(jobs, "_hand_on", recorded_hand_on)
    jobs.configure(db_url)
    play_tables(store, count=1, deals=1, seed=46)
    wait_until_readable(db_url)  # a job's first round finds every event played
    assert enqueue_projections(client) == 1
    work(redis_server.client(), threading.Event(), burst=True)
    assert commands == 0
    assert len(runs) >= 3  # the first job and its successors, one after another
    assert [succeeds for _, succeeds in runs[1:]] == [id for id, _ in runs[:-1]]
    # Each job but the last handed the key to the next and put it at the front of the queue, then ended.
    assert handed_on == [
        (job, successor.encode(), [successor, *behind]) for (job, _), (successor, _) in itertools.pairwise(runs)
    ]
    # Every round with a command ran with the key held by its own job (handed on, never let go between jobs).
    assert [holder for _, holder in holders] == [job.encode() for job, _ in holders]
    # Every job had rounds with a command, but perhaps the last: one handed on to just as the commands ran out.
    assert list(dict.fromkeys(job for job, _ in holders)) in ([id for id, _ in runs], [id for id, _ in runs[:-1]])
    assert not client.exists(redis_bus.PROJECTIONS_LOOKING_KEY)  # the last one found nothing more and let go
    assert queue.count == 0  # the job behind ran too
    assert caught_up(conn) and table_views_current(conn)
    jobs.close_connection()
    client.close()


def test_a_job_that_finds_another_looking_leaves_the_catching_up_to_it(
    store: EventStore, db_url: str, conn: Conn, redis_server: RedisServer
) -> None:
    jobs.configure(db_url)
    client = redis_server.client()
    play_tables(store, count=1, deals=1, seed=47)
    wait_until_readable(db_url)  # a job's first round finds every event played
    assert redis_bus.hold_looking(client, "another-job", 10_000)
    Queue(QUEUE, connection=client, serializer=JOB_SERIALIZER).enqueue(
        "services.projector.jobs.catch_up_all", result_ttl=0
    )
    work(redis_server.client(), threading.Event(), burst=True)
    assert not caught_up(conn)  # left to the holder
    assert client.get(redis_bus.PROJECTIONS_LOOKING_KEY) == b"another-job"
    assert redis_bus.release_looking(client, "another-job")
    assert enqueue_projections(client) == 1
    work(redis_server.client(), threading.Event(), burst=True)
    assert caught_up(conn) and table_views_current(conn)
    assert not client.exists(redis_bus.PROJECTIONS_LOOKING_KEY)
    jobs.close_connection()
    client.close()


def command_listeners() -> list[threading.Thread]:
    """The threads RQ workers listen for commands on (redis-py's pubsub threads), alive now."""
    return [t for t in threading.enumerate() if isinstance(t, PubSubWorkerThread) and t.is_alive()]


@pytest.mark.slow
def test_polling_fallback_catches_up_through_a_redis_outage(
    store: EventStore, db_url: str, conn: Conn, redis_server: RedisServer, running: Running
) -> None:
    listening_before = set(command_listeners())
    running.start(lambda d, r, s: Relay(d, r, s, poll_interval=0.05, max_backoff=0.5).run(), db_url, redis_server.url)
    running.start(run_worker, db_url, redis_server.url)
    play_tables(store, count=3, deals=1, seed=51)
    wait_until(lambda: caught_up(conn), timeout=30, what="caught up before the outage")
    redis_server.stop()
    play_tables(store, count=3, deals=1, seed=52)  # appends succeed without Redis
    wait_until(lambda: caught_up(conn) and table_views_current(conn), timeout=30, what="fallback caught up")
    redis_server.start()
    play_tables(store, count=3, deals=1, seed=53)
    wait_until(lambda: caught_up(conn) and table_views_current(conn), timeout=30, what="caught up after the outage")
    client = redis_server.client()
    wait_until(lambda: client.xlen("cardledger:events") > 0, timeout=30, what="relay publishing again")
    client.close()
    running.close()
    left = set(command_listeners()) - listening_before
    assert not left, "RQ's command listener of a worker that lost Redis is still running"
    assert all(report.equal for report in rebuild(db_url, None, progress=False))


def test_rq_job_runs_from_another_process_with_database_url(
    store: EventStore, db_url: str, conn: Conn, redis_server: RedisServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A plain `rq worker` process finds the database through DATABASE_URL."""
    import subprocess
    import sys

    from tests.faults.servers import ROOT

    play_tables(store, count=2, deals=1, seed=61)
    wait_until_readable(db_url)  # a job's first round finds every event played
    client = redis_server.client()
    queue = Queue(QUEUE, connection=client, serializer=JOB_SERIALIZER)
    for name in projections.NAMES:
        queue.enqueue("services.projector.jobs.catch_up", name, result_ttl=0)
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "DATABASE_URL": db_url}
    subprocess.run(
        [
            sys.executable,
            "-m",
            "rq.cli",
            "worker",
            "--burst",
            "--serializer",
            "rq.serializers.JSONSerializer",
            "--url",
            redis_server.url,
            QUEUE,
        ],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        timeout=120,
    )
    assert caught_up(conn)
    client.close()


def test_worker_survives_redis_absent_at_start(store: EventStore, db_url: str, conn: Conn, running: Running) -> None:
    server = RedisServer()  # never started
    running.start(run_worker, db_url, server.url)
    play_tables(store, count=2, deals=1, seed=71)
    wait_until(lambda: caught_up(conn), timeout=30, what="fallback caught up without Redis")
    assert isinstance(redis.Redis, type)


def test_a_failing_projection_does_not_hold_the_others_back(
    store: EventStore, db_url: str, conn: Conn, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The catch-up-all job shares batches between projections; when that fails, each projection catches up on
    its own, and the failure is raised once the others are done (so RQ records the job as failed)."""
    jobs.configure(db_url)
    play_tables(store, count=2, deals=1, seed=61)
    wait_until_readable(db_url)  # a job's first round finds every event played
    total = conn.execute("SELECT count(*) AS n FROM events").fetchone()
    assert total is not None
    ledger = projections.PROJECTIONS["ledger"]

    def broken(c: Conn, events: list[Any], caches: ProjectionCaches) -> None:
        raise RuntimeError("ledger projection bug")

    monkeypatch.setitem(projections.PROJECTIONS, "ledger", dataclasses.replace(ledger, apply=broken))
    with pytest.raises(RuntimeError, match="ledger projection bug"):
        jobs.catch_up_all()
    positions = {
        row["name"]: row["global_position"]
        for row in conn.execute("SELECT name, global_position FROM log_positions WHERE name LIKE 'projection:%%'")
    }
    behind = [name for name in projections.NAMES if positions[f"projection:{name}"] < max(positions.values())]
    assert behind == ["ledger"], positions
    assert conn.execute("SELECT count(*) AS n FROM ledger_lines").fetchone() == {"n": 0}
    monkeypatch.undo()
    assert jobs.catch_up_all()["ledger"] == total["n"]
    assert caught_up(conn)
    jobs.close_connection()


def test_the_worker_runs_a_job_without_rqs_line_per_job(
    store: EventStore, db_url: str, conn: Conn, redis_server: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    """RQ logs each job at INFO; the worker keeps its loggers at WARNING, so a process logging at INFO does not
    get a line per projection job (as `Worker.work(logging_level="WARNING")` had it)."""
    jobs.configure(db_url)
    client = redis_server.client()
    play_tables(store, count=1, deals=1, seed=48)
    wait_until_readable(db_url)
    assert enqueue_projections(client) == 1
    with caplog.at_level(logging.INFO):
        assert work(redis_server.client(), threading.Event(), burst=True) == 1
    assert caught_up(conn)
    assert [r.getMessage() for r in caplog.records if r.name.startswith("rq.") and r.levelno < logging.WARNING] == []
    jobs.close_connection()
    client.close()


def test_a_pickled_job_written_to_redis_is_never_run(tmp_path: Any, redis_server: RedisServer) -> None:
    """Whoever can write to Redis must not run code in the workers: RQ's default serializer would unpickle
    (and so call) whatever a job holds; the workers read jobs as JSON and fail such a job unrun."""
    import pathlib

    client = redis_server.client()
    planted = tmp_path / "planted"
    Queue(QUEUE, connection=client).enqueue(pathlib.Path.touch, planted, result_ttl=0)  # pickled: RQ's default
    work(redis_server.client(), threading.Event(), burst=True)
    assert not planted.exists()
    assert Queue(QUEUE, connection=client, serializer=JOB_SERIALIZER).count == 0
    client.close()


def test_the_relay_enqueues_json_jobs(redis_server: RedisServer) -> None:
    client = redis_server.client()
    assert enqueue_projections(client) == 1
    (key,) = [key for key in client.keys("rq:job:*") if b":" not in key.removeprefix(b"rq:job:")]
    data = client.hget(key, "data")
    assert data is not None
    assert json.loads(zlib.decompress(data)) == ["services.projector.jobs.catch_up_all", None, [], {}]
    client.close()


def test_the_job_name_on_the_queue_is_the_catch_up_function_of_the_workers() -> None:
    module, _, function = CATCH_UP_ALL_JOB.rpartition(".")
    assert getattr(importlib.import_module(module), function) is jobs.catch_up_all
