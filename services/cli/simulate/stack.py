"""Starting `cardledger up` as a child process for a simulation (or a benchmark) that has no --url."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from services.cli.http_client import HttpClient

ROOT = Path(__file__).resolve().parents[3]  # where `python -m services.cli` finds the packages
READY_TIMEOUT_S = 180.0
STOP_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class RunningStack:
    base_url: str
    process: subprocess.Popen[bytes]
    log_path: Path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_ready(base_url: str, process: subprocess.Popen[bytes], timeout: float = READY_TIMEOUT_S) -> float:
    """Poll GET /readyz until it answers 200; the seconds it took. Raises if the stack exits or times out."""
    client = HttpClient(base_url, timeout=5)
    started = time.monotonic()
    try:
        while time.monotonic() - started < timeout:
            if process.poll() is not None:
                raise RuntimeError(f"cardledger up exited early with {process.returncode}")
            try:
                if client.request("GET", "/readyz").status == 200:
                    return time.monotonic() - started
            except OSError:
                pass
            time.sleep(0.5)
    finally:
        client.close()
    raise TimeoutError(f"{base_url}/readyz did not answer 200 within {timeout:.0f} s")


def stop(process: subprocess.Popen[bytes], timeout: float = STOP_TIMEOUT_S) -> int:
    """SIGTERM, then SIGKILL if it has not stopped within `timeout`; the exit status."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    return int(process.returncode)


@contextmanager
def embedded_stack(
    env_overrides: Mapping[str, str | None] | None = None,
    log_path: Path | None = None,
    timeout: float = READY_TIMEOUT_S,
) -> Iterator[RunningStack]:
    """`python -m services.cli up` on a free loopback port, with the current environment (so DATABASE_URL and
    REDIS_URL are used when set) plus `env_overrides` (None removes a variable); stopped with SIGTERM on exit.
    Rate limits are off unless CARDLEDGER_RATE_LIMITS says otherwise: this stack exists to be loaded."""
    port = free_port()
    env = {**os.environ, "CARDLEDGER_HOST": "127.0.0.1", "CARDLEDGER_PORT": str(port)}
    env.setdefault("CARDLEDGER_RATE_LIMITS", "off")
    for name, value in (env_overrides or {}).items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    if log_path is None:
        handle, name = tempfile.mkstemp(prefix="cardledger-simulate-", suffix=".log")
        os.close(handle)
        log_path = Path(name)
    base_url = f"http://127.0.0.1:{port}"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "services.cli", "up"], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT
        )
        try:
            wait_ready(base_url, process, timeout)
            yield RunningStack(base_url, process, log_path)
        finally:
            stop(process)
