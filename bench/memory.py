"""Peak resident memory of the stack's processes under load.

Run: python -m bench.memory          (about 40 s; BENCH_QUICK=1 for a few seconds)

Starts `cardledger up` against a fresh database (as bench/api.py does: DATABASE_URL's server, REDIS_URL,
rate limits off), finds its processes with psutil (the gunicorn master's children are the API workers,
`services.cli worker` processes the projection workers, `services.cli relay` the relay), and samples
their RSS every SAMPLE_INTERVAL_S while `cardledger simulate`'s random bots play CONCURRENCY tables at once
for BENCH_MEMORY_SECONDS (default 20; Cholek Tiga for the first half, Cha Kau Tsz for the second). Reports,
per kind, the RSS before the load and the peak of the largest process of that kind during it.
"""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path
from typing import Any

import psutil

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.api import CONCURRENCY, bench_stack, env_float  # noqa: E402
from services.simulate import SimulationConfig, simulate  # noqa: E402

SAMPLE_INTERVAL_S = 0.1
MIB = 1024 * 1024
KINDS = ("API worker (gunicorn)", "projection worker", "relay", "gunicorn master", "supervisor (cardledger up)")


def classify(root: psutil.Process) -> dict[int, str]:
    """The kind of every process of the stack, by pid."""
    kinds = {root.pid: KINDS[4]}
    try:
        children = root.children(recursive=True)
    except psutil.Error:
        return kinds
    for process in children:
        try:
            cmdline = " ".join(process.cmdline())
            parent = process.ppid()
        except psutil.Error:
            continue
        if "gunicorn" in cmdline:
            kinds[process.pid] = KINDS[3] if parent == root.pid else KINDS[0]
        elif "services.cli" in cmdline and cmdline.rstrip().endswith("worker"):
            kinds[process.pid] = KINDS[1]
        elif "services.cli" in cmdline and cmdline.rstrip().endswith("relay"):
            kinds[process.pid] = KINDS[2]
    return kinds


class Sampler:
    def __init__(self, root_pid: int) -> None:
        self.root = psutil.Process(root_pid)
        self.peak: dict[int, int] = {}
        self.kind: dict[int, str] = {}
        self.samples = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="rss-sampler", daemon=True)

    def sample(self) -> dict[int, int]:
        kinds = classify(self.root)
        now: dict[int, int] = {}
        for pid, kind in kinds.items():
            try:
                rss = int(psutil.Process(pid).memory_info().rss)
            except psutil.Error:
                continue
            now[pid] = rss
            self.kind[pid] = kind
            self.peak[pid] = max(self.peak.get(pid, 0), rss)
        self.samples += 1
        return now

    def _run(self) -> None:
        deadline = time.monotonic() + 3600  # bounded even if never stopped
        while not self._stop.wait(SAMPLE_INTERVAL_S) and time.monotonic() < deadline:
            self.sample()

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=10)


def by_kind(rss: dict[int, int], kinds: dict[int, str]) -> dict[str, tuple[int, int]]:
    """kind -> (largest RSS of one process of that kind, number of processes)."""
    result: dict[str, tuple[int, int]] = {}
    for pid, value in rss.items():
        kind = kinds[pid]
        largest, count = result.get(kind, (0, 0))
        result[kind] = (max(largest, value), count + 1)
    return result


def run() -> list[dict[str, Any]]:
    seconds = env_float("BENCH_MEMORY_SECONDS", 20.0, 5.0)
    with bench_stack() as (stack, _):
        time.sleep(2.0)  # let every child start
        sampler = Sampler(stack.process.pid)
        idle = sampler.sample()
        before = by_kind(idle, dict(sampler.kind))
        sampler.peak.clear()
        sampler.start()
        summaries = []
        try:
            for game in ("cholek-tiga", "cha-kau-tsz"):
                print(f"  bench.memory: {game}, {CONCURRENCY} tables at once, {seconds / 2:.0f} s ...", file=sys.stderr)
                config = SimulationConfig(
                    base_url=stack.base_url,
                    game=game,
                    tables=CONCURRENCY,
                    seats=2,
                    concurrency=CONCURRENCY,
                    deals=1_000_000,
                    duration=seconds / 2,
                    progress=False,
                    seed=f"bench-memory-{game}",
                )
                summaries.append(simulate(config).summary)
        finally:
            sampler.stop()
    peak = by_kind(sampler.peak, sampler.kind)
    actions = sum(s["actions"] for s in summaries)
    rows: list[dict[str, Any]] = []
    for kind in KINDS:
        if kind not in peak:
            continue
        largest, count = peak[kind]
        rows.append(
            {
                "benchmark": f"peak RSS, {kind} (largest of {count}) under load",
                "value": largest / MIB,
                "target": None,
                "unit": "MiB",
                "baseline": before[kind][0] / MIB if kind in before else None,
                "ratio": largest / before[kind][0] if before.get(kind, (0, 0))[0] else None,
            }
        )
    rows.append(
        {
            "benchmark": f"load during the memory run ({sampler.samples} RSS samples)",
            "value": actions,
            "target": None,
            "unit": "actions",
        }
    )
    return rows


if __name__ == "__main__":
    from bench.__main__ import print_table

    print_table(run())
