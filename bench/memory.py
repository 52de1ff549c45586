"""Does memory stay bounded? The peak RSS of each kind of `cardledger up`'s processes under bots, and an API
process (a child, small caches) serving ever more tables: its RSS, Python memory blocks and caches' entries.

Run: python -m bench.memory     (about 5 minutes; BENCH_MEMORY_SECONDS of load, default 20)
"""

from __future__ import annotations

import gc
import json
import os
import queue
import resource
import subprocess
import sys
import threading
import time
import uuid
from typing import Any

from bench.counting import KINDS, proc_file, stack_kinds
from bench.harness import (
    ROOT,
    Row,
    bench_stack,
    env_float,
    fresh_database,
    in_threads,
    play,
    print_table,
    quick,
    redis_url,
    row,
    say,
)

SAMPLE_INTERVAL_S = 0.1
CONCURRENCY = 8
MIB = 1024 * 1024
CHECKPOINTS, CACHE_TABLES, CACHE_PLAYERS = (100, 1_000, 3_000, 10_000), 1_000, 2_000
QUICK_CHECKPOINTS, QUICK_CACHE_TABLES, QUICK_CACHE_PLAYERS = (100, 300, 1_000), 200, 400
THREADS = 16  # many requests at once, so that commits overlap (the work is mostly waiting for them)


def rss_bytes(pid: int | str = "self") -> int | None:
    statm = proc_file(pid, "statm")
    return int(statm.split()[1]) * resource.getpagesize() if statm else None


def by_kind(rss: dict[int, int], kinds: dict[int, str]) -> dict[str, tuple[int, int]]:
    """kind -> (largest RSS of one process of that kind, number of processes)."""
    result: dict[str, tuple[int, int]] = {}
    for pid, value in rss.items():
        largest, count = result.get(kinds[pid], (0, 0))
        result[kinds[pid]] = (max(largest, value), count + 1)
    return result


def under_load() -> list[Row]:
    seconds = env_float("BENCH_MEMORY_SECONDS", 20.0, 5.0)
    peak: dict[int, int] = {}
    kinds: dict[int, str] = {}
    samples, stop = [0], threading.Event()

    def sample(root: int) -> dict[int, int]:
        now = {}
        for pid, kind in stack_kinds(root).items():
            if (rss := rss_bytes(pid)) is not None:
                now[pid], kinds[pid], peak[pid] = rss, kind, max(peak.get(pid, 0), rss)
        samples[0] += 1
        return now

    def sampling(root: int) -> None:
        while not stop.wait(SAMPLE_INTERVAL_S):
            sample(root)

    with bench_stack() as (stack, _):
        time.sleep(2.0)  # let every child start
        before = by_kind(sample(stack.process.pid), dict(kinds))
        peak.clear()
        sampler = threading.Thread(target=sampling, args=(stack.process.pid,), daemon=True)
        sampler.start()
        actions = 0
        try:
            for game in ("cholek-tiga", "cha-kau-tsz"):
                say(f"bench.memory: {game}, {CONCURRENCY} tables at once, {seconds / 2:.0f} s ...")
                actions += play(stack.base_url, game, CONCURRENCY, seconds / 2, f"bench-memory-{game}")["actions"]
        finally:
            stop.set()
            sampler.join(timeout=10)
    peaks, rows = by_kind(peak, kinds), []
    for kind in (k for k in KINDS if k in peaks):
        (largest, count), base = peaks[kind], before[kind][0] / MIB if kind in before else None
        rows.append(row(f"peak RSS, {kind} (largest of {count}) under load", largest / MIB, "MiB", baseline=base))
    return [*rows, row(f"load during the memory run ({samples[0]} RSS samples)", actions, "actions")]


def one_table(client: Any, n: int) -> None:
    """Through Flask's test client: two new players open a table, sit, and the seat to act acts."""
    tokens = [client.post("/v1/players", json={"name": f"rss-{n}-{seat}"}).get_json()["token"] for seat in (0, 1)]
    headers = [{"Authorization": f"Bearer {token}"} for token in tokens]
    opened = client.post("/v1/tables", json={"game": "cholek-tiga", "seats": 2}, headers=headers[0])
    table = f"/v1/tables/{opened.get_json()['id']}"
    for seat in range(2):
        client.post(f"{table}/seats", json={"seat": seat}, headers=headers[seat])
    to_act = int(client.get(table, headers=headers[0]).get_json()["to_act"])
    view = client.get(f"{table}/view", headers=headers[to_act]).get_json()
    action_headers = {**headers[to_act], "Idempotency-Key": str(uuid.uuid4()), "If-Match": f'"{view["version"]}"'}
    answer = client.post(f"{table}/actions", json=view["legal_actions"][0], headers=action_headers)
    if answer.status_code != 201:
        raise RuntimeError(f"table {n}: action answered {answer.status_code} {answer.get_data(as_text=True)}")


