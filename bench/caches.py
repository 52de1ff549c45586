"""Bounded memory: an API worker's resident memory after serving N tables, with its caches' sizes configured.

Run: python -m bench.caches          (about 4 minutes; BENCH_QUICK=1 for a short check)

A child process builds the API app as a worker does (`create_app` on a `bootstrap` container, rate limits off)
with CARDLEDGER_CACHE_TABLES=CACHE_TABLES and CARDLEDGER_CACHE_PLAYERS=CACHE_PLAYERS, against a fresh, migrated
database on DATABASE_URL's server (REDIS_URL for the limiter), and serves tables through Flask's test client on
THREADS threads (as a gthread worker serves requests): for each table two new players register, one opens it, both
sit (deal 1 starts: the folded state, both seeds and the players are cached), the seat to act reads its view
and acts. After every checkpoint (N tables served in all) it collects garbage and reports its RSS
(/proc/self/statm), the Python objects' memory blocks it holds (`sys.getallocatedblocks`: a count, free of
the allocator's fragmentation) and the entries of each cache. Past the bound the caches stay full and the memory
levels off; below it both grow with N. The tables' events stay in PostgreSQL, not in the process.
"""

from __future__ import annotations

import gc
import json
import os
import resource
import subprocess
import sys
import threading
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.api import quick, redis_url, server_url  # noqa: E402

CHECKPOINTS = (100, 1_000, 3_000, 10_000)
QUICK_CHECKPOINTS = (100, 300, 1_000)
CACHE_TABLES = 1_000
QUICK_CACHE_TABLES = 200
CACHE_PLAYERS = 2_000
QUICK_CACHE_PLAYERS = 400
THREADS = 16  # many requests at once, so that commits overlap (the work is mostly waiting for them)
MIB = 1024 * 1024


def rss_bytes() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * resource.getpagesize()


