"""`python -m bench` (or `make bench`): every benchmark in one run, one table of figures.

Each module's `run()` returns rows {"benchmark", "value", "target", "unit"}
(optionally "baseline" and "ratio"); a row meets its target when its value is
at least the target, or at most it for rows whose unit ends in "(max)".

`python -m bench api memory` runs only the modules whose names contain one of
the words (a word that names none is an error). BENCH_QUICK=1 shortens every
benchmark (a check that the run works, not figures to quote).

usage: python -m bench [--help] [WORD ...]
"""

from __future__ import annotations

import importlib
import os
import sys
import time
import traceback
from typing import Any

MODULES = (
    "bench.domain_cholek_tiga",
    "bench.domain_cha_kau_tsz",
    "bench.append",
    "bench.lag",
    "bench.api",
    "bench.abuse",
    "bench.memory",
    "bench.tables",
    "bench.history",
    "bench.caches",
    "bench.scaling",
    "bench.high_availability",
)

# BENCH_QUICK=1: smaller arguments for the modules whose run() takes them, shorter defaults for the env-driven ones.
QUICK_ARGUMENTS: dict[str, dict[str, Any]] = {
    "bench.domain_cholek_tiga": {"seconds": 1.0},
    "bench.domain_cha_kau_tsz": {"hands": 300},
    "bench.append": {"seconds": 1.0},
}
QUICK_ENVIRONMENT = {"BENCH_LAG_SECONDS": "3", "BENCH_REBUILD_EVENTS": "20000"}


def quick() -> bool:
    return os.environ.get("BENCH_QUICK", "").strip() not in ("", "0")


def verdict(row: dict[str, Any]) -> str:
    target = row.get("target")
    value = row.get("value")
    if target is None or not isinstance(value, int | float):
        return ""
    if str(row.get("unit", "")).endswith("(max)"):
        return "ok" if value <= target else "MISSED"
    return "ok" if value >= target else "MISSED"


def _number(value: Any) -> str:
    if value is None:
        return ""
    return f"{value:,.2f}" if isinstance(value, int | float) else str(value)


def print_table(rows: list[dict[str, Any]]) -> None:
    if not rows:
        print("(no rows)")
        return
    header: tuple[str, ...] = ("benchmark", "value", "unit", "target", "")
    comparisons = any(r.get("baseline") is not None or r.get("ratio") is not None for r in rows)
    if comparisons:
        header += ("baseline", "ratio")
    lines = []
    for r in rows:
        line: tuple[str, ...] = (
            str(r.get("benchmark")),
            "-" if r.get("value") is None else _number(r.get("value")),
            str(r.get("unit", "")),
            "" if r.get("target") is None else f"{r['target']:,}",
            verdict(r),
        )
        if comparisons:
            line += (_number(r.get("baseline")), _number(r.get("ratio")))
        lines.append(line)
    widths = [max(len(h), *(len(line[i]) for line in lines)) for i, h in enumerate(header)]
    print("  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)).rstrip())
    print("  ".join("-" * w for w in widths))
    for line in lines:
        print("  ".join(cell.ljust(w) for cell, w in zip(line, widths, strict=True)).rstrip())


def module_names() -> str:
    return ", ".join(name.removeprefix("bench.") for name in MODULES)


def usage() -> str:
    return f"{__doc__}\nmodules: {module_names()}"


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
        print(usage())
        return 0
    try:
        chosen = selected(words)
    except ValueError as error:
        print(f"python -m bench: error: {error}; modules: {module_names()} (see --help)", file=sys.stderr)
        return 2
    rows: list[dict[str, Any]] = []
    if quick():
        for name, value in QUICK_ENVIRONMENT.items():
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
