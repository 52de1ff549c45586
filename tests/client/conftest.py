"""The generated client (clients/python) is imported from the repository, not installed: its folder goes on
sys.path here. The running stack is the end-to-end tests' (`cardledger up` on the test database)."""

from __future__ import annotations

import sys
from pathlib import Path

CLIENT_PATH = Path(__file__).resolve().parents[2] / "clients" / "python"
if str(CLIENT_PATH) not in sys.path:
    sys.path.insert(0, str(CLIENT_PATH))

from tests.e2e.conftest import shipped_stack, stack  # noqa: E402  (the fixtures, shared)

__all__ = ["CLIENT_PATH", "shipped_stack", "stack"]
