"""Where a streaming action's cost goes: each component's callgrind instructions per action (the POST, the pushed
views, the bots' client, the relay, Redis, the projection workers) against the bare Flask POST + INSERT request's.
Each count is the difference of two runs, one with more work, so that start-ups cancel (docs/performance.md).

Run: PYTHONHASHSEED=0 python -m bench.action_budget [--game G ...] [--actions 60] [--relay-events 300] [--bots-deals 1]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.action_cost import GAMES, fixed_seed, instructions, script, table_id_of
from bench.counting import callgrind, module_instructions, totals
from bench.harness import bench_stack, fresh_database, played_log, private_redis
from tests.faults.servers import RedisServer

BARE = "the bare request"
PUSHES_FROM_WRITER = 0.5  # with 2 API workers, a seat's stream is on the worker that wrote for half the actions
BODY = {"seat": 1, "action": {"type": "discard", "cards": ["AS", "KD"]}}
BOTS_TABLES, BOTS_TURN_SECONDS = 2, 60  # the clock never acts for a bot slowed by valgrind
RELAY_BATCH, WORKER_BATCH = 2, 7  # events per relay batch, per projection batch
RELAY_WARM_UP = 20  # events published before the counted ones: statements prepared, the script loaded
MODEL_TABLES = ("table_views", "hand_tricks", "ledger_lines", "settlements", "deal_settlements", "closing_refunds")


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
    parts = [(f"{BARE}: {p.component}", p.instructions, p.in_bare) for p in table.bare]
    parts += [(f"{BARE}: total", table.bare_total, 1.0)]
    parts += [(p.component, p.instructions, p.in_bare) for p in table.action]
    parts += [("a streaming action: total", table.action_total, table.action_total / table.bare_total)]
    lines = [title, f"  {'component':<58} {'instructions':>14} {'in bare requests':>17}"]
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


def per_unit(less: tuple[float, float], more: tuple[float, float]) -> float:
    """Instructions per unit of work from two runs' (instructions, units of work)."""
    return (more[0] - less[0]) / (more[1] - less[1])


def this_module(*arguments: Any) -> int:
    """callgrind's total for one of this module's hidden runs (`main`)."""
    return module_instructions("bench.action_budget", [str(argument) for argument in arguments])


def events_per_action(game: str, count: int, seed: int = 24) -> float:
    """The events one action of `bench.action_cost`'s script appends at the table of `seed`, on average."""
    from domain import table as tables

    state = tables.evolve(None, tables.open_table(table_id_of(seed), game, 2, {}, fixed_seed(1)))
    for seat in (0, 1):
        _, state = tables.decide_and_evolve(state, tables.Sit(f"p{seat}", seat, f"seat-{seat}"), {1: fixed_seed(1)})
    return sum(step.events for step in script(state, count, random.Random(seed))) / count


def serve_bare(subject: str, requests: int) -> None:
    """`--bare SUBJECT N` (under callgrind): N POSTs (after three unmeasured) through Flask's test client, to the
    baseline app (`baseline`) or to an app that only answers (`test-client`: the test client's own side)."""
    import os

    from flask import Flask

    from bench.api import create_baseline_app, create_baseline_table

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


def bare_counts(requests: int) -> tuple[float, float]:
    """(the bare endpoint's server side, the test client's side of a POST), instructions per request."""
    per = {}
    for subject in ("test-client", "baseline"):
        per[subject] = per_unit(
            (this_module("--bare", subject, 0), 0), (this_module("--bare", subject, requests), requests)
        )
    return per["baseline"] - per["test-client"], per["test-client"]


def api_counts(game: str, actions: int, seed: int) -> dict[str, float]:
    """The POST (test client included) and both seats' pushes from another app and from the writer, per action
    (`bench.action_cost`'s runs at the table of `seed`, one after the other: they would share its Redis stream)."""
    runs = instructions(game, actions, ["idle", "unpublished", "plain", "streamed", "same app"], seed)
    return {
        "post": (runs["unpublished"] - runs["idle"]) / actions,
        "pushes from another app": (runs["streamed"] - runs["plain"]) / actions,
        "pushes from the writer": (runs["same app"] - runs["plain"]) / actions,
    }


BARE_CLIENT = """
import json, sys
from bench.api import CONCURRENCY, drive_baseline
print(json.dumps(drive_baseline(sys.argv[1], CONCURRENCY, float(sys.argv[2]))["requests"]))
"""


