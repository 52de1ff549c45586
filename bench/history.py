"""Is it flat with history? Actions and audit reads at a table DEALS deals old against tables on their first deal
(latencies and the API workers' CPU). Targets: the old table's action p99, and each read's p50 per event of its
deal, at most ACTION_RATIO_TARGET and READ_RATIO_TARGET times the young ones'.

Run: python -m bench.history     (about 2 minutes; BENCH_HISTORY_SECONDS, default 20; BENCH_HISTORY_DEALS, 200)
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

    def events_in(self, deal_no: int) -> int:
        record = self.get(f"/v1/tables/{self.table_id}/deals/{deal_no}")
        assert record["verification"]["ok"] is True, record["verification"]
        return int(record["ended_version"]) - int(record["started_version"]) + 1


def young_table(client: HttpClient, bot: Bot, latencies: list[float]) -> HttpTable:
    tokens = [str(client.request("POST", "/v1/players", {"name": f"young-{n}"}).body()["token"]) for n in (0, 1)]
    body = {"game": GAME, "seats": 2, "options": {"turn_seconds": TURN_SECONDS}}
    table_id = str(client.request("POST", "/v1/tables", body, tokens[0]).body()["id"])
    for n, token in enumerate(tokens):
        client.request("POST", f"/v1/tables/{table_id}/seats", {"seat": n, "client_seed": f"young-{n}"}, token).body()
    return HttpTable(client, table_id, tokens, bot, 1, latencies)


def seed_old_table(url: str, deals: int, rng: random.Random) -> tuple[str, list[str]]:
    """A table played to `deals` finished deals in this process: its id and its players' tokens."""
    with in_process(url) as container:
        ledger, bot = container.ledger, make_bot("random", rng)
        table_id, callers, tokens = seated_in_process(ledger, GAME, "seed", TURN_SECONDS)
        for deal_no in range(1, deals + 1):
            if deal_no > 1:
                act_in_process(ledger, table_id, callers, bot, "seed")  # every seat ready
            while act_in_process(ledger, table_id, callers, bot, "seed", ready=False):
                pass
    return table_id, tokens


def act_in_blocks(
    old: HttpTable, rng: random.Random, seconds: float, api_cpu: Any
) -> tuple[HttpTable, list[float], Any]:
    """BLOCK actions at the old table and BLOCK at a young one in turn for `seconds` (and until a young table's first
    deal is over): that young table, and the API workers' CPU seconds and actions of each side."""
    young = young_table(old.client, make_bot("random", rng), [])
    first_deals: list[HttpTable] = []  # young tables whose first deal is over
    action_cpu = {"old": [0.0, 0], "young": [0.0, 0]}  # [CPU seconds, steps]
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline or not first_deals:
        for side in ("old", "young"):
            before = api_cpu()
            for _ in range(BLOCK):
                if side == "old" and not old.step():
                    old.ready()
                elif side == "young" and not young.step():
                    first_deals.append(young)
                    young = young_table(old.client, make_bot("random", rng), young.latencies_ms)
            action_cpu[side][0] += api_cpu() - before
            action_cpu[side][1] += BLOCK
    return first_deals[0], young.latencies_ms, action_cpu


