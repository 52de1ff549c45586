"""Does an abuser slow the others? Bots on TABLES tables of `cardledger up` (rate limits on), calm and then beside
one player hammering the reports from ABUSER_CONNECTIONS connections: the tables' action p99 must not feel it.

Run: python -m bench.abuse     (about a minute; BENCH_ABUSE_SECONDS per run, default 20)
"""

from __future__ import annotations

import multiprocessing
import threading
import time
from collections import Counter
from typing import Any

from bench.harness import Row, bench_stack, env_float, in_threads, play, print_table, row, say
from services.cli.http_client import HttpClient

TABLES = 8
ABUSER_CONNECTIONS = 16
P99_RATIO_TARGET = 2.0
LIMITS = {"CARDLEDGER_RATE_LIMITS": "on", "CARDLEDGER_RATE_LIMIT_REGISTRATION": "1000/minute"}


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


def abuse(base_url: str, token: str, table_id: str, seconds: float, out: Any) -> None:
    """ABUSER_CONNECTIONS clients looping on the expensive reads for `seconds`; puts the answers by status on `out`."""
    paths = (
        "/v1/reports/settlement",
        f"/v1/reports/dispute?table_id={table_id}&deal_no=1",
        f"/v1/tables/{table_id}/events?after=0&limit=1000",
    )
    statuses: Counter[int] = Counter()
    lock, deadline = threading.Lock(), time.monotonic() + seconds

    def loop(n: int) -> None:
        client, mine = HttpClient(base_url, timeout=60), Counter[int]()
        try:
            while time.monotonic() < deadline:
                mine[client.request("GET", paths[n % len(paths)], token=token).status] += 1
                n += 1
        finally:
            client.close()
            with lock:
                statuses.update(mine)

    in_threads(ABUSER_CONNECTIONS, loop)
    out.put(dict(statuses))


def run() -> list[Row]:
    seconds = env_float("BENCH_ABUSE_SECONDS", 20.0, 5.0)
    with bench_stack(LIMITS) as (stack, _):
        say(f"bench.abuse: {TABLES} tables, no abuser, {seconds:.0f} s ...")
        calm = play(stack.base_url, "cholek-tiga", TABLES, seconds, "bench-abuse-calm")
        token, table_id = abuser_table(stack.base_url)
        say(f"bench.abuse: {TABLES} tables and {ABUSER_CONNECTIONS} abusive connections ...")
        context = multiprocessing.get_context("spawn")
        out = context.Queue()
        started = time.monotonic()
        abuser = context.Process(target=abuse, args=(stack.base_url, token, table_id, seconds, out))
        abuser.start()
        try:
            loud = play(stack.base_url, "cholek-tiga", TABLES, seconds, "bench-abuse-loud")
            answers: Counter[int] = Counter(out.get(timeout=seconds + 120))
        finally:
            abuser.join(timeout=30)
            if abuser.is_alive():
                abuser.kill()
        elapsed = min(time.monotonic() - started, seconds + 1)
    calm_p99, loud_p99 = calm["latency_ms"]["p99"], loud["latency_ms"]["p99"]
    sent, shares = sum(answers.values()), f"share ({dict(sorted(answers.items()))})"
    # Answers the bots had to give up on; a 429 they waited out (or a 412 they re-read after) was retried.
    failed = sum((Counter(run["errors"]) - Counter(run["retried"]) for run in (calm, loud)), Counter[str]())
    waited = sum((Counter(run["retried"]) for run in (calm, loud)), Counter[str]())
    rates = f"{calm['actions_per_s']:,.0f} / {loud['actions_per_s']:,.0f}"
    return [
        row("tables' action p99, no abuser", calm_p99, "ms (max)"),
        row("tables' action p99, abused", loud_p99, "ms (max)"),
        row("abused / calm action p99", loud_p99 / calm_p99 if calm_p99 else None, "ratio (max)", P99_RATIO_TARGET),
        row("tables' actions/s, no abuser / abused", rates),
        row("abuser requests answered/s", sent / elapsed if elapsed else 0.0, "/s"),
        row("abuser answers refused with 429", answers.get(429, 0) / sent if sent else None, shares),
        row("abuser 5xx answers", sum(n for status, n in answers.items() if status >= 500), "count (max)", 0),
        row(
            f"tables' failed answers (both runs; waited out or retried: {dict(waited)})",
            sum(failed.values()),
            "count (max)",
            0,
        ),
    ]


if __name__ == "__main__":
    print_table(run())