def bots_counts(games: list[str], deals: int, bare_seconds: float) -> dict[str, float]:
    """The bots' instructions per action (`streaming` client) of each game and the bare client's per request, from a
    run with twice the work and one with the work once (or none)."""
    from bench.api import baseline_server

    def bots_run(base_url: str, game: str, deals: int, out: Path) -> tuple[int, int]:
        arguments = ["--url", base_url, "--game", game, "--tables", str(BOTS_TABLES), "--seats", "2"]
        arguments += ["--concurrency", str(BOTS_TABLES), "--client", "streaming", "--deals", str(deals)]
        arguments += ["--seed", "bench-bots-cost", "--turn-seconds", str(BOTS_TURN_SECONDS), "--json", str(out)]
        count, _ = callgrind([sys.executable, "-m", "services.cli.simulate", *arguments])
        summary = json.loads(out.read_text())["summary"]
        if summary["deals_failed"] or summary["deals_completed"] != BOTS_TABLES * deals:
            raise RuntimeError(f"{game}: the bots' deals did not all complete: {summary}")
        return count, int(summary["actions"])

    def bare_run(base_url: str, seconds: float) -> tuple[int, int]:
        count, out = callgrind([sys.executable, "-c", BARE_CLIENT, base_url, str(seconds)])
        return count, int(out.strip().splitlines()[-1])

    got: dict[str, float] = {}
    with bench_stack() as (stack, url), tempfile.TemporaryDirectory(prefix="cardledger-bots-") as scratch:
        for game in games:
            runs = [bots_run(stack.base_url, game, deals * n, Path(scratch) / f"{game}-{n}.json") for n in (1, 2)]
            got[game] = per_unit(*runs)
        with baseline_server(url) as (base_url, _):
            got[BARE] = per_unit(bare_run(base_url, 0.0), bare_run(base_url, bare_seconds))
    return got


# The relay and the workers, on a played log --------------------------------------------------------------------------


def relay_publishes(database_url: str, redis_url: str, events: int) -> None:
    """`--relay` (under callgrind): publish RELAY_WARM_UP + `events` events of the log, RELAY_BATCH at a time, as the
    relay does after each wait: read after its position, pace the next look, publish the batch (a projection job
    waiting, as under steady writes, so that none is enqueued)."""
    import threading

    from infra.db import connect
    from infra.event_store import START
    from services.relay import relay as relay_module

    relay = relay_module.Relay(database_url, redis_url, threading.Event())
    client = relay_module.redis_client(redis_url)
    with connect(database_url, relay_module.COMPONENT) as conn:
        tail = relay_module.LogTail(conn)  # the relay's reads on one cursor held across looks
        position, published = START, 0
        while published < RELAY_WARM_UP + events:
            found = tail.after(position, RELAY_BATCH)
            if not found:
                raise SystemExit(f"the log ends after {published} events: fewer than asked")
            relay.relay_batch(client, found)
            position, published = found[-1].log_position, published + len(found)
    client.close()


def ready_to_publish(redis_url: str) -> None:
    """An empty Redis with a projection job waiting: no batch enqueues another."""
    import redis

    from infra.queueing import enqueue_projections

    client = redis.Redis.from_url(redis_url)
    client.flushdb()
    enqueue_projections(client)
    client.close()


class CallgrindRedis(RedisServer):
    """A private redis-server run by callgrind (`--hz 1`: its timer's work small beside the commands'); its counts
    are written to `out` when it stops."""

    def __init__(self, out: Path) -> None:
        super().__init__()
        self.out = out

    def _arguments(self) -> list[str]:
        return ["valgrind", "--tool=callgrind", f"--callgrind-out-file={self.out}", *super()._arguments(), "--hz", "1"]

    def stop(self) -> None:
        if self.process is not None:  # callgrind writes its counts as the server exits, slowly
            self.process.terminate()
            self.process.wait(timeout=120)
            self.process = None


def relay_per_event(events: int, tables: int = 8) -> tuple[float, float]:
    """(the relay's instructions per event, the Redis server's), publishing a played Cholek Tiga log of `tables`
    tables: `events` more events than the warm-up against the warm-up alone."""
    with private_redis() as redis_url, fresh_database() as url, tempfile.TemporaryDirectory() as scratch:
        played_log(url, "cholek-tiga", tables)
        relay, server = {}, {}
        for n in (0, events):
            ready_to_publish(redis_url)
            relay[n] = (this_module("--relay", url, redis_url, n), n)
        for n in (0, events):
            redis_server = CallgrindRedis(Path(scratch) / f"redis-{n}")
            redis_server.start(timeout=120)
            try:
                ready_to_publish(redis_server.url)
                relay_publishes(url, redis_server.url, n)
            finally:
                redis_server.stop()
            server[n] = (totals(redis_server.out), n)
    return per_unit(relay[0], relay[events]), per_unit(server[0], server[events])


