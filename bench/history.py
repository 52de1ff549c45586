"""Is it flat with history? A table that has played DEALS deals against tables on their first deal.

Run: python -m bench.history     (about 2 minutes; BENCH_HISTORY_SECONDS, default 20; BENCH_QUICK=1: 20 deals)

One `cardledger up` stack. The old table is played to DEALS finished deals by random bots through the application
service in this process (`CardLedger`, no HTTP: seeding is not measured), while the stack's relay and workers
project it. Then, over HTTP, one client thread: actions, BLOCK at the old table (deal DEALS + 1 and on), then
BLOCK at a young table (a new one whenever the young one's first deal ends), each a read of the seat view and a
conditional POST, for BENCH_HISTORY_SECONDS: the POSTs' p50 and p99; reads, the deal record, the dispute report
(JSON) and the dispute page (HTML) of the old table's latest finished deal, of a young table's first deal and of its
second deal, READS times each in ROUNDS interleaved blocks: their p50 and p90, the events in each deal (random
deals differ in length), and the ratio per event. Around each block, the API workers' CPU seconds: CPU per action
and per read, a count rather than a clock.

Targets: the old table's action p99 at most ACTION_RATIO_TARGET times the young table's; each read's p50 per event
of its deal at most READ_RATIO_TARGET times the first deal's.
"""

from __future__ import annotations

import random
import statistics
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from bench.counting import API_WORKER, stack_cpu_seconds
from bench.harness import (
    Row,
    act_in_process,
    bench_stack,
    env_float,
    env_int,
    in_process,
    percentile,
    print_table,
    quick,
    ratio,
    row,
    say,
    seated_in_process,
)
from services.cli.http_client import HttpClient
from services.cli.simulate.bots import Bot, make_bot

GAME = "cholek-tiga"
DEALS = 200
READS = 60
ROUNDS = 3  # the reads of each kind and deal come in this many blocks, interleaved with the others
BLOCK = 20  # actions in a row at one table, between readings of the API workers' CPU time
ACTION_RATIO_TARGET = 1.2
READ_RATIO_TARGET = 1.2
TURN_SECONDS = 3600  # nothing acts for a seat while the bench looks elsewhere
READS_OF = {
    "deal record": "/v1/tables/{table}/deals/{deal}",
    "dispute report (JSON)": "/v1/reports/dispute?table_id={table}&deal_no={deal}",
    "dispute page (HTML)": "/v1/reports/dispute?table_id={table}&deal_no={deal}&format=html",
}


@dataclass
class HttpTable:
    """A table played over HTTP, one step at a time."""

    client: HttpClient
    table_id: str
    tokens: list[str]
    bot: Bot
    deal_no: int = 0
    latencies_ms: list[float] = field(default_factory=list)

    def get(self, path: str, token: str | None = None) -> dict[str, Any]:
        return self.client.request("GET", path, None, token or self.tokens[0]).body()

    def step(self) -> bool:
        """One action by the seat to act (a read of its view, then the POST, timed); False once the deal is over."""
        table = self.get(f"/v1/tables/{self.table_id}")
        if table["status"] != "playing":
            return False
        self.deal_no, token = int(table["deal_no"]), self.tokens[int(table["to_act"])]
        view = self.get(f"/v1/tables/{self.table_id}/view?min_version={table['version']}", token)
        if view["to_act"] != view["seat"] or not view["legal_actions"]:
            return True
        headers = {"Idempotency-Key": str(uuid.uuid4()), "If-Match": f'"{view["version"]}"'}
        path = f"/v1/tables/{self.table_id}/actions"
        answer = self.client.request("POST", path, self.bot.choose(view), token, headers)
        if answer.ok:
            self.latencies_ms.append(answer.seconds * 1000)
        elif answer.status != 412:
            answer.body()  # raises, naming the problem
        return True

    def ready(self) -> None:
        for n, token in enumerate(self.tokens):
            body = {"type": "ready", "client_seed": f"http-{n}-{self.deal_no + 1}"}
            headers = {"Idempotency-Key": str(uuid.uuid4())}
            self.client.request("POST", f"/v1/tables/{self.table_id}/actions", body, token, headers).body()


def young_table(client: HttpClient, bot: Bot, latencies: list[float]) -> HttpTable:
    tokens = [str(client.request("POST", "/v1/players", {"name": f"young-{n}"}).body()["token"]) for n in (0, 1)]
    body = {"game": GAME, "seats": 2, "options": {"turn_seconds": TURN_SECONDS}}
    table_id = str(client.request("POST", "/v1/tables", body, tokens[0]).body()["id"])
    for n, token in enumerate(tokens):
        client.request("POST", f"/v1/tables/{table_id}/seats", {"seat": n, "client_seed": f"young-{n}"}, token).body()
    return HttpTable(client, table_id, tokens, bot, 1, latencies)


def deal_events(table: HttpTable, deal_no: int) -> int:
    record = table.get(f"/v1/tables/{table.table_id}/deals/{deal_no}")
    assert record["verification"]["ok"] is True, record["verification"]
    return int(record["ended_version"]) - int(record["started_version"]) + 1


