"""clients/python is what `make client` generates from the committed api-spec/openapi.json: regenerated into a
temporary folder with the same settings, every file must be the same."""

from __future__ import annotations

import filecmp
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GENERATOR = Path(sys.executable).with_name("openapi-python-client")
COMMITTED = ROOT / "clients" / "python"


def files_of(folder: Path) -> set[str]:
    return {
        str(path.relative_to(folder))
        for path in folder.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    }


def test_the_committed_client_is_generated_from_the_committed_spec(tmp_path: Path) -> None:
    if not GENERATOR.exists():
        pytest.skip(f"openapi-python-client is not installed beside {sys.executable}: pip install -e '.[dev]'")
    fresh = tmp_path / "python"
    command = [
        str(GENERATOR),
        "generate",
        "--path",
        str(ROOT / "api-spec" / "openapi.json"),
        "--config",
        str(ROOT / "clients" / "openapi-python-client.yaml"),
        "--custom-template-path",
        str(ROOT / "clients" / "templates"),
        "--meta",
        "setup",
        "--output-path",
        str(fresh),
        "--fail-on-warning",
    ]
    run = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    assert run.returncode == 0, run.stdout + run.stderr
    made, committed = files_of(fresh), files_of(COMMITTED)
    assert made == committed, f"files differ: {sorted(made ^ committed)[:20]}; regenerate with: make client"
    _, mismatch, errors = filecmp.cmpfiles(fresh, COMMITTED, sorted(made), shallow=False)
    assert not mismatch and not errors, f"out of date: {mismatch[:20]}; regenerate with: make client"
    shutil.rmtree(fresh)


def test_the_makefile_regenerates_it_with_the_same_settings() -> None:
    makefile = (ROOT / "Makefile").read_text()
    assert "--config clients/openapi-python-client.yaml" in makefile
    assert "--meta setup --output-path clients/python" in makefile