def workers_per_event(tables: int = 8) -> float:
    """A projection worker's instructions per event: every projection caught up in batches of WORKER_BATCH over a
    played Cholek Tiga log, less the same on the caught-up models (the process and its look)."""
    import psycopg

    with fresh_database("cardledger_budget") as url:
        played_log(url, "cholek-tiga", tables)
        with psycopg.connect(url, autocommit=True) as conn:
            events = int(conn.execute("SELECT count(*) FROM events").fetchone()[0])  # type: ignore[index]
            conn.execute(f"TRUNCATE {', '.join(MODEL_TABLES)}")
            conn.execute("DELETE FROM log_positions WHERE name LIKE 'projection:%'")
        full, empty = this_module("--catch-up", url), this_module("--catch-up", url)
        return (full - empty) / events


def measure(games: list[str], args: argparse.Namespace) -> tuple[dict[str, float], dict[str, dict[str, float]]]:
    """(the bare request's parts, each game's components): each game's API runs beside the rest, at tables of their
    own (seeds 24, 25)."""
    with ThreadPoolExecutor(len(games) + 1) as pool:
        api_runs = {game: pool.submit(api_counts, game, args.actions, 24 + n) for n, game in enumerate(games)}
        (bare_server, test_client), (relay, redis), workers, bots = pool.submit(
            lambda: (
                bare_counts(max(args.actions, 100)),
                relay_per_event(args.relay_events),
                workers_per_event(),
                bots_counts(games, args.bots_deals, 10.0),
            )
        ).result()
        api = {game: future.result() for game, future in api_runs.items()}
    bare = {
        "server side (Flask, admission, one INSERT)": bare_server,
        "client side (the bots' HTTP client)": bots[BARE],
    }
    components = {}
    for game in games:
        counts, events = api[game], events_per_action(game, 200)
        other, writer = counts["pushes from another app"], counts["pushes from the writer"]
        components[game] = {
            "API: the POST, server side": counts["post"] - test_client,
            "API: both seats' pushed views (half from the writer)": (
                PUSHES_FROM_WRITER * writer + (1 - PUSHES_FROM_WRITER) * other
            ),
            "bots: client side (streaming)": bots[game],
            f"relay ({events:.3f} events per action)": relay * events,
            "Redis server (the relay's script)": redis * events,
            "projection workers (catch-up, RQ aside)": workers * events,
        }
        print(
            f"{game}: POST with the test client {counts['post']:,.0f} (its side {test_client:,.0f}); pushes per "
            f"action from another app {other:,.0f}, from the writer {writer:,.0f}; per event: relay "
            f"{relay:,.0f}, Redis {redis:,.0f}, workers {workers:,.0f}",
            flush=True,
        )
    return bare, components


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.action_budget", description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", choices=GAMES, action="append", help="default: both")
    parser.add_argument("--actions", type=int, default=60, help="actions of each API run (callgrind)")
    parser.add_argument("--relay-events", type=int, default=300)
    parser.add_argument("--bots-deals", type=int, default=1, help="deals per table of the bots' smaller run")
    hidden = parser.add_mutually_exclusive_group()  # the runs under callgrind
    hidden.add_argument("--catch-up", metavar="URL", help=argparse.SUPPRESS)
    hidden.add_argument("--bare", nargs=2, metavar=("SUBJECT", "REQUESTS"), help=argparse.SUPPRESS)
    hidden.add_argument("--relay", nargs=3, metavar=("URL", "REDIS_URL", "EVENTS"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.relay:
        return relay_publishes(args.relay[0], args.relay[1], int(args.relay[2]))
    if args.bare:
        return serve_bare(args.bare[0], int(args.bare[1]))
    if args.catch_up:
        from infra import projections
        from infra.db import connect

        with connect(args.catch_up) as conn:
            projections.catch_up_all(conn, batch_size=WORKER_BATCH)
        return
    games = args.game or list(GAMES)
    bare, components = measure(games, args)
    for game in games:
        title = f"{game}: instructions per streaming action (callgrind, PYTHONHASHSEED=0)"
        print(render(title, budget(bare, components[game])))


if __name__ == "__main__":
    main()