def serve_tables(checkpoints: tuple[int, ...]) -> None:
    """The child: serve tables up to each checkpoint, print one JSON line per checkpoint."""
    from infra.config import Settings
    from infra.lru import Lru
    from services.api import create_app
    from services.bootstrap import bootstrap
    from tests.integration.test_cache_bounds import reachable

    container = bootstrap(Settings.from_env(), pool_max_size=THREADS + 2, start_embedded=False)
    app = create_app(container=container, config={"TESTING": True, "RATE_LIMITS_ENABLED": False})

    def one_table(client: Any, n: int) -> None:
        tokens = []
        for seat in range(2):
            answer = client.post("/v1/players", json={"name": f"rss-{n}-{seat}"})
            tokens.append(answer.get_json()["token"])
        headers = [{"Authorization": f"Bearer {token}"} for token in tokens]
        opened = client.post("/v1/tables", json={"game": "cholek-tiga", "seats": 2}, headers=headers[0])
        table_id = opened.get_json()["id"]
        for seat in range(2):
            client.post(f"/v1/tables/{table_id}/seats", json={"seat": seat}, headers=headers[seat])
        table = client.get(f"/v1/tables/{table_id}", headers=headers[0]).get_json()
        to_act = int(table["to_act"])
        view = client.get(f"/v1/tables/{table_id}/view", headers=headers[to_act]).get_json()
        action_headers = {
            **headers[to_act],
            "Idempotency-Key": str(uuid.uuid4()),
            "If-Match": f'"{view["version"]}"',
        }
        answer = client.post(f"/v1/tables/{table_id}/actions", json=view["legal_actions"][0], headers=action_headers)
        if answer.status_code != 201:
            raise RuntimeError(f"table {n}: action answered {answer.status_code} {answer.get_data(as_text=True)}")

    served = 0
    failures: list[BaseException] = []
    for checkpoint in checkpoints:
        todo = list(range(served, checkpoint))
        lock = threading.Lock()

        def work(todo: list[int] = todo, lock: threading.Lock = lock) -> None:
            client = app.test_client()
            while True:
                with lock:
                    if not todo or failures:
                        return
                    n = todo.pop()
                try:
                    one_table(client, n)
                except BaseException as error:
                    failures.append(error)

        threads = [threading.Thread(target=work) for _ in range(THREADS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        if failures:
            raise failures[0]
        served = checkpoint
        gc.collect()
        caches = {
            path.rsplit(".", 1)[-1]: len(value) for path, value in reachable(container.ledger) if isinstance(value, Lru)
        }
        point = {"tables": served, "rss": rss_bytes(), "blocks": sys.getallocatedblocks(), "caches": caches}
        print(json.dumps(point), flush=True)
    container.close()


def run() -> list[dict[str, Any]]:
    from infra.migrations import migrate
    from tests.conftest import fresh_database

    checkpoints = QUICK_CHECKPOINTS if quick() else CHECKPOINTS
    tables_bound = QUICK_CACHE_TABLES if quick() else CACHE_TABLES
    players_bound = QUICK_CACHE_PLAYERS if quick() else CACHE_PLAYERS
    measured: list[dict[str, Any]] = []
    with fresh_database(server_url(), prefix="cardledger_bench") as url:
        migrate(url)
        env = {
            **os.environ,
            "DATABASE_URL": url,
            "REDIS_URL": redis_url(),
            "CARDLEDGER_RATE_LIMITS": "off",
            "CARDLEDGER_CACHE_TABLES": str(tables_bound),
            "CARDLEDGER_CACHE_PLAYERS": str(players_bound),
            "PYTHONPATH": str(ROOT),
        }
        print(
            f"  bench.caches: serving {checkpoints[-1]} tables in one process, caches of {tables_bound} tables and "
            f"{players_bound} players ...",
            file=sys.stderr,
        )
        child = subprocess.run(
            [sys.executable, "-m", "bench.caches", "--child", ",".join(map(str, checkpoints))],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        if child.returncode != 0:
            raise RuntimeError(f"the serving process failed ({child.returncode}): {child.stderr[-2000:]}")
        measured = [json.loads(line) for line in child.stdout.splitlines() if line.startswith("{")]
    rows: list[dict[str, Any]] = []
    first = measured[0]["rss"]
    for point in measured:
        known = point["caches"]
        rows.append(
            {
                "benchmark": f"API process RSS after {point['tables']:,} tables (caches: {tables_bound:,} tables, "
                f"{players_bound:,} players; holding {known.get('_known', 0):,} states, "
                f"{known.get('_players', 0):,} players)",
                "value": point["rss"] / MIB,
                "target": None,
                "unit": "MiB",
                "baseline": first / MIB,
                "ratio": point["rss"] / first,
            }
        )
        rows.append(
            {
                "benchmark": f"Python heap blocks allocated after {point['tables']:,} tables (sys.getallocatedblocks)",
                "value": point["blocks"],
                "target": None,
                "unit": "blocks",
                "baseline": measured[0]["blocks"],
                "ratio": point["blocks"] / measured[0]["blocks"],
            }
        )
    # Past the bound: the growth from the bound's checkpoint to the last one, per table served.
    past = [p for p in measured if p["tables"] >= tables_bound]
    if len(past) >= 2:
        grown = past[-1]["rss"] - past[0]["rss"]
        tables = past[-1]["tables"] - past[0]["tables"]
        below = [p for p in measured if p["tables"] <= tables_bound]
        rows.append(
            {
                "benchmark": f"RSS growth per table served past the bound ({past[0]['tables']:,} -> "
                f"{past[-1]['tables']:,} tables)",
                "value": grown / tables / 1024,
                "target": None,
                "unit": "KiB/table",
            }
        )
        if len(below) >= 2:
            rows.append(
                {
                    "benchmark": f"RSS growth per table served below the bound ({below[0]['tables']:,} -> "
                    f"{below[-1]['tables']:,} tables)",
                    "value": (below[-1]["rss"] - below[0]["rss"]) / (below[-1]["tables"] - below[0]["tables"]) / 1024,
                    "target": None,
                    "unit": "KiB/table",
                }
            )
    return rows


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        serve_tables(tuple(int(n) for n in sys.argv[2].split(",")))
    else:
        from bench.__main__ import print_table

        print_table(run())
