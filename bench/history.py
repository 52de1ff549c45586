"""Flat with history: a table that has played DEALS deals against tables on their first deal.

Run: python -m bench.history          (about 2 minutes; BENCH_QUICK=1 plays 20 deals instead of 200)

One `cardledger up` stack (as bench/api.py starts it: a fresh database on DATABASE_URL's server, REDIS_URL,
rate limits off). The old table is played to DEALS finished deals by random bots through the application
service in this process (`CardLedger`, the same commands the API runs, no HTTP: seeding is not measured), while
the stack's relay and workers project it as usual. Then, over HTTP, one client thread:

- actions: alternates BLOCK actions at the old table (deal DEALS + 1 and on) with BLOCK at a young table (a new
  table is opened whenever the young one's first deal ends, so it is always on its first deal), each a read of
  the seat view and a conditional POST, for BENCH_HISTORY_SECONDS (default 20); the POSTs' p50 and p99;
- reads: GET the deal record, the dispute report (JSON) and the dispute page (HTML) of the old table's latest
  finished deal, of a young table's first deal and of that young table's second deal (played for this),
  alternating, READS times each; their p50 and p90, and the number of events in each deal (random deals differ
  in length), with the ratio per event too. A deal's record replays it from the state the previous deal left,
  built from that deal's start and end without its game events; the dispute report's steps fold the previous
  deal once (their public state between deals shows its table). `bench.audit_cost` counts the same reads'
  instructions in process.

Wall-clock latencies on a shared machine are noisy, so the API workers' CPU seconds (psutil, the stack's gunicorn
workers) are read around each block of BLOCK actions at one table, and around each block of reads of one kind and
deal (ROUNDS blocks each, interleaved): CPU per action and per read, a count rather than a clock.

Targets: the old table's action p99 at most ACTION_RATIO_TARGET times the young table's; each read's p50 per
event of its deal at most READ_RATIO_TARGET times the first deal's.
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.api import bench_stack, env_float, quick, redis_url  # noqa: E402
from bench.tables import stack_cpu_seconds  # noqa: E402
from domain import table as tables  # noqa: E402
from infra.config import Settings  # noqa: E402
from services.app.callers import Caller  # noqa: E402
from services.app.ledger import CardLedger  # noqa: E402
from services.bootstrap import bootstrap  # noqa: E402
from services.simulate.bots import Bot, make_bot  # noqa: E402
from services.simulate.client import HttpClient  # noqa: E402
from services.simulate.report import percentile  # noqa: E402

GAME = "cholek-tiga"
DEALS = 200
QUICK_DEALS = 20
READS = 60
ROUNDS = 3  # the reads of each kind and deal come in this many blocks, interleaved with the others
BLOCK = 20  # actions in a row at one table, between readings of the API workers' CPU time
API_WORKER = "API worker (gunicorn)"
ACTION_RATIO_TARGET = 1.2
READ_RATIO_TARGET = 1.2
TURN_SECONDS = 3600  # nothing acts for a seat while the bench looks elsewhere
MAX_ACTIONS_PER_DEAL = 5000


# Seeding, in process --------------------------------------------------------------------------------------------


@dataclass
class Seated:
    caller: Caller
    token: str


def seed_table(ledger: CardLedger, deals: int, rng: random.Random) -> tuple[str, list[Seated]]:
    """A table of GAME with two seats whose `deals` deals are over (it is between deals), and its players."""
    seated = []
    for n in range(2):
        player = ledger.register_player(f"history-{n}")
        caller = ledger.authenticate(str(player["token"]))
        assert caller is not None
        seated.append(Seated(caller, str(player["token"])))
    opened = ledger.open_table(seated[0].caller, GAME, 2, {"turn_seconds": TURN_SECONDS})
    table_id = str(opened["id"])
    for n, player in enumerate(seated):
        ledger.sit(player.caller, table_id, n, f"seed-{n}-1")
    bot = make_bot("random", rng)
    for deal_no in range(1, deals + 1):
        if deal_no > 1:
            for n, player in enumerate(seated):
                ledger.act(
                    player.caller,
                    table_id,
                    {"type": "ready", "client_seed": f"seed-{n}-{deal_no}"},
                    str(uuid.uuid4()),
                    None,
                )
        play_deal_in_process(ledger, table_id, seated, bot)
        if deal_no % 50 == 0:
            print(f"  bench.history: {deal_no} deals played", file=sys.stderr)
    return table_id, seated


def play_deal_in_process(ledger: CardLedger, table_id: str, seated: list[Seated], bot: Bot) -> None:
    for _ in range(MAX_ACTIONS_PER_DEAL):
        state = ledger.load_state(table_id)
        if state.status != "playing":
            return
        to_act = tables.to_act(state)
        assert to_act is not None, f"table {table_id} is playing with no seat to act"
        view = ledger.seat_view(seated[to_act].caller, table_id)
        action = bot.choose(view)
        ledger.act(seated[to_act].caller, table_id, action, str(uuid.uuid4()), int(str(view["version"])))
    raise RuntimeError(f"table {table_id}: a deal did not end in {MAX_ACTIONS_PER_DEAL} actions")


# Over HTTP ------------------------------------------------------------------------------------------------------


@dataclass
class HttpTable:
    """A table played over HTTP, one step at a time."""

    client: HttpClient
    table_id: str
    tokens: list[str]
    bot: Bot
    deal_no: int = 0
    latencies_ms: list[float] = field(default_factory=list)

    def call(
        self, method: str, path: str, body: Any = None, token: str | None = None, headers: dict[str, str] | None = None
    ) -> dict[str, Any]:
        response = self.client.request(method, path, body, token or self.tokens[0], headers)
        return response.body()

    def step(self) -> bool:
        """One action by the seat to act (a read of its view, then the POST, timed); False once the deal is
        over (the table is between deals)."""
        table = self.call("GET", f"/v1/tables/{self.table_id}")
        if table["status"] != "playing":
            return False
        self.deal_no = int(table["deal_no"])
        token = self.tokens[int(table["to_act"])]
        view = self.call("GET", f"/v1/tables/{self.table_id}/view?min_version={table['version']}", token=token)
        if view["to_act"] != view["seat"] or not view["legal_actions"]:
            return True
        headers = {"Idempotency-Key": str(uuid.uuid4()), "If-Match": f'"{view["version"]}"'}
        response = self.client.request(
            "POST", f"/v1/tables/{self.table_id}/actions", self.bot.choose(view), token, headers
        )
        if response.ok:
            self.latencies_ms.append(response.seconds * 1000)
        elif response.status != 412:
            response.body()  # raises, naming the problem
        return True

    def ready(self) -> None:
        deal_no = self.deal_no + 1
        for n, token in enumerate(self.tokens):
            body = {"type": "ready", "client_seed": f"http-{n}-{deal_no}"}
            self.call(
                "POST", f"/v1/tables/{self.table_id}/actions", body, token, {"Idempotency-Key": str(uuid.uuid4())}
            )


def open_young_table(client: HttpClient, bot: Bot, latencies: list[float]) -> HttpTable:
    tokens = []
    for n in range(2):
        tokens.append(str(client.request("POST", "/v1/players", {"name": f"young-{n}"}).body()["token"]))
    body = {"game": GAME, "seats": 2, "options": {"turn_seconds": TURN_SECONDS}}
    table_id = str(client.request("POST", "/v1/tables", body, tokens[0]).body()["id"])
    for n, token in enumerate(tokens):
        client.request("POST", f"/v1/tables/{table_id}/seats", {"seat": n, "client_seed": f"young-{n}"}, token).body()
    return HttpTable(client, table_id, tokens, bot, 1, latencies)


def api_cpu_seconds(root: psutil.Process) -> float:
    """CPU seconds (user + system) the stack's API workers have spent so far."""
    return stack_cpu_seconds(root).get(API_WORKER, 0.0)


