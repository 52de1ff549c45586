"""gunicorn as `cardledger api` runs it: followers of a table's stream never take the threads of requests."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
import redis

from infra.config import Settings
from services.supervisor import gunicorn_command
from tests.faults.servers import ROOT, free_port, wait_until


def _request(base: str, method: str, path: str, body: Any = None, token: str | None = None) -> Any:
    request = urllib.request.Request(
        base + path, data=None if body is None else json.dumps(body).encode(), method=method
    )
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    return urllib.request.urlopen(request, timeout=5)


@pytest.fixture
def api(migrated_database_url: str, redis_client: redis.Redis, redis_url: str) -> Iterator[str]:
    """One gunicorn worker serving 1 request and following 2 streams at once."""
    port = free_port()
    settings = Settings(database_url=migrated_database_url, redis_url=redis_url, port=port, api_workers=1)
    environ = {**os.environ, "PYTHONPATH": str(ROOT), "DATABASE_URL": migrated_database_url, "REDIS_URL": redis_url}
    environ.pop("PROMETHEUS_MULTIPROC_DIR", None)
    command = gunicorn_command(settings, threads=1, streams=2)
    server = subprocess.Popen(
        command, cwd=ROOT, env=environ, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    base = f"http://127.0.0.1:{port}"

    def healthy() -> bool:
        try:
            with _request(base, "GET", "/healthz") as response:
                return bool(response.status == 200)
        except (urllib.error.URLError, OSError):
            return False

    try:
        wait_until(healthy, timeout=30, what="gunicorn answering")
        yield base
    finally:
        # Not a shutdown test (tests/faults/test_shutdown.py is): a graceful stop would wait for the streams.
        os.killpg(server.pid, signal.SIGKILL)
        server.wait(timeout=30)


@pytest.mark.slow
def test_open_streams_leave_requests_served_and_one_stream_too_many_is_refused(api: str) -> None:
    with _request(api, "POST", "/v1/players", {"name": "follower"}) as response:
        token = json.loads(response.read())["token"]
    with _request(api, "POST", "/v1/tables", {"game": "cholek-tiga", "seats": 2}, token) as response:
        table = json.loads(response.read())["id"]
    streams = [_request(api, "GET", f"/v1/tables/{table}/stream", token=token) for _ in range(2)]
    try:
        assert all(stream.status == 200 for stream in streams)
        assert all(stream.readline().startswith(b"retry:") for stream in streams)  # both are being served
        with _request(api, "GET", f"/v1/tables/{table}", token=token) as response:
            assert response.status == 200 and json.loads(response.read())["id"] == table
        with _request(api, "GET", "/healthz") as response:
            assert response.status == 200
        with pytest.raises(urllib.error.HTTPError) as refused:
            _request(api, "GET", f"/v1/tables/{table}/stream", token=token)
        assert refused.value.code == 503
        assert refused.value.headers["Retry-After"] == "5"
        assert json.loads(refused.value.read())["code"] == "stream_busy"
    finally:
        for stream in streams:
            stream.close()