def serve_tables(checkpoints: tuple[int, ...]) -> None:
    """The child: serve tables up to each checkpoint, print one JSON line per checkpoint."""
    from infra.config import Settings
    from infra.lru import Lru
    from services.api import create_app
    from services.bootstrap import bootstrap
    from tests.integration.test_cache_bounds import reachable

    container = bootstrap(Settings.from_env(), pool_max_size=THREADS + 2, start_embedded=False)
    app = create_app(container=container, config={"TESTING": True, "RATE_LIMITS_ENABLED": False})
    todo: queue.SimpleQueue[int] = queue.SimpleQueue()
    failures: list[BaseException] = []

    def work(_: int) -> None:
        client = app.test_client()
        while not failures:
            try:
                one_table(client, todo.get_nowait())
            except queue.Empty:
                return
            except BaseException as error:
                failures.append(error)

    served = 0
    for checkpoint in checkpoints:
        for n in range(served, checkpoint):
            todo.put(n)
        in_threads(THREADS, work)
        if failures:
            raise failures[0]
        served = checkpoint
        gc.collect()
        caches = {path.rsplit(".", 1)[-1]: len(v) for path, v in reachable(container.ledger) if isinstance(v, Lru)}
        print(json.dumps({"tables": served, "rss": rss_bytes(), "blocks": sys.getallocatedblocks(), "caches": caches}))
        sys.stdout.flush()
    container.close()


def past_the_bounds() -> list[Row]:
    from infra.config import Settings
    from services.cli.keys import register_configured_key

    checkpoints = QUICK_CHECKPOINTS if quick() else CHECKPOINTS
    tables_bound = QUICK_CACHE_TABLES if quick() else CACHE_TABLES
    players_bound = QUICK_CACHE_PLAYERS if quick() else CACHE_PLAYERS
    with fresh_database() as url:
        register_configured_key(url, Settings.from_env())  # as `cardledger migrate` does
        env = {**os.environ, "DATABASE_URL": url, "REDIS_URL": redis_url(), "CARDLEDGER_RATE_LIMITS": "off"}
        env |= {"CARDLEDGER_CACHE_TABLES": str(tables_bound), "CARDLEDGER_CACHE_PLAYERS": str(players_bound)}
        say(f"bench.memory: serving {checkpoints[-1]} tables in one process, caches of {tables_bound} tables ...")
        command = [sys.executable, "-m", "bench.memory", "--child", ",".join(map(str, checkpoints))]
        child = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
        if child.returncode != 0:
            raise RuntimeError(f"the serving process failed ({child.returncode}): {child.stderr[-2000:]}")
    measured = [json.loads(line) for line in child.stdout.splitlines() if line.startswith("{")]
    first, rows = measured[0], []
    bounds = f"caches: {tables_bound:,} tables, {players_bound:,} players"
    for point in measured:
        known, tables = point["caches"], f"{point['tables']:,} tables"
        holding = f"holding {known.get('_known', 0):,} states, {known.get('_players', 0):,} players"
        rss_label = f"API process RSS after {tables} ({bounds}; {holding})"
        blocks_label = f"Python heap blocks allocated after {tables} (sys.getallocatedblocks)"
        rows.append(row(rss_label, point["rss"] / MIB, "MiB", baseline=first["rss"] / MIB))
        rows.append(row(blocks_label, point["blocks"], "blocks", baseline=first["blocks"]))
    # The growth per table served from the bound's checkpoint to the last one, and below the bound.
    for side, points in (
        ("past", [p for p in measured if p["tables"] >= tables_bound]),
        ("below", [p for p in measured if p["tables"] <= tables_bound]),
    ):
        if len(points) >= 2:
            a, b = points[0], points[-1]
            growth = (b["rss"] - a["rss"]) / (b["tables"] - a["tables"]) / 1024
            label = f"RSS growth per table served {side} the bound ({a['tables']:,} -> {b['tables']:,} tables)"
            rows.append(row(label, growth, "KiB/table"))
    return rows


def run() -> list[Row]:
    return under_load() + past_the_bounds()


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        serve_tables(tuple(int(n) for n in sys.argv[2].split(",")))
    else:
        print_table(run())