def run() -> list[Row]:
    deals = env_int("BENCH_HISTORY_DEALS", 20 if quick() else DEALS)
    seconds = env_float("BENCH_HISTORY_SECONDS", 20.0, 4.0)
    reads = 8 if quick() else READS
    rng = random.Random("bench-history")
    with bench_stack() as (stack, url):
        started = time.monotonic()
        say(f"bench.history: playing {deals} deals of {GAME} at one table, in process ...")
        with in_process(url) as container:
            ledger, bot = container.ledger, make_bot("random", rng)
            old_id, callers, old_tokens = seated_in_process(ledger, GAME, "seed", TURN_SECONDS)
            for deal_no in range(1, deals + 1):
                if deal_no > 1:
                    act_in_process(ledger, old_id, callers, bot, "seed")  # every seat ready
                while act_in_process(ledger, old_id, callers, bot, "seed", ready=False):
                    pass
        seeding = time.monotonic() - started
        client = HttpClient(stack.base_url)

        def api_cpu() -> float:
            return stack_cpu_seconds(stack.process.pid).get(API_WORKER, 0.0)

        action_cpu: dict[str, list[float]] = {"old": [0.0, 0], "young": [0.0, 0]}  # [CPU seconds, steps]
        try:
            old = HttpTable(client, old_id, old_tokens, make_bot("random", rng), deals)
            old.ready()
            young = young_table(client, make_bot("random", rng), [])
            first_deals: list[HttpTable] = []  # young tables whose first deal is over
            say(f"bench.history: actions at the old and at young tables, {seconds:.0f} s ...")
            deadline = time.monotonic() + seconds
            while time.monotonic() < deadline or not first_deals:
                for side in ("old", "young"):
                    before = api_cpu()
                    for _ in range(BLOCK):
                        if side == "old" and not old.step():
                            old.ready()
                        elif side == "young" and not young.step():
                            first_deals.append(young)
                            young = young_table(client, make_bot("random", rng), young.latencies_ms)
                    action_cpu[side][0] += api_cpu() - before
                    action_cpu[side][1] += BLOCK
            first = first_deals[0]
            first.ready()  # and its second deal: the first one whose record starts from a finished deal
            while first.step():
                pass
            sides = {"old": (old, deals), "first": (first, 1), "second": (first, 2)}
            events = {side: deal_events(table, deal) for side, (table, deal) in sides.items()}
            read_times: dict[tuple[str, str], list[float]] = {}
            read_cpu: dict[tuple[str, str], list[float]] = {}
            say(f"bench.history: deal records and dispute reports, {reads} of each ...")
            for _ in range(ROUNDS):
                for name, path in READS_OF.items():
                    for side, (table, deal) in sides.items():
                        before = api_cpu()
                        for _ in range(reads // ROUNDS):
                            answer = client.request(
                                "GET", path.format(table=table.table_id, deal=deal), None, table.tokens[0]
                            )
                            if not answer.ok:
                                raise RuntimeError(f"GET {path}: {answer.status} {answer.code}")
                            read_times.setdefault((name, side), []).append(answer.seconds * 1000)
                        read_cpu.setdefault((name, side), []).append((api_cpu() - before) / (reads // ROUNDS))
        finally:
            client.close()
    old_p50, old_p99 = percentile(old.latencies_ms, 0.5), percentile(old.latencies_ms, 0.99)
    young_p50, young_p99 = percentile(young.latencies_ms, 0.5), percentile(young.latencies_ms, 0.99)
    old_cpu, young_cpu = (action_cpu[side][0] / action_cpu[side][1] for side in ("old", "young"))
    rows = [
        row(f"history: {deals} deals of {GAME} played at one table, in process (seeding)", seeding, "s"),
        row(
            f"history: action POST p50 at a table past {deals} deals / on its first deal "
            f"({len(old.latencies_ms)} / {len(young.latencies_ms)} actions)",
            old_p50,
            "ms (max)",
            baseline=young_p50,
        ),
        row(
            f"history: action POST p99 at a table past {deals} deals / on its first deal",
            old_p99,
            "ms (max)",
            baseline=young_p99,
        ),
        row(
            f"history: API workers' CPU per action (with its two reads), past {deals} deals / first deal",
            1000 * old_cpu,
            "ms (max)",
            baseline=1000 * young_cpu,
        ),
        row(
            f"history: action p99 past {deals} deals / on the first deal",
            ratio(old_p99, young_p99),
            "ratio (max)",
            ACTION_RATIO_TARGET,
        ),
    ]
    for name in READS_OF:
        p50 = {side: percentile(read_times[name, side], 0.5) for side in sides}
        p90 = {side: percentile(read_times[name, side], 0.9) for side in sides}
        cpu = {side: statistics.mean(read_cpu[name, side]) for side in sides}
        per_event = {side: None if p50[side] is None else p50[side] / events[side] for side in ("old", "first")}
        rows += [
            row(
                f"history: {name} p50, deal {deals} ({events['old']} events) / a first deal ({events['first']} events)",
                p50["old"],
                "ms (max)",
                baseline=p50["first"],
            ),
            row(f"history: {name} p90, deal {deals} / a first deal", p90["old"], "ms (max)", baseline=p90["first"]),
            row(
                f"history: {name} p50, deal {deals} / a second deal ({events['second']} events)",
                p50["old"],
                "ms (max)",
                baseline=p50["second"],
            ),
            *(
                row(
                    f"history: {name}, API workers' CPU per read, deal {deals} / a {side} deal",
                    1000 * cpu["old"],
                    "ms (max)",
                    baseline=1000 * cpu[side],
                )
                for side in ("first", "second")
            ),
            row(
                f"history: {name} p50 per event of its deal, deal {deals} / a first deal",
                ratio(per_event["old"], per_event["first"]),
                "ratio (max)",
                READ_RATIO_TARGET,
            ),
        ]
    return rows


if __name__ == "__main__":
    print_table(run())
