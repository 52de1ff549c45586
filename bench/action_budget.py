"""Where a streaming action's cost goes, in one table: each component's callgrind instructions per action against
the bare Flask POST + INSERT request's.

Run:  python -m bench.action_budget [--game G ...] [--actions 60] [--relay-events 300] [--bots-deals 1]

Every count is callgrind's (PYTHONHASHSEED=0), each the difference of two runs (more work less less work), so that
start-ups cancel:

- the bare request: its server side (the `bench.api` baseline app through Flask's test client, less the test
  client's own side against an app that only answers) and its client side (`bench.api.drive_baseline`, the bots'
  HTTP client posting to the bare endpoint under gunicorn);
- the API's POST, server side (`bench.action_cost.run_streamed` without streams or publishing, less the scripting
  run and the test client's side), and the pushed views per action (both seats' streams, from another app and from
  the app that wrote: the `--streamed` runs' differences);
- the bots' client side per action (`cardledger simulate`, the `streaming` client, against `cardledger up`);
- the relay and the Redis server per event (`relay_per_event`: a played log published as the relay does, and a
  redis-server under callgrind), times the events per action of the same script (`bench.action_cost.script`);
- the projection workers per event: `projections.catch_up_all` in batches of `--worker-batch` over a played log,
  less the same on the caught-up models, times the events per action.

PostgreSQL's backends are not in the table: their instructions need a postmaster under callgrind.
"""

from __future__ import annotations

import argparse
import json
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.counting import callgrind, module_instructions

GAMES = ("cholek-tiga", "cha-kau-tsz")
BARE = "the bare request"
PUSHES_FROM_WRITER = 0.5  # with 2 API workers, a seat's stream is on the worker that wrote for half the actions
BODY = {"seat": 1, "action": {"type": "discard", "cards": ["AS", "KD"]}}
BOTS_TABLES, BOTS_TURN_SECONDS = 2, 60  # the clock never acts for a bot slowed by valgrind


# The table (pure arithmetic on given counts) -------------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    component: str
    instructions: float  # per action (per request for the bare parts)
    in_bare: float  # instructions / the bare request's total


@dataclass(frozen=True)
class Budget:
    bare: list[Row]
    bare_total: float
    action: list[Row]
    action_total: float
    ratio: float  # actions per bare request at equal instructions: bare_total / action_total
    floors: list[tuple[str, float]]  # (component, the ratio with that component removed)
    needed: float  # instructions per action to take out for a ratio of `target`
    target: float


def budget(bare: Mapping[str, float], action: Mapping[str, float], target: float = 0.5) -> Budget:
    """The table of `action`'s components (instructions per action) in bare requests (`bare`'s parts summed)."""
    bare_total, action_total = sum(bare.values()), sum(action.values())
    if bare_total <= 0:
        raise ValueError(f"the bare request's instructions must be positive, not {bare_total} ({dict(bare)})")
    if action_total <= 0:
        raise ValueError(f"an action's instructions must be positive, not {action_total} ({dict(action)})")
    floors = [
        (name, bare_total / (action_total - n) if action_total > n else float("inf")) for name, n in action.items()
    ]
    return Budget(
        [Row(name, count, count / bare_total) for name, count in bare.items()],
        bare_total,
        [Row(name, count, count / bare_total) for name, count in action.items()],
        action_total,
        bare_total / action_total,
        floors,
        max(0.0, action_total - bare_total / target),
        target,
    )


