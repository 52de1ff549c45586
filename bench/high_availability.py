"""What a synchronous standby costs: the same bots against PostgreSQL alone and with a synchronous standby.

Run: python -m bench.high_availability   (about 3 minutes; BENCH_QUICK=1 for a few seconds of play)

Both runs use the shape of tests/ha (tests/ha/cluster.py): PostgreSQL 15 under Patroni with etcd, Redis under
three Sentinels, 2 API instances, 2 relays and 2 workers on loopback ports; the first with one PostgreSQL node,
the second with two in `synchronous_mode` (each commit waits for the standby's flush). `cardledger simulate`
plays the same tables (holding client) for BENCH_HA_SECONDS (default 30) in each. Needs Debian's patroni,
etcd-server and redis-sentinel; without them the rows say what to install.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from services.simulate.runner import simulate  # noqa: E402
from tests.ha.cluster import BOT_TABLES as TABLES  # noqa: E402
from tests.ha.cluster import INSTALL_HINT, Folder, bots, missing_engines, running_shape  # noqa: E402


def play(nodes: int, seconds: float) -> dict[str, Any]:
    """The simulation's summary against `nodes` PostgreSQL nodes (2: a synchronous standby)."""
    path = Path(tempfile.mkdtemp(prefix="cardledger-bench-ha-"))
    kept = False
    try:
        folder = Folder(path)
        with running_shape(folder, nodes=nodes) as shape:
            summary: dict[str, Any] = simulate(bots(shape.stack, seconds)).summary
            return summary
    except Exception:
        kept = True
        print(f"  bench.high_availability: the engines' logs are kept in {path}", file=sys.stderr)
        raise
    finally:
        if not kept:
            shutil.rmtree(path, ignore_errors=True)


def run() -> list[dict[str, Any]]:
    missing = missing_engines()
    if missing:
        note = f"skipped: {', '.join(missing)} missing ({INSTALL_HINT})"
        return [{"benchmark": "high availability", "value": None, "unit": note, "target": None}]
    seconds = float(os.environ.get("BENCH_HA_SECONDS") or ("5" if os.environ.get("BENCH_QUICK") else "30"))
    print(f"  bench.high_availability: one PostgreSQL node, {seconds:.0f} s of play ...", file=sys.stderr)
    alone = play(1, seconds)
    print(f"  bench.high_availability: a synchronous standby, {seconds:.0f} s of play ...", file=sys.stderr)
    synchronous = play(2, seconds)
    rate, rate_alone = float(synchronous["actions_per_s"]), float(alone["actions_per_s"])
    p99, p99_alone = float(synchronous["latency_ms"]["p99"]), float(alone["latency_ms"]["p99"])
    return [
        {
            "benchmark": f"actions/s with a synchronous standby ({TABLES} tables, holding)",
            "value": rate,
            "unit": "actions/s",
            "target": None,
            "baseline": rate_alone,
            "ratio": rate / rate_alone if rate_alone else None,
        },
        {
            "benchmark": "action p99 with a synchronous standby",
            "value": p99,
            "unit": "ms",
            "target": None,
            "baseline": p99_alone,
            "ratio": p99 / p99_alone if p99_alone else None,
        },
    ]


if __name__ == "__main__":
    from bench.__main__ import print_table

    print_table(run())
