"""SIGTERM stops every process cleanly: relay, projection worker and gunicorn exit 0 after the work in hand.

The processes are started as in production (`python -m services.cli relay|worker`, and gunicorn with
`services.supervisor.gunicorn_command`) against the test database and a private redis-server.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from typing import Any

import psycopg
import pytest
import redis
from psycopg.rows import dict_row
from rq import Worker
from rq.command import send_shutdown_command

from infra import projections
from infra.config import Settings
from infra.event_store import EventStore
from infra.projections.checkpoint import checkpoint_name, read_position
from infra.projections.runner import catch_up_all
from infra.redis_bus import GLOBAL_STREAM
from services.projector.rebuild import rebuild
from services.relay import RELAY_POSITION
from services.supervisor import gunicorn_command
from tests.e2e.bots import call, register
from tests.faults.delayed import BATCH_DELAY_VARIABLE as DELAY_VARIABLE
from tests.faults.servers import ROOT, RedisServer, free_port, wait_until
from tests.faults.test_worker_killed import open_batch
from tests.faults.workload import play_tables

EXIT_WITHIN_S = 10.0


def cli(command: str, db_url: str, redis_url: str, **env: str) -> subprocess.Popen[bytes]:
    environ = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "DATABASE_URL": db_url,
        "REDIS_URL": redis_url,
        "CARDLEDGER_LOG_LEVEL": "INFO",
        "CARDLEDGER_RELAY_METRICS_PORT": "0",
        "CARDLEDGER_WORKER_METRICS_PORT": "0",
        **env,
    }
    return subprocess.Popen(
        [sys.executable, "-m", "tests.faults.delayed", "services.cli", command],
        cwd=ROOT,
        env=environ,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )


def sigterm_and_wait(process: subprocess.Popen[bytes], timeout: float = EXIT_WITHIN_S) -> tuple[int, str]:
    """SIGTERM, then the exit code and the output; kills the process (and fails) if it does not exit in time."""
    process.send_signal(signal.SIGTERM)
    try:
        output, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        output, _ = process.communicate()
        pytest.fail(f"no exit within {timeout} s of SIGTERM; output:\n{output.decode(errors='replace')[-4000:]}")
    return process.returncode, output.decode(errors="replace")


def metrics_text(port: int) -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as response:
        body: bytes = response.read()
    return body.decode()


@pytest.mark.slow
def test_relay_sigterm_finishes_its_batch_and_exits_0(
    store: EventStore, db_url: str, redis_server: RedisServer
) -> None:
    play_tables(store, count=20, deals=1, seed=91)  # several batches of 500
    port = free_port()
    relay = cli("relay", db_url, redis_server.url, CARDLEDGER_RELAY_METRICS_PORT=str(port))
    try:
        with psycopg.connect(db_url, autocommit=True, row_factory=dict_row) as conn:
            wait_until(
                lambda: read_position(conn, RELAY_POSITION).global_position > 0, timeout=30, what="a relayed batch"
            )
            text = metrics_text(port)
            assert "cardledger_relay_lag_events" in text and "cardledger_relay_lag_seconds" in text
            code, output = sigterm_and_wait(relay)
            assert code == 0, output
            # The stored position is the end of a published batch: every event up to it is in Redis.
            position = read_position(conn, RELAY_POSITION)
            row = conn.execute(
                "SELECT count(*) AS n FROM events WHERE (tx_id, global_position) <= (%s::text::xid8, %s)",
                (str(position.tx_id), position.global_position),
            ).fetchone()
            assert row is not None
            with redis_server.client() as client:
                assert client.xlen(GLOBAL_STREAM) >= row["n"] > 0
    finally:
        if relay.poll() is None:
            relay.kill()
            relay.communicate()
    assert '"msg":"relay active' in output  # JSON log lines


def models_match_checkpoints(conn: psycopg.Connection[dict[str, Any]]) -> None:
    """Each table_views row is at the version its checkpoint says: nothing half-applied, nothing lost."""
    position = read_position(conn, checkpoint_name("table_views"))
    row = conn.execute(
        """SELECT count(*) AS n FROM (
               SELECT stream_id, max(version) AS version FROM events
               WHERE (tx_id, global_position) <= (%s::text::xid8, %s) GROUP BY stream_id
           ) AS e FULL JOIN table_views AS t ON t.table_id = e.stream_id
           WHERE t.version IS DISTINCT FROM e.version""",
        (str(position.tx_id), position.global_position),
    ).fetchone()
    assert row is not None and row["n"] == 0


@pytest.mark.slow
def test_worker_sigterm_mid_batch_commits_the_batch_and_exits_0(
    store: EventStore, db_url: str, redis_server: RedisServer
) -> None:
    play_tables(store, count=12, deals=1, seed=92)  # more than one batch of 500 per projection
    worker = cli("worker", db_url, redis_server.url, **{DELAY_VARIABLE: "1.5"})
    try:
        wait_until(lambda: open_batch(db_url), timeout=30, what="a batch in progress")
        started = time.monotonic()
        code, output = sigterm_and_wait(worker)
        assert code == 0, output
        assert time.monotonic() - started < EXIT_WITHIN_S
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.communicate()
    assert not open_batch(db_url)
    with psycopg.connect(db_url, autocommit=True, row_factory=dict_row) as conn:
        newest = conn.execute("SELECT max(global_position) AS p FROM events").fetchone()
        assert newest is not None
        checkpoints = {n: read_position(conn, checkpoint_name(n)).global_position for n in projections.NAMES}
        assert checkpoints["table_views"] > 0, "the batch in progress was lost"
        assert min(checkpoints.values()) < newest["p"], "the worker did not stop between batches"
        models_match_checkpoints(conn)
        catch_up_all(conn)  # a restarted worker goes on from the checkpoints: the result equals a rebuild
    reports = rebuild(db_url, None, progress=False)
    assert all(report.equal for report in reports), [r.summary() for r in reports]


def test_worker_stops_on_rqs_shutdown_command_and_exits_0(db_url: str, redis_server: RedisServer) -> None:
    """`rq.command.send_shutdown_command` (RQ's public way to stop a worker by its name) reaches the projection
    worker: it listens for RQ's commands, and RQ turns a shutdown into a SIGINT to the process."""
    client = redis_server.client()
    worker = cli("worker", db_url, redis_server.url)
    try:
        wait_until(lambda: len(Worker.all(connection=client)) == 1, timeout=30, what="the worker registered")
        (registered,) = Worker.all(connection=client)
        started = time.monotonic()
        send_shutdown_command(client, registered.name)
        try:
            output, _ = worker.communicate(timeout=EXIT_WITHIN_S)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the worker did not stop within {EXIT_WITHIN_S} s of RQ's shutdown command")
        assert worker.returncode == 0, output.decode(errors="replace")[-4000:]
        assert time.monotonic() - started < EXIT_WITHIN_S
        assert Worker.all(connection=client) == []  # it registered its death
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.communicate()
        client.close()


@pytest.mark.slow
def test_gunicorn_sigterm_finishes_the_request_in_flight(
    migrated_database_url: str, redis_client: redis.Redis, redis_url: str
) -> None:
    port = free_port()
    settings = Settings(database_url=migrated_database_url, redis_url=redis_url, port=port, api_workers=2)
    environ = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "DATABASE_URL": migrated_database_url,
        "REDIS_URL": redis_url,
        "CARDLEDGER_LOG_LEVEL": "INFO",
    }
    environ.pop("PROMETHEUS_MULTIPROC_DIR", None)
    server = subprocess.Popen(
        gunicorn_command(settings), cwd=ROOT, env=environ, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    base = f"http://127.0.0.1:{port}"
    try:

        def healthy() -> bool:
            try:
                with urllib.request.urlopen(f"{base}/healthz", timeout=5) as response:
                    return bool(response.status == 200)
            except (urllib.error.URLError, OSError):
                return False

        wait_until(healthy, timeout=30, what="gunicorn answering")
        token = register(base, "slow")[1]
        table_id = call("POST", f"{base}/v1/tables", {"game": "cholek-tiga", "seats": 2, "options": {}}, token)["id"]
        result: dict[str, Any] = {}

        def slow_sit() -> None:  # blocks on the table's head row, which the test holds locked for ~2 s
            request = urllib.request.Request(
                f"{base}/v1/tables/{table_id}/seats",
                data=b"{}",
                method="POST",
                headers={
                    "Authorization": f"Bearer {token}",
                    "Content-Type": "application/json",
                    "X-Request-ID": "slow-request-1",
                },
            )
            started = time.monotonic()
            try:
                with urllib.request.urlopen(request, timeout=30) as response:
                    result["status"], result["request_id"] = response.status, response.headers["X-Request-ID"]
            except urllib.error.HTTPError as error:
                result["status"], result["request_id"] = error.code, error.headers["X-Request-ID"]
            result["seconds"] = time.monotonic() - started

        def release_after(lock: psycopg.Connection[Any], seconds: float) -> None:
            time.sleep(seconds)
            lock.commit()

        lock = psycopg.connect(migrated_database_url)
        lock.execute("SELECT version FROM streams WHERE stream_id = %s FOR UPDATE", (table_id,))
        thread = threading.Thread(target=slow_sit)
        thread.start()
        time.sleep(0.7)  # the request is in flight, waiting for the head row
        assert thread.is_alive()
        releaser = threading.Thread(target=release_after, args=(lock, 1.5))
        releaser.start()
        code, output = sigterm_and_wait(server, timeout=25)
        thread.join(timeout=10)
        releaser.join()
        lock.close()
        assert result.get("status") == 201, (result, output[-3000:])
        assert result["request_id"] == "slow-request-1"
        assert result["seconds"] >= 1.5
        assert code == 0, output[-3000:]
        assert '"logger":"gunicorn.access"' in output and '"request_id":"slow-request-1"' in output, output
    finally:
        if server.poll() is None:
            server.kill()
            server.communicate()
