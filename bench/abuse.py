"""One abusive player beside honest tables: the tables' actions must not feel it.

Run: python -m bench.abuse          (about a minute; BENCH_QUICK=1 for a few seconds per run)

`cardledger up` with its default rate limits on (registrations raised: both runs register their players from
one address), against a fresh database on DATABASE_URL's server and Redis at REDIS_URL (bench/api.py). Two
runs of BENCH_ABUSE_SECONDS (default 20) each, on the same stack:

- calm: `cardledger simulate`'s random bots on TABLES Cholek Tiga tables at once;
- abused: the same, while one registered player (seated at a table of its own, so that every report is
  really computed for it) loops on the settlement report, the dispute report of its deal and its table's event
  list, as fast as it can, from ABUSER_CONNECTIONS connections.

Targets: the tables' action p99 in the abused run at most P99_RATIO_TARGET times the calm run's; the abuser is
refused (429) for most of what it sends; nobody gets a 5xx, and the tables' bots get no error answer at all.
"""

from __future__ import annotations

import multiprocessing
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.api import bench_stack, env_float  # noqa: E402
from services.simulate import SimulationConfig, simulate  # noqa: E402
from services.simulate.client import HttpClient  # noqa: E402

TABLES = 8
ABUSER_CONNECTIONS = 16
P99_RATIO_TARGET = 2.0
LIMITS = {"CARDLEDGER_RATE_LIMITS": "on", "CARDLEDGER_RATE_LIMIT_REGISTRATION": "1000/minute"}


def play_tables(base_url: str, seconds: float, seed: str) -> dict[str, Any]:
    config = SimulationConfig(
        base_url=base_url,
        game="cholek-tiga",
        tables=TABLES,
        seats=2,
        concurrency=TABLES,
        bot="random",
        deals=1_000_000,
        duration=seconds,
        progress=False,
        seed=seed,
    )
    summary: dict[str, Any] = simulate(config).summary
    return summary


def abuser_table(base_url: str) -> tuple[str, str]:
    """A player seated at a table of its own whose deal 1 runs: (its token, the table id)."""
    client = HttpClient(base_url)
    try:
        tokens = [client.request("POST", "/v1/players", {"name": f"abuser-{n}"}).body()["token"] for n in (0, 1)]
        table = client.request("POST", "/v1/tables", {"game": "cholek-tiga", "seats": 2}, token=tokens[0]).body()
        for seat, token in enumerate(tokens):
            client.request("POST", f"/v1/tables/{table['id']}/seats", {"seat": seat}, token=token).body()
        return tokens[0], str(table["id"])
    finally:
        client.close()


def abuse_process(base_url: str, token: str, table_id: str, seconds: float, out: Any) -> None:
    """The abuser in a process of its own (its threads must not share the bots' interpreter lock, or the bots'
    latencies would measure the client): loops for `seconds`, puts its answers' statuses on `out`."""
    stop = threading.Event()
    threading.Timer(seconds, stop.set).start()
    out.put(dict(abuse(base_url, token, table_id, stop)))


def abuse(base_url: str, token: str, table_id: str, stop: threading.Event) -> Counter[int]:
    """ABUSER_CONNECTIONS clients looping on the expensive reads until `stop`; answers counted by status."""
    paths = (
        "/v1/reports/settlement",
        f"/v1/reports/dispute?table_id={table_id}&deal_no=1",
        f"/v1/tables/{table_id}/events?after=0&limit=1000",
    )
    statuses: Counter[int] = Counter()
    lock = threading.Lock()

    def loop(offset: int) -> None:
        client = HttpClient(base_url, timeout=60)
        mine: Counter[int] = Counter()
        try:
            n = offset
            while not stop.is_set():
                mine[client.request("GET", paths[n % len(paths)], token=token).status] += 1
                n += 1
        finally:
            client.close()
            with lock:
                statuses.update(mine)

    threads = [threading.Thread(target=loop, args=(n,)) for n in range(ABUSER_CONNECTIONS)]
    for thread in threads:
        thread.start()
    stop.wait()
    for thread in threads:
        thread.join()
    return statuses


def run() -> list[dict[str, Any]]:
    seconds = env_float("BENCH_ABUSE_SECONDS", 20.0, 5.0)
    with bench_stack(LIMITS) as (stack, _):
        print(f"  bench.abuse: {TABLES} tables, no abuser, {seconds:.0f} s ...", file=sys.stderr)
        calm = play_tables(stack.base_url, seconds, "bench-abuse-calm")
        token, table_id = abuser_table(stack.base_url)
        print(f"  bench.abuse: {TABLES} tables and {ABUSER_CONNECTIONS} abusive connections ...", file=sys.stderr)
        context = multiprocessing.get_context("spawn")
        out = context.Queue()
        started = time.monotonic()
        abuser = context.Process(target=abuse_process, args=(stack.base_url, token, table_id, seconds, out))
        abuser.start()
        try:
            loud = play_tables(stack.base_url, seconds, "bench-abuse-loud")
            answers: Counter[int] = Counter(out.get(timeout=seconds + 120))
        finally:
            abuser.join(timeout=30)
            if abuser.is_alive():
                abuser.kill()
        elapsed = min(time.monotonic() - started, seconds + 1)
    calm_p99, loud_p99 = calm["latency_ms"]["p99"], loud["latency_ms"]["p99"]
    sent = sum(answers.values())
    refused = answers.get(429, 0)
    server_errors = sum(count for status, count in answers.items() if status >= 500)
    # Answers the bots had to give up on; a 429 they waited out (or a 412 they re-read after) was retried.
    failed = sum((Counter(run["errors"]) - Counter(run["retried"]) for run in (calm, loud)), Counter[str]())
    waited = sum((Counter(run["retried"]) for run in (calm, loud)), Counter[str]())
    table_errors = sum(failed.values())
    return [
        {"benchmark": "tables' action p99, no abuser", "value": calm_p99, "target": None, "unit": "ms (max)"},
        {"benchmark": "tables' action p99, abused", "value": loud_p99, "target": None, "unit": "ms (max)"},
        {
            "benchmark": "abused / calm action p99",
            "value": loud_p99 / calm_p99 if calm_p99 else None,
            "target": P99_RATIO_TARGET,
            "unit": "ratio (max)",
        },
        {
            "benchmark": "tables' actions/s, no abuser / abused",
            "value": f"{calm['actions_per_s']:,.0f} / {loud['actions_per_s']:,.0f}",
            "target": None,
            "unit": "",
        },
        {
            "benchmark": "abuser requests answered/s",
            "value": sent / elapsed if elapsed else 0.0,
            "target": None,
            "unit": "/s",
        },
        {
            "benchmark": "abuser answers refused with 429",
            "value": refused / sent if sent else None,
            "target": None,
            "unit": f"share ({dict(sorted(answers.items()))})",
        },
        {"benchmark": "abuser 5xx answers", "value": server_errors, "target": 0, "unit": "count (max)"},
        {
            "benchmark": f"tables' failed answers (both runs; waited out or retried: {dict(waited)})",
            "value": table_errors,
            "target": 0,
            "unit": "count (max)",
        },
    ]


if __name__ == "__main__":
    from bench.__main__ import print_table

    print_table(run())