def render(title: str, table: Budget) -> str:
    lines = [title, f"  {'component':<58} {'instructions':>14} {'in bare requests':>17}"]
    parts = [(f"{BARE}: {p.component}", p.instructions, p.in_bare) for p in table.bare]
    parts += [(f"{BARE}: total", table.bare_total, 1.0)]
    parts += [(p.component, p.instructions, p.in_bare) for p in table.action]
    parts += [("a streaming action: total", table.action_total, table.action_total / table.bare_total)]
    lines += [f"  {name:<58} {count:>14,.0f} {share:>17.3f}" for name, count, share in parts]
    lines.append(f"  ratio (actions per bare request, equal instructions): {table.ratio:.3f} (target {table.target:g})")
    for name, ratio in table.floors:
        lines.append(f"  floor without {name}: {'unbounded' if ratio == float('inf') else f'{ratio:.3f}'}")
    lines.append(
        f"  the target needs {table.needed:,.0f} instructions per action fewer "
        f"({table.needed / table.bare_total:.3f} bare requests)"
    )
    return "\n".join(lines)


# The counts ----------------------------------------------------------------------------------------------------------


def memory_table(game: str) -> tuple[Any, list[Any], str]:
    """A two-seat table of `game` opened and seated through the application service on the in-memory storage
    with `bench.action_cost`'s fixed seeds: (the application, the two seats' callers, the table's id)."""
    from bench.action_cost import fixed_seed
    from infra.signing import ReceiptSigner
    from infra.storage.memory import InMemoryStorage
    from services.bootstrap import application

    class FixedSeedStorage(InMemoryStorage):
        def seeds_for(self, table_id: str, deal_numbers: Any) -> dict[int, bytes]:
            return {n: fixed_seed(n) for n in sorted(set(deal_numbers)) if n >= 1}

    ledger = application(FixedSeedStorage(), None, ReceiptSigner.ephemeral())
    callers = [
        ledger.identity.authenticate(str(ledger.identity.register_player(name)["token"])) for name in ("north", "south")
    ]
    table_id = str(ledger.open_table(callers[0], game, 2, {})["id"])
    for seat in (0, 1):
        ledger.sit(callers[seat], table_id, seat, f"seat-{seat}", True)
    return ledger, callers, table_id


def events_per_action(game: str, count: int, seed: int = 24) -> float:
    """The events one action of `bench.action_cost`'s script appends, on average over `count` actions."""
    from bench.action_cost import script

    ledger, callers, table_id = memory_table(game)
    first = ledger.queries.load_state(table_id).version
    for n, step in enumerate(script(ledger.queries.load_state(table_id), count, random.Random(seed))):
        ledger.act(callers[step.seat], table_id, step.action, f"action-{n}", step.version)
    return float(ledger.queries.load_state(table_id).version - first) / count


