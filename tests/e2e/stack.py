"""Running the real stack (`cardledger up`) as a child process for end-to-end tests."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def http(
    method: str, url: str, body: Any = None, token: str | None = None, headers: Mapping[str, str] | None = None
) -> tuple[int, dict[str, str], Any]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method)
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            raw = response.read()
            status, response_headers = response.status, dict(response.headers)
    except urllib.error.HTTPError as error:
        raw = error.read()
        status, response_headers = error.code, dict(error.headers)
    text = raw.decode()
    try:
        payload = json.loads(text) if text else None
    except json.JSONDecodeError:
        payload = text
    return status, response_headers, payload


def wait_ready(base_url: str, process: subprocess.Popen[bytes], timeout: float) -> float:
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        if process.poll() is not None:
            raise RuntimeError(f"cardledger up exited early with {process.returncode}")
        try:
            status, _, _ = http("GET", f"{base_url}/readyz")
            if status == 200:
                return time.monotonic() - started
        except OSError:
            pass
        time.sleep(0.5)
    raise TimeoutError(f"{base_url}/readyz did not answer 200 within {timeout} s")


@contextmanager
def running_stack(env_overrides: Mapping[str, str | None], log_path: Path, timeout: float = 120) -> Iterator[str]:
    """Start `cardledger up` with the given environment (None removes a variable); yields its base URL."""
    port = free_port()
    env = {**os.environ, "CARDLEDGER_PORT": str(port), "CARDLEDGER_HOST": "127.0.0.1"}
    for name, value in env_overrides.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    base_url = f"http://127.0.0.1:{port}"
    with log_path.open("wb") as log:
        process = subprocess.Popen([sys.executable, "-m", "services.cli", "up"], env=env, stdout=log, stderr=log)
        try:
            wait_ready(base_url, process, timeout)
            yield base_url
        finally:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
                try:
                    process.wait(timeout=60)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
    running_stack.last_returncode = process.returncode  # type: ignore[attr-defined]
