"""What does a synchronous standby cost? The same bots against PostgreSQL alone and with a synchronous standby, in
the shape of tests/ha/cluster.py (Patroni, etcd, Redis Sentinels: Debian's patroni, etcd-server, redis-sentinel).

Run: python -m bench.high_availability   (about 3 minutes; BENCH_HA_SECONDS of play each, default 30)
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any

from bench.harness import Row, env_float, print_table, row, say
from services.cli.simulate.runner import simulate
from tests.ha.cluster import BOT_TABLES as TABLES
from tests.ha.cluster import INSTALL_HINT, Folder, bots, missing_engines, running_shape


def play(nodes: int, seconds: float) -> dict[str, Any]:
    """The simulation's summary against `nodes` PostgreSQL nodes (2: a synchronous standby)."""
    path = Path(tempfile.mkdtemp(prefix="cardledger-bench-ha-"))
    try:
        with running_shape(Folder(path), nodes=nodes) as shape:
            summary: dict[str, Any] = simulate(bots(shape.stack, seconds)).summary
    except Exception:
        say(f"bench.high_availability: the engines' logs are kept in {path}")
        raise
    shutil.rmtree(path, ignore_errors=True)
    return summary


def run() -> list[Row]:
    missing = missing_engines()
    if missing:
        return [row("high availability", None, f"skipped: {', '.join(missing)} missing ({INSTALL_HINT})")]
    seconds = env_float("BENCH_HA_SECONDS", 30.0, 5.0)
    say(f"bench.high_availability: one PostgreSQL node, {seconds:.0f} s of play ...")
    alone = play(1, seconds)
    say(f"bench.high_availability: a synchronous standby, {seconds:.0f} s of play ...")
    synchronous = play(2, seconds)
    rates = float(synchronous["actions_per_s"]), float(alone["actions_per_s"])
    p99s = float(synchronous["latency_ms"]["p99"]), float(alone["latency_ms"]["p99"])
    return [
        row(
            f"actions/s with a synchronous standby ({TABLES} tables, holding)", rates[0], "actions/s", baseline=rates[1]
        ),
        row("action p99 with a synchronous standby", p99s[0], "ms", baseline=p99s[1]),
    ]


if __name__ == "__main__":
    print_table(run())
