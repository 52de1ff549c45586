"""`python -m bench` (or `make bench`): every benchmark in one run, one table of figures.

Each module's `run()` returns rows {"benchmark", "value", "target", "unit"}
(optionally "baseline" and "ratio"); a row meets its target when its value is
at least the target, or at most it for rows whose unit ends in "(max)".
"""

from __future__ import annotations

import importlib
import sys
import traceback
from typing import Any

MODULES = ("bench.domain_cholek_tiga", "bench.domain_cha_kau_tsz", "bench.append", "bench.lag")


def verdict(row: dict[str, Any]) -> str:
    target = row.get("target")
    value = row.get("value")
    if target is None or value is None:
        return ""
    if str(row.get("unit", "")).endswith("(max)"):
        return "ok" if value <= target else "MISSED"
    return "ok" if value >= target else "MISSED"


def print_table(rows: list[dict[str, Any]]) -> None:
    header = ("benchmark", "value", "unit", "target", "")
    lines = [
        (
            str(r.get("benchmark")),
            f"{r['value']:,.2f}" if isinstance(r.get("value"), int | float) else str(r.get("value")),
            str(r.get("unit", "")),
            "" if r.get("target") is None else f"{r['target']:,}",
            verdict(r),
        )
        for r in rows
    ]
    widths = [max(len(h), *(len(line[i]) for line in lines)) for i, h in enumerate(header)]
    print("  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)))
    print("  ".join("-" * w for w in widths))
    for line in lines:
        print("  ".join(cell.ljust(w) for cell, w in zip(line, widths, strict=True)))


def main() -> int:
    rows: list[dict[str, Any]] = []
    only = sys.argv[1:]
    for name in MODULES:
        if only and not any(part in name for part in only):
            continue
        print(f"running {name} ...", file=sys.stderr)
        try:
            rows += importlib.import_module(name).run()
        except Exception:
            traceback.print_exc()
            rows.append({"benchmark": f"{name} failed", "value": "error", "unit": "", "target": None})
    print_table(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
