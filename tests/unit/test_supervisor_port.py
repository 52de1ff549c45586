"""`cardledger up` refuses to start when the API's address is taken, instead of restarting the API forever."""

from __future__ import annotations

import socket
import threading

import pytest

from infra.config import Settings
from services.supervisor import bind_error, run_stack


def test_a_taken_port_stops_up_before_anything_starts(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        # No URLs: anything started would be an embedded PostgreSQL and Redis; nothing may be.
        settings = Settings(host="127.0.0.1", port=port)
        stopped = threading.Event()
        stopped.set()  # were the check missing, the stack would start and stop at once, and return 0
        assert run_stack(settings, stopped) == 2
    message = capsys.readouterr().err
    assert f"cannot serve the API on 127.0.0.1:{port} (Address already in use)" in message
    assert "CARDLEDGER_PORT" in message


def test_a_free_port_is_free() -> None:
    with socket.socket() as finder:
        finder.bind(("127.0.0.1", 0))
        port = finder.getsockname()[1]
    assert bind_error("127.0.0.1", port) is None