def serve_bare(subject: str, requests: int) -> None:
    """`--bare SUBJECT N` (under callgrind): N POSTs (after three unmeasured) through Flask's test client, to the
    baseline app (`baseline`, on a fresh database) or to an app that only answers (`test-client`: the test
    client's own side of a request)."""
    import os

    from flask import Flask

    from bench.api import create_baseline_app, create_baseline_table
    from bench.harness import fresh_database

    def answering(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
        start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", "16")])
        return [b'{"status":"ok"}\n']

    def post(client: Any) -> None:
        for _ in range(3 + requests):
            answer = client.post("/insert", json=BODY)
            assert answer.status_code < 300, answer.get_data(as_text=True)
            answer.get_data()
            answer.close()

    if subject == "test-client":
        app = Flask("bare")
        app.wsgi_app = answering  # type: ignore[method-assign]
        post(app.test_client())
        return
    with fresh_database("cardledger_pipeline", migrated=False) as url:
        create_baseline_table(url)
        os.environ["DATABASE_URL"] = url  # create_baseline_app opens its pool there
        post(create_baseline_app().test_client())


def bare_server_and_test_client(requests: int) -> tuple[float, float]:
    """(the bare endpoint's server side, the test client's side of a POST), instructions per request."""
    per = {}
    for subject in ("test-client", "baseline"):
        few, many = (module_instructions("bench.action_budget", ["--bare", subject, str(n)]) for n in (0, requests))
        per[subject] = (many - few) / requests
    return per["baseline"] - per["test-client"], per["test-client"]


def api_counts(game: str, actions: int, seed: int) -> dict[str, float]:
    """The POST (test client included), and the two seats' pushes per action from another app and from the app
    that wrote, instructions per action (`bench.action_cost`'s streamed runs at the table `seed` names, one after
    the other: two runs at once on one table's Redis stream would read each other's entries)."""
    from bench.action_cost import callgrind_instructions

    def run(post: bool, flags: list[str]) -> int:
        return callgrind_instructions(game, actions, post=post, flags=flags, seed=seed)

    idle = run(False, ["--no-streams"])
    alone = run(True, ["--plain", "--no-streams", "--no-publish"])
    published = run(True, ["--plain", "--no-streams"])
    other = run(True, ["--plain"])
    same = run(True, ["--plain", "--same-app"])
    return {
        "post": (alone - idle) / actions,
        "pushes from another app": (other - published) / actions,
        "pushes from the writer": (same - published) / actions,
    }


BARE_CLIENT = """
import json, sys
from bench.api import CONCURRENCY, drive_baseline
print(json.dumps(drive_baseline(sys.argv[1], CONCURRENCY, float(sys.argv[2]))["requests"]))
"""


def bots_counts(games: list[str], deals: int, bare_seconds: float) -> dict[str, float]:
    """The bots' instructions per action (`streaming` client) of each game, and the bare client's per request:
    each the difference of a run with twice the work and a run with the work once (or none), over the actions."""
    from bench.api import baseline_server
    from bench.harness import bench_stack

    got: dict[str, float] = {}
    with bench_stack() as (stack, url), tempfile.TemporaryDirectory(prefix="cardledger-bots-") as scratch:
        for game in games:
            runs = []
            for n in (1, 2):
                out = Path(scratch) / f"{game}-{n}.json"
                arguments = ["--url", stack.base_url, "--game", game, "--tables", str(BOTS_TABLES), "--seats", "2"]
                arguments += ["--concurrency", str(BOTS_TABLES), "--client", "streaming", "--deals", str(deals * n)]
                arguments += ["--seed", "bench-bots-cost", "--turn-seconds", str(BOTS_TURN_SECONDS)]
                instructions, _ = callgrind(
                    [sys.executable, "-m", "services.cli.simulate", *arguments, "--json", str(out)]
                )
                summary = json.loads(out.read_text())["summary"]
                if summary["deals_failed"] or summary["deals_completed"] != BOTS_TABLES * deals * n:
                    raise RuntimeError(f"{game}: the bots' deals did not all complete: {summary}")
                runs.append((instructions, int(summary["actions"])))
            got[game] = (runs[1][0] - runs[0][0]) / (runs[1][1] - runs[0][1])
        with baseline_server(url) as (base_url, _):
            runs = []
            for seconds in (0.0, bare_seconds):
                instructions, out = callgrind([sys.executable, "-c", BARE_CLIENT, base_url, str(seconds)])
                runs.append((instructions, int(out.strip().splitlines()[-1])))
            got[BARE] = (runs[1][0] - runs[0][0]) / (runs[1][1] - runs[0][1])
    return got


# The relay and the workers, on a played log --------------------------------------------------------------------------

RELAY_WARM_UP = 20  # events published before the counted ones: statements prepared, the script loaded
# The read models a catch-up writes, emptied before each counted catch-up.
MODEL_TABLES = ("table_views", "hand_tricks", "ledger_lines", "settlements", "deal_settlements", "closing_refunds")


def relay_publishes(database_url: str, redis_url: str, events: int, batch: int) -> None:
    """Publish `RELAY_WARM_UP` + `events` events of the log, `batch` at a time, as the relay does after each wait:
    read the log after its position (one statement), pace the next look, publish the batch (one script call; a
    projection job waiting, as under steady writes, so none is enqueued)."""
    import threading
    import time

    from infra.db import connect
    from infra.event_store import START
    from services.relay import relay as relay_module

    relay = relay_module.Relay(database_url, redis_url, threading.Event())
    client = relay_module.redis_client(redis_url)
    with connect(database_url, relay_module.COMPONENT) as conn:
        tail = relay_module.LogTail(conn)  # the relay's reads on one cursor held across looks
        position, published = START, 0
        while published < RELAY_WARM_UP + events:
            found = tail.after(position, batch)
            if not found:
                raise SystemExit(f"the log ends after {published} events: fewer than asked")
            relay._next_poll = relay._interval_after(time.monotonic(), len(found))
            relay._publish(client, found)
            relay_module.RELAY_PUBLISHED.inc(len(found))
            position, published = found[-1].log_position, published + len(found)
    client.close()


def _ready_to_publish(redis_url: str) -> None:
    import redis

    from infra.queueing import enqueue_projections

    client = redis.Redis.from_url(redis_url)
    client.flushdb()
    enqueue_projections(client)  # a job waiting: no batch enqueues another
    client.close()


@contextmanager
def redis_under_callgrind(out: Path) -> Iterator[str]:
    """A private redis-server run by callgrind (`--hz 1`: its timer's work small beside the commands'), stopped
    (and its counts written to `out`) when the block ends."""
    import redis

    from services.cli.simulate.stack import free_port
    from tests.faults.servers import redis_server_binary

    port = free_port()
    command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", redis_server_binary(), "--port"]
    command += [str(port), "--save", "", "--appendonly", "no", "--hz", "1"]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"redis://127.0.0.1:{port}/0"
    try:
        client = redis.Redis.from_url(url)
        for _ in range(600):
            try:
                client.ping()
                break
            except redis.ConnectionError:
                time.sleep(0.1)
        client.close()
        yield url
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=120)


