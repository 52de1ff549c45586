"""A bench module's own run under callgrind: the instructions it executes (every thread and child process)."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def module_instructions(module: str, args: Sequence[str]) -> int:
    """callgrind's total for `python -m module args...`, run from the project's root with PYTHONHASHSEED=0 (the
    same dict and set orders in every run)."""
    with tempfile.TemporaryDirectory(prefix="cardledger-callgrind-") as scratch:
        out = Path(scratch) / "callgrind.out"
        command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, "-m", module, *args]
        env = {**os.environ, "PYTHONHASHSEED": "0"}
        done = subprocess.run(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(command)} exited with {done.returncode}: {done.stderr[-2000:]}")
        return sum(totals(path) for path in Path(scratch).glob("callgrind.out*"))


def totals(path: Path) -> int:
    """The total instructions of one callgrind output file."""
    for line in path.read_text(errors="replace").splitlines():
        if line.startswith("totals:") or line.startswith("summary:"):
            return int(line.split()[1])
    raise ValueError(f"no totals in {path}")
