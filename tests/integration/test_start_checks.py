"""At start, a server the settings name but that cannot serve is one line naming the setting and exit 2: a host of
a multi-host DATABASE_URL that does not resolve, a Sentinel service no Sentinel knows, no Sentinel at all."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from services.cli.simulate.stack import free_port
from tests.ha.cluster import wait_for

ROOT = Path(__file__).resolve().parents[2]


def run(command: str, **environ: str) -> subprocess.CompletedProcess[str]:
    clean = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "HOME": str(ROOT), **environ}
    return subprocess.run(
        [sys.executable, "-m", "services.cli", command], cwd=ROOT, env=clean, capture_output=True, text=True, timeout=60
    )


@pytest.fixture(scope="module")
def sentinel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    """A Sentinel watching nothing."""
    server = shutil.which("redis-server")
    if server is None:
        pytest.skip("redis-server is missing: apt-get install redis-server")
    port = free_port()
    config = tmp_path_factory.mktemp("sentinel") / "sentinel.conf"
    config.write_text(f"port {port}\nbind 127.0.0.1\n")
    process = subprocess.Popen([server, str(config), "--sentinel"], stdout=subprocess.DEVNULL)
    try:
        wait_for(lambda: redis.Redis(port=port).ping(), 20, "the Sentinel")
        yield port
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.mark.parametrize("command", ["relay", "worker", "api", "migrate"])
def test_an_unknown_sentinel_service_is_one_line_and_exit_2(command: str, sentinel: int, database_url: str) -> None:
    done = run(command, DATABASE_URL=database_url, REDIS_URL=f"redis+sentinel://127.0.0.1:{sentinel}/no-such-primary")
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines() == [
        f"cardledger: error: configuration error: REDIS_URL: no Sentinel at 127.0.0.1:{sentinel} knows a primary "
        "named 'no-such-primary' (1 answered; check the service name)"
    ]


def test_no_sentinel_answering_is_one_line_and_exit_2(database_url: str) -> None:
    port = free_port()
    done = run("relay", DATABASE_URL=database_url, REDIS_URL=f"redis+sentinel://127.0.0.1:{port}/cardledger")
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        f"cardledger: error: configuration error: REDIS_URL: no Sentinel answers at 127.0.0.1:{port}"
    ]


def test_a_database_host_that_does_not_resolve_is_one_line_and_exit_2(redis_url: str) -> None:
    url = "postgresql://svc@127.0.0.1:5432,pg-2.invalid:5432/db?target_session_attrs=read-write"
    done = run("worker", DATABASE_URL=url, REDIS_URL=redis_url)
    assert done.returncode == 2
    assert len(done.stderr.splitlines()) == 1
    assert "configuration error: DATABASE_URL: host 'pg-2.invalid' does not resolve" in done.stderr


def test_a_multi_host_url_without_read_write_is_refused(redis_url: str) -> None:
    done = run("relay", DATABASE_URL="postgresql://svc@127.0.0.1:5432,127.0.0.1:5433/db", REDIS_URL=redis_url)
    assert done.returncode == 2
    assert "DATABASE_URL lists 2 hosts but not ?target_session_attrs=read-write" in done.stderr