def relay_per_event(events: int, batch: int, tables: int = 8) -> tuple[float, float]:
    """(the relay's instructions per event, the Redis server's), over a played Cholek Tiga log of `tables`
    tables: each the difference of publishing `events` more events than the warm-up alone."""
    from bench.counting import totals
    from bench.harness import fresh_database, played_log, private_redis

    with (
        private_redis() as redis_url,
        fresh_database() as url,
        tempfile.TemporaryDirectory(prefix="cardledger-relay-") as scratch,
    ):
        played_log(url, "cholek-tiga", tables)
        relay = {}
        for n in (0, events):
            _ready_to_publish(redis_url)
            relay[n] = module_instructions("bench.action_budget", ["--relay", url, redis_url, str(n), str(batch)])
        server = {}
        for n in (0, events):
            out = Path(scratch) / f"redis-{n}.callgrind"
            with redis_under_callgrind(out) as private_url:
                _ready_to_publish(private_url)
                relay_publishes(url, private_url, n, batch)
            server[n] = totals(out)
    return (relay[events] - relay[0]) / events, (server[events] - server[0]) / events


def reset_models(url: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"TRUNCATE {', '.join(MODEL_TABLES)}")
        conn.execute("DELETE FROM log_positions WHERE name LIKE 'projection:%'")


def workers_per_event(batch: int, tables: int = 8) -> float:
    """A projection worker's instructions per event: a catch-up of every projection in batches of `batch` over a
    played Cholek Tiga log, less the same catch-up on the caught-up models (the process and its look)."""
    import psycopg

    from bench.harness import fresh_database, played_log

    with fresh_database("cardledger_budget") as url:
        played_log(url, "cholek-tiga", tables)
        with psycopg.connect(url) as conn:
            events = int(conn.execute("SELECT count(*) FROM events").fetchone()[0])  # type: ignore[index]
        reset_models(url)
        full, empty = (module_instructions("bench.action_budget", ["--catch-up", url, str(batch)]) for _ in (1, 2))
        return (full - empty) / events