def read_in_rounds(sides: dict[str, tuple[HttpTable, int]], reads: int, api_cpu: Any) -> tuple[Any, Any]:
    """Each of READS_OF of each side's deal `reads` times in ROUNDS blocks: (the times, the CPU seconds per read)."""
    times: dict[tuple[str, str], list[float]] = {}
    cpu: dict[tuple[str, str], list[float]] = {}
    for _ in range(ROUNDS):
        for name, path in READS_OF.items():
            for side, (table, deal) in sides.items():
                before = api_cpu()
                for _ in range(reads // ROUNDS):
                    answer = table.client.request(
                        "GET", path.format(table=table.table_id, deal=deal), None, table.tokens[0]
                    )
                    if not answer.ok:
                        raise RuntimeError(f"GET {path}: {answer.status} {answer.code}")
                    times.setdefault((name, side), []).append(answer.seconds * 1000)
                cpu.setdefault((name, side), []).append((api_cpu() - before) / (reads // ROUNDS))
    return times, cpu


def run() -> list[Row]:
    deals = env_int("BENCH_HISTORY_DEALS", 20 if quick() else DEALS)
    seconds = env_float("BENCH_HISTORY_SECONDS", 20.0, 4.0)
    reads = 8 if quick() else READS
    rng = random.Random("bench-history")
    with bench_stack() as (stack, url):
        started = time.monotonic()
        say(f"bench.history: playing {deals} deals of {GAME} at one table, in process ...")
        old_id, old_tokens = seed_old_table(url, deals, rng)
        seeding = time.monotonic() - started
        client = HttpClient(stack.base_url)

        def api_cpu() -> float:
            return stack_cpu_seconds(stack.process.pid).get(API_WORKER, 0.0)

        try:
            old = HttpTable(client, old_id, old_tokens, make_bot("random", rng), deals)
            old.ready()
            say(f"bench.history: actions at the old and at young tables, {seconds:.0f} s ...")
            first, young, action_cpu = act_in_blocks(old, rng, seconds, api_cpu)
            first.ready()  # and its second deal: the first one whose record starts from a finished deal
            while first.step():
                pass
            sides = {"old": (old, deals), "first": (first, 1), "second": (first, 2)}
            events = {side: table.events_in(deal) for side, (table, deal) in sides.items()}
            say(f"bench.history: deal records and dispute reports, {reads} of each ...")
            read_times, read_cpu = read_in_rounds(sides, reads, api_cpu)
        finally:
            client.close()

    def compared(label: str, value: float | None, base: float | None) -> Row:
        return row(f"history: {label}", value, "ms (max)", baseline=base)

    old_p50, old_p99, young_p50, young_p99 = (percentile(t, q) for t in (old.latencies_ms, young) for q in (0.5, 0.99))
    old_cpu, young_cpu = (1000 * action_cpu[side][0] / action_cpu[side][1] for side in ("old", "young"))
    past, deal, counted = f"past {deals} deals", f"deal {deals}", f"({len(old.latencies_ms)} / {len(young)} actions)"
    rows = [
        row(f"history: {deals} deals of {GAME} played at one table, in process (seeding)", seeding, "s"),
        compared(f"action POST p50 at a table {past} / on its first deal {counted}", old_p50, young_p50),
        compared(f"action POST p99 at a table {past} / on its first deal", old_p99, young_p99),
        compared(f"API workers' CPU per action (with its two reads), {past} / first deal", old_cpu, young_cpu),
        row(
            f"history: action p99 {past} / on the first deal",
            ratio(old_p99, young_p99),
            "ratio (max)",
            ACTION_RATIO_TARGET,
        ),
    ]
    for name in READS_OF:
        p50, p90 = ({side: percentile(read_times[name, side], q) for side in sides} for q in (0.5, 0.9))
        cpu = {side: 1000 * statistics.mean(read_cpu[name, side]) for side in sides}
        per_event = {side: None if p50[side] is None else p50[side] / events[side] for side in ("old", "first")}
        sizes = f"({events['old']} events) / a first deal ({events['first']} events)"
        rows += [
            compared(f"{name} p50, {deal} {sizes}", p50["old"], p50["first"]),
            compared(f"{name} p90, {deal} / a first deal", p90["old"], p90["first"]),
            compared(f"{name} p50, {deal} / a second deal ({events['second']} events)", p50["old"], p50["second"]),
            compared(f"{name}, API workers' CPU per read, {deal} / a first deal", cpu["old"], cpu["first"]),
            compared(f"{name}, API workers' CPU per read, {deal} / a second deal", cpu["old"], cpu["second"]),
        ]
        per_event_label = f"history: {name} p50 per event of its deal, {deal} / a first deal"
        rows.append(row(per_event_label, ratio(per_event["old"], per_event["first"]), "ratio (max)", READ_RATIO_TARGET))
    return rows


if __name__ == "__main__":
    print_table(run())
