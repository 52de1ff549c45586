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
from tests.e2e.bots import register
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
    yield from _gunicorn(migrated_database_url, redis_url, threads=1, streams=2)


@pytest.fixture
def crowded_api(migrated_database_url: str, redis_client: redis.Redis, redis_url: str) -> Iterator[str]:
    """One gunicorn worker following 24 streams at once, 16 of them kept for seated players, 4 for the bystanders of
    one address; no rate limits."""
    extra = {
        "CARDLEDGER_API_STREAMS_RESERVED": "16",
        "CARDLEDGER_API_STREAMS_PER_ADDRESS": "4",
        "CARDLEDGER_RATE_LIMITS": "off",
    }
    yield from _gunicorn(migrated_database_url, redis_url, threads=8, streams=24, **extra)


def _gunicorn(database_url: str, redis_url: str, threads: int, streams: int, **extra: str) -> Iterator[str]:
    port = free_port()
    settings = Settings(database_url=database_url, redis_url=redis_url, port=port, api_workers=1)
    environ = {**os.environ, "PYTHONPATH": str(ROOT), "DATABASE_URL": database_url, "REDIS_URL": redis_url, **extra}
    environ.pop("PROMETHEUS_MULTIPROC_DIR", None)
    environ["CARDLEDGER_API_METRICS_PORT"] = "0"
    command = gunicorn_command(settings, threads=threads, streams=streams)
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
    """Two stream slots, one kept for the players of a table: a bystander takes the other, a second bystander is
    refused though a slot is free, the seated player still gets its stream, and then the worker is full."""
    player, follower, another = register(api, "player")[1], register(api, "follower")[1], register(api, "another")[1]
    with _request(api, "POST", "/v1/tables", {"game": "cholek-tiga", "seats": 2}, player) as response:
        table = json.loads(response.read())["id"]
    with _request(api, "POST", f"/v1/tables/{table}/seats", {"seat": 0}, player) as response:
        assert response.status == 201
    streams = [_request(api, "GET", f"/v1/tables/{table}/stream", token=follower)]
    try:
        with pytest.raises(urllib.error.HTTPError) as kept:
            _request(api, "GET", f"/v1/tables/{table}/stream", token=another)
        assert kept.value.code == 503 and json.loads(kept.value.read())["code"] == "stream_busy"
        streams.append(_request(api, "GET", f"/v1/tables/{table}/stream", token=player))
        assert all(stream.status == 200 for stream in streams)
        assert all(stream.readline().startswith(b"retry:") for stream in streams)  # both are being served
        with _request(api, "GET", f"/v1/tables/{table}", token=follower) as response:
            assert response.status == 200 and json.loads(response.read())["id"] == table
        with _request(api, "GET", "/healthz") as response:
            assert response.status == 200
        with pytest.raises(urllib.error.HTTPError) as refused:
            _request(api, "GET", f"/v1/tables/{table}/stream", token=player)
        assert refused.value.code == 503
        assert refused.value.headers["Retry-After"] == "5"
        assert json.loads(refused.value.read())["code"] == "stream_busy"
    finally:
        for stream in streams:
            stream.close()


@pytest.mark.slow
def test_bystanders_from_many_tokens_never_crowd_out_the_players_of_eight_tables(crowded_api: str) -> None:
    """18 bystander accounts from one address try 4 streams each of the tables' public streams; then every seated
    player of 8 tables opens its seat view stream and plays its turns, waiting for each with a long-poll."""
    api = crowded_api
    tables = []
    for n in range(8):
        players = [register(api, f"p{n}-{seat}")[1] for seat in range(2)]
        with _request(api, "POST", "/v1/tables", {"game": "cholek-tiga", "seats": 2}, players[0]) as response:
            table = json.loads(response.read())["id"]
        for seat, token in enumerate(players):
            with _request(api, "POST", f"/v1/tables/{table}/seats", {"seat": seat}, token) as response:
                assert response.status == 201
        tables.append((table, players))

    bystander_streams, refusals = [], {}
    for n in range(18):
        token = register(api, f"bystander-{n}")[1]
        for table, _ in tables[:4]:
            try:
                bystander_streams.append(_request(api, "GET", f"/v1/tables/{table}/stream", token=token))
            except urllib.error.HTTPError as error:
                code = json.loads(error.read())["code"]
                refusals[code] = refusals.get(code, 0) + 1
    try:
        assert len(bystander_streams) == 4  # one address: 4 bystander streams at most, whatever its tokens
        assert refusals.get("too_many_streams", 0) > 0

        seat_streams = [
            _request(api, "GET", f"/v1/tables/{table}/view/stream", token=token)
            for table, players in tables
            for token in players
        ]
        try:
            assert all(stream.status == 200 for stream in seat_streams)
            played = 0
            for table, players in tables:
                for _ in range(3):  # three turns of each table: each waits for its version, then plays
                    with _request(api, "GET", f"/v1/tables/{table}", token=players[0]) as response:
                        state = json.loads(response.read())
                    token = players[state["to_act"]]
                    path = f"/v1/tables/{table}/view?wait_for_version={state['version']}"
                    with _request(api, "GET", path, token=token) as response:
                        view = json.loads(response.read())
                    action = dict(view["legal_actions"][0])
                    if action.get("type") == "play" and "count" in action:
                        action = {"type": "play", "cards": view["hand"][: int(action["count"])]}
                    request = urllib.request.Request(
                        f"{api}/v1/tables/{table}/actions", data=json.dumps(action).encode(), method="POST"
                    )
                    request.add_header("Content-Type", "application/json")
                    request.add_header("Authorization", f"Bearer {token}")
                    request.add_header("Idempotency-Key", f"{table}-{state['version']}")
                    with urllib.request.urlopen(request, timeout=10) as response:
                        assert response.status == 201
                    played += 1
            assert played == 24
        finally:
            for stream in seat_streams:
                stream.close()
    finally:
        for stream in bystander_streams:
            stream.close()