def timed(client: HttpClient, path: str, token: str) -> float:
    response = client.request("GET", path, None, token)
    if not response.ok:
        raise RuntimeError(f"GET {path}: {response.status} {response.code}")
    return response.seconds * 1000


def deal_events(client: HttpClient, table_id: str, deal_no: int, token: str) -> int:
    record = client.request("GET", f"/v1/tables/{table_id}/deals/{deal_no}", None, token).body()
    assert record["verification"]["ok"] is True, record["verification"]
    return int(record["ended_version"]) - int(record["started_version"]) + 1


def run() -> list[dict[str, Any]]:
    deals = int(os.environ.get("BENCH_HISTORY_DEALS", "").strip() or (QUICK_DEALS if quick() else DEALS))
    seconds = env_float("BENCH_HISTORY_SECONDS", 20.0, 4.0)
    reads = 8 if quick() else READS
    rng = random.Random("bench-history")
    with bench_stack() as (stack, url):
        container = bootstrap(
            Settings.from_env({**os.environ, "DATABASE_URL": url, "REDIS_URL": redis_url()}), start_embedded=False
        )
        try:
            started = time.monotonic()
            print(f"  bench.history: playing {deals} deals of {GAME} at one table, in process ...", file=sys.stderr)
            old_id, seated = seed_table(container.ledger, deals, rng)
            seeding = time.monotonic() - started
        finally:
            container.close()
        client = HttpClient(stack.base_url)
        root = psutil.Process(stack.process.pid)
        action_cpu: dict[str, list[float]] = {}  # side -> [API worker CPU seconds, steps]
        try:
            old_tokens = [p.token for p in seated]
            old_latencies: list[float] = []
            young_latencies: list[float] = []
            old = HttpTable(client, old_id, old_tokens, make_bot("random", rng), deals, old_latencies)
            old.ready()
            young = open_young_table(client, make_bot("random", rng), young_latencies)
            first_deals: list[HttpTable] = []  # young tables whose first deal is over
            print(f"  bench.history: actions at the old and at young tables, {seconds:.0f} s ...", file=sys.stderr)
            deadline = time.monotonic() + seconds
            while time.monotonic() < deadline or not first_deals:
                for side in ("old", "young"):
                    before, count = api_cpu_seconds(root), 0
                    for _ in range(BLOCK):
                        if side == "old":
                            if not old.step():
                                old.ready()
                        elif not young.step():
                            first_deals.append(young)
                            young = open_young_table(client, make_bot("random", rng), young_latencies)
                        count += 1
                    spent = action_cpu.setdefault(side, [0.0, 0])
                    spent[0] += api_cpu_seconds(root) - before
                    spent[1] += count
            first = first_deals[0]
            first.ready()  # and its second deal: the first one whose record starts from a finished deal
            while first.step():
                pass
            old_events = deal_events(client, old_id, deals, old_tokens[0])
            first_events = deal_events(client, first.table_id, 1, first.tokens[0])
            second_events = deal_events(client, first.table_id, 2, first.tokens[0])
            reads_of: dict[str, Callable[[str, int], str]] = {
                "deal record": lambda table, deal: f"/v1/tables/{table}/deals/{deal}",
                "dispute report (JSON)": lambda table, deal: f"/v1/reports/dispute?table_id={table}&deal_no={deal}",
                "dispute page (HTML)": lambda table, deal: (
                    f"/v1/reports/dispute?table_id={table}&deal_no={deal}&format=html"
                ),
            }
            read_times: dict[tuple[str, str], list[float]] = {}
            read_cpu: dict[tuple[str, str], list[float]] = {}
            print(f"  bench.history: deal records and dispute reports, {reads} of each ...", file=sys.stderr)
            sides = {"old": (old_id, deals, old_tokens[0]), "first": (first.table_id, 1, first.tokens[0])}
            sides["second"] = (first.table_id, 2, first.tokens[0])
            for _ in range(ROUNDS):
                for name, path in reads_of.items():
                    for side, (table, deal, token) in sides.items():
                        before = api_cpu_seconds(root)
                        for _ in range(reads // ROUNDS):
                            read_times.setdefault((name, side), []).append(timed(client, path(table, deal), token))
                        read_cpu.setdefault((name, side), []).append(
                            (api_cpu_seconds(root) - before) / (reads // ROUNDS)
                        )
        finally:
            client.close()
    rows: list[dict[str, Any]] = [
        {
            "benchmark": f"history: {deals} deals of {GAME} played at one table, in process (seeding)",
            "value": seeding,
            "target": None,
            "unit": "s",
        }
    ]
    young_p50, young_p99 = percentile(young_latencies, 0.5), percentile(young_latencies, 0.99)
    old_p50, old_p99 = percentile(old_latencies, 0.5), percentile(old_latencies, 0.99)
    rows += [
        {
            "benchmark": f"history: action POST p50 at a table past {deals} deals / on its first deal "
            f"({len(old_latencies)} / {len(young_latencies)} actions)",
            "value": old_p50,
            "target": None,
            "unit": "ms (max)",
            "baseline": young_p50,
            "ratio": _ratio(old_p50, young_p50),
        },
        {
            "benchmark": f"history: action POST p99 at a table past {deals} deals / on its first deal",
            "value": old_p99,
            "target": None,
            "unit": "ms (max)",
            "baseline": young_p99,
            "ratio": _ratio(old_p99, young_p99),
        },
        {
            "benchmark": f"history: API workers' CPU per action (with its two reads), past {deals} deals / first deal",
            "value": 1000 * action_cpu["old"][0] / action_cpu["old"][1],
            "target": None,
            "unit": "ms (max)",
            "baseline": 1000 * action_cpu["young"][0] / action_cpu["young"][1],
            "ratio": (action_cpu["old"][0] / action_cpu["old"][1]) / (action_cpu["young"][0] / action_cpu["young"][1]),
        },
        {
            "benchmark": f"history: action p99 past {deals} deals / on the first deal",
            "value": _ratio(old_p99, young_p99),
            "target": ACTION_RATIO_TARGET,
            "unit": "ratio (max)",
        },
    ]
    for name in reads_of:
        old_times, first_times = read_times[name, "old"], read_times[name, "first"]
        old_read, first_read = percentile(old_times, 0.5), percentile(first_times, 0.5)
        rows += [
            {
                "benchmark": f"history: {name} p50, deal {deals} ({old_events} events) / a first deal "
                f"({first_events} events)",
                "value": old_read,
                "target": None,
                "unit": "ms (max)",
                "baseline": first_read,
                "ratio": _ratio(old_read, first_read),
            },
            {
                "benchmark": f"history: {name} p90, deal {deals} / a first deal",
                "value": percentile(old_times, 0.9),
                "target": None,
                "unit": "ms (max)",
                "baseline": percentile(first_times, 0.9),
                "ratio": _ratio(percentile(old_times, 0.9), percentile(first_times, 0.9)),
            },
            {
                "benchmark": f"history: {name} p50, deal {deals} / a second deal ({second_events} events)",
                "value": old_read,
                "target": None,
                "unit": "ms (max)",
                "baseline": percentile(read_times[name, "second"], 0.5),
                "ratio": _ratio(old_read, percentile(read_times[name, "second"], 0.5)),
            },
            {
                "benchmark": f"history: {name}, API workers' CPU per read, deal {deals} / a first deal",
                "value": 1000 * statistics.mean(read_cpu[name, "old"]),
                "target": None,
                "unit": "ms (max)",
                "baseline": 1000 * statistics.mean(read_cpu[name, "first"]),
                "ratio": _ratio(statistics.mean(read_cpu[name, "old"]), statistics.mean(read_cpu[name, "first"])),
            },
            {
                "benchmark": f"history: {name}, API workers' CPU per read, deal {deals} / a second deal",
                "value": 1000 * statistics.mean(read_cpu[name, "old"]),
                "target": None,
                "unit": "ms (max)",
                "baseline": 1000 * statistics.mean(read_cpu[name, "second"]),
                "ratio": _ratio(statistics.mean(read_cpu[name, "old"]), statistics.mean(read_cpu[name, "second"])),
            },
            {
                "benchmark": f"history: {name} p50 per event of its deal, deal {deals} / a first deal",
                "value": _ratio(
                    None if old_read is None else old_read / old_events,
                    None if first_read is None else first_read / first_events,
                ),
                "target": READ_RATIO_TARGET,
                "unit": "ratio (max)",
            },
        ]
    return rows


def _ratio(value: float | None, base: float | None) -> float | None:
    return value / base if value is not None and base else None


if __name__ == "__main__":
    from bench.__main__ import print_table

    print_table(run())
