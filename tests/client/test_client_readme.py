"""The client's README (clients/python/README.md) plays a complete deal as written, against the running stack with
the rate limits as shipped; only the address changes."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from tests.client.conftest import CLIENT_PATH

pytestmark = pytest.mark.slow

README = CLIENT_PATH / "README.md"


def test_the_readme_plays_a_complete_deal(shipped_stack: str) -> None:
    text = README.read_text(encoding="utf-8")
    assert "MyDataModel" not in text and "api.example.com" not in text  # not the generator's boilerplate
    match = re.search(r"## A complete deal\n\n```python\n(.*?)\n```", text, re.S)
    assert match is not None, "the README's complete deal is gone"
    code = match.group(1).replace('URL = "http://127.0.0.1:8000"', f'URL = "{shipped_stack}"', 1)
    env = {**os.environ, "PYTHONPATH": str(CLIENT_PATH)}
    run = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600, check=False
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.startswith("deal 1 ended:"), run.stdout