def measure(
    games: list[str], actions: int, relay_events: int, relay_batch: int, worker_batch: int, bots_deals: int
) -> tuple[dict[str, float], dict[str, dict[str, float]]]:
    """(the bare request's parts, each game's components), instructions: each game's API runs and the rest's, at
    once."""

    def other_group() -> dict[str, Any]:
        return {
            "bare": bare_server_and_test_client(max(actions, 100)),
            "relay": relay_per_event(relay_events, relay_batch),
            "workers": workers_per_event(worker_batch),
            "bots": bots_counts(games, bots_deals, 10.0),
        }

    # The games' API runs at tables of their own (seeds 24, 25), beside each other and the rest.
    with ThreadPoolExecutor(len(games) + 1) as pool:
        api_futures = {game: pool.submit(api_counts, game, actions, 24 + n) for n, game in enumerate(games)}
        other = pool.submit(other_group).result()
        api = {game: future.result() for game, future in api_futures.items()}
    (bare_server, test_client), (relay, redis) = other["bare"], other["relay"]
    bare = {
        "server side (Flask, admission, one INSERT)": bare_server,
        "client side (the bots' HTTP client)": other["bots"][BARE],
    }
    components = {}
    for game in games:
        counts, events = api[game], events_per_action(game, 200)
        pushes = counts["pushes from another app"], counts["pushes from the writer"]
        components[game] = {
            "API: the POST, server side": counts["post"] - test_client,
            "API: both seats' pushed views (half from the writer)": (
                PUSHES_FROM_WRITER * pushes[1] + (1 - PUSHES_FROM_WRITER) * pushes[0]
            ),
            "bots: client side (streaming)": other["bots"][game],
            f"relay ({events:.3f} events per action)": relay * events,
            "Redis server (the relay's script)": redis * events,
            "projection workers (catch-up, RQ aside)": other["workers"] * events,
        }
        print(
            f"{game}: POST with the test client {counts['post']:,.0f} (its side {test_client:,.0f}); pushes per "
            f"action from another app {pushes[0]:,.0f}, from the writer {pushes[1]:,.0f}; per event: relay "
            f"{relay:,.0f}, Redis {redis:,.0f}, workers {other['workers']:,.0f}",
            flush=True,
        )
    return bare, components


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.action_budget", description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=GAMES, action="append", help="default: both")
    parser.add_argument("--actions", type=int, default=60, help="actions of each API run (callgrind)")
    parser.add_argument("--relay-events", type=int, default=300)
    parser.add_argument("--relay-batch", type=int, default=2, help="events per relay batch")
    parser.add_argument("--worker-batch", type=int, default=7, help="events per projection batch")
    parser.add_argument("--bots-deals", type=int, default=1, help="deals per table of the bots' smaller run")
    parser.add_argument("--catch-up", nargs=2, metavar=("URL", "BATCH"), help=argparse.SUPPRESS)
    parser.add_argument("--bare", nargs=2, metavar=("SUBJECT", "REQUESTS"), help=argparse.SUPPRESS)
    parser.add_argument("--relay", nargs=4, metavar=("URL", "REDIS_URL", "EVENTS", "BATCH"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.relay:
        relay_publishes(args.relay[0], args.relay[1], int(args.relay[2]), int(args.relay[3]))
        return
    if args.catch_up:
        from infra import projections
        from infra.db import connect

        with connect(args.catch_up[0]) as conn:
            projections.catch_up_all(conn, batch_size=int(args.catch_up[1]))
        return
    if args.bare:
        serve_bare(args.bare[0], int(args.bare[1]))
        return
    games = args.game or list(GAMES)
    bare, components = measure(
        games, args.actions, args.relay_events, args.relay_batch, args.worker_batch, args.bots_deals
    )
    for game in games:
        title = f"{game}: instructions per streaming action (callgrind, PYTHONHASHSEED=0)"
        print(render(title, budget(bare, components[game])))


if __name__ == "__main__":
    main()
