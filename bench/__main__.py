"""`python -m bench` (or `make bench`): every benchmark in one run, one table of rows (bench.harness).

`python -m bench api memory` runs only the modules whose names contain one of the words (a word that names none is
an error). BENCH_QUICK=1 shortens every benchmark (a check that the run works, not figures to quote).

usage: python -m bench [--help] [WORD ...]
"""

from __future__ import annotations

import importlib
import os
import sys
import time
import traceback
from typing import Any

from bench.harness import print_table, quick, verdict

__all__ = ["MODULES", "QUICK_ARGUMENTS", "main", "print_table", "selected", "verdict"]

MODULES = (  # each answers one question (docs/performance.md, "Running the benches")
    "bench.rules",
    "bench.append",
    "bench.lag",
    "bench.api",
    "bench.abuse",
    "bench.memory",
    "bench.tables",
    "bench.history",
    "bench.scaling",
    "bench.high_availability",
)

# BENCH_QUICK=1: smaller arguments for the modules whose run() takes them, shorter defaults for the env-driven ones.
QUICK_ARGUMENTS: dict[str, dict[str, Any]] = {
    "bench.rules": {"seconds": 1.0, "hands": 300},
    "bench.append": {"seconds": 1.0},
}
QUICK_ENVIRONMENT = {"BENCH_LAG_SECONDS": "3", "BENCH_REBUILD_EVENTS": "20000"}


MODULE_NAMES = ", ".join(name.removeprefix("bench.") for name in MODULES)


def selected(words: list[str]) -> list[str]:
    """The modules whose names contain one of `words` (all of them when none is given); ValueError naming the
    words that match no module."""
    unknown = [word for word in words if not any(word in name for name in MODULES)]
    if unknown:
        raise ValueError(f"no benchmark module matches {', '.join(map(repr, unknown))}")
    return [name for name in MODULES if not words or any(word in name for word in words)]


def main(argv: list[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else argv
    if any(word in ("-h", "--help") for word in words):
        print(f"{__doc__}\nmodules: {MODULE_NAMES}")
        return 0
    try:
        chosen = selected(words)
    except ValueError as error:
        print(f"python -m bench: error: {error}; modules: {MODULE_NAMES} (see --help)", file=sys.stderr)
        return 2
    rows: list[dict[str, Any]] = []
    for name, value in QUICK_ENVIRONMENT.items() if quick() else ():
        os.environ.setdefault(name, value)
    for name in chosen:
        print(f"running {name} ...", file=sys.stderr)
        started = time.monotonic()
        try:
            rows += importlib.import_module(name).run(**(QUICK_ARGUMENTS.get(name, {}) if quick() else {}))
        except Exception:
            traceback.print_exc()
            rows.append({"benchmark": f"{name} failed", "value": "error", "unit": "", "target": None})
        print(f"{name}: {time.monotonic() - started:.0f} s", file=sys.stderr)
    print_table(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
