"""Where a streaming action's cost is left, in one table: each component's callgrind instructions per action
against the bare Flask POST + INSERT request's, counted by the existing benches.

Run:  python -m bench.action_budget [--game G ...] [--actions 60] [--relay-events 300] [--bots-deals 1]
      python -m bench.action_budget --layers [--game G] [--actions 200]     (bytecodes of the POST by layer)

Every count is callgrind's (PYTHONHASHSEED=0), from these benches' own functions:

- the bare request: its server side (`bench.pipeline_cost`: the `baseline` app through Flask's test client less
  the test client's own side, `bare-post`), its client side (`bench.bots_cost.run_bare`: the bots' HTTP client
  posting to the bare endpoint under gunicorn);
- the API's POST, server side (`bench.action_cost.run_streamed` without streams or publishing, less the
  scripting run and `bare-post`'s test-client side), the pushed views per action (both seats' streams, from
  another app and from the app that wrote: the `--streamed` runs' differences);
- the bots' client side per action (`bench.bots_cost.run_simulate`, the `streaming` client, two runs);
- the relay and the Redis server per event (`bench.relay_cost.measure`, `--redis-instructions`), times the
  events per action of the same script (`bench.action_cost.script` in memory);
- the projection workers per event: `projections.catch_up_all` in batches of `--batch` over
  `bench.catch_up.played_log`'s log, less the same on the caught-up models, times the events per action.

PostgreSQL's backends are not in the table: their instructions need a postmaster under callgrind
(`bench.append_server --over-protocol`, docs/performance.md), which this command does not start.
`--layers`: the POST's server side in Python bytecodes by layer (a `sys.settrace` opcode tracer on the
actions' requests; standard-library frames are counted in their caller's layer).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

from bench.push_opcodes import OpcodeCounter, _short

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

GAMES = ("cholek-tiga", "cha-kau-tsz")
BARE = "the bare request"
PUSHES_FROM_WRITER = 0.5  # with 2 API workers, a seat's stream is on the worker that wrote for half the actions


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
    bare_total = sum(bare.values())
    if bare_total <= 0:
        raise ValueError(f"the bare request's instructions must be positive, not {bare_total} ({dict(bare)})")
    action_total = sum(action.values())
    if action_total <= 0:
        raise ValueError(f"an action's instructions must be positive, not {action_total} ({dict(action)})")
    floors = []
    for name, count in action.items():
        rest = action_total - count
        floors.append((name, bare_total / rest if rest > 0 else float("inf")))
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

    def row(name: str, count: float, share: float) -> None:
        lines.append(f"  {name:<58} {count:>14,.0f} {share:>17.3f}")

    for part in table.bare:
        row(f"{BARE}: {part.component}", part.instructions, part.in_bare)
    row(f"{BARE}: total", table.bare_total, 1.0)
    for part in table.action:
        row(part.component, part.instructions, part.in_bare)
    row("a streaming action: total", table.action_total, table.action_total / table.bare_total)
    lines.append(f"  ratio (actions per bare request, equal instructions): {table.ratio:.3f} (target {table.target:g})")
    for name, ratio in table.floors:
        shown = "unbounded" if ratio == float("inf") else f"{ratio:.3f}"
        lines.append(f"  floor without {name}: {shown}")
    lines.append(
        f"  the target needs {table.needed:,.0f} instructions per action fewer "
        f"({table.needed / table.bare_total:.3f} bare requests)"
    )
    return "\n".join(lines)


# The counts ----------------------------------------------------------------------------------------------------------


def events_per_action(game: str, count: int, seed: int = 24) -> float:
    """The events one action of `bench.action_cost`'s script appends, on average over `count` actions."""
    from bench.action_cost import memory_table, script

    ledger, callers, table_id = memory_table(game)
    first = ledger.load_state(table_id).version
    steps = script(ledger.load_state(table_id), count, random.Random(seed))
    for n, step in enumerate(steps):
        ledger.act(callers[step.seat], table_id, step.action, f"action-{n}", step.version)
    return float(ledger.load_state(table_id).version - first) / count


def bare_server_and_test_client(requests: int) -> tuple[float, float]:
    """(the bare endpoint's server side, the test client's side of a POST), instructions per request."""
    from bench.pipeline_cost import instructions

    per = {
        subject: (instructions(subject, requests) - instructions(subject, 0)) / requests
        for subject in ("bare-post", "baseline")
    }
    return per["baseline"] - per["bare-post"], per["bare-post"]


def api_counts(game: str, actions: int, seed: int) -> dict[str, float]:
    """The POST (test client included), and the two seats' pushes per action from another app and from the app
    that wrote, instructions per action (`bench.action_cost`'s streamed runs at the table `seed` names, one after
    the other: two runs at once on one table's Redis stream would read each other's entries)."""
    from bench.action_cost import callgrind_instructions

    def run(post: bool, flags: list[str]) -> int:
        return callgrind_instructions(game, actions, post=post, streamed=flags, seed=seed)

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


def bots_counts(games: list[str], deals: int, bare_seconds: float) -> dict[str, float]:
    """The bots' instructions per action (`streaming` client) of each game, and the bare client's per request."""
    from bench.api import baseline_server, bench_stack
    from bench.bots_cost import per, run_bare, run_simulate

    got: dict[str, float] = {}
    with bench_stack() as (stack, url):
        for game in games:
            small, large = (run_simulate(stack.base_url, game, "streaming", deals * n, ROOT, None) for n in (1, 2))
            got[game] = per(small, large)[0]
        with baseline_server(url) as (base_url, _):
            small, large = (run_bare(base_url, seconds, ROOT) for seconds in (0.0, bare_seconds))
            got[BARE] = per(small, large)[1]
    return got


def relay_counts(events: int, batch: int) -> tuple[float, float]:
    """The relay's and the Redis server's instructions per event (`bench.relay_cost`)."""
    from bench.relay_cost import measure

    got = measure(events, batch, 8, True)
    return float(got["instructions"]), float(got["redis_instructions"])


def workers_per_event(batch: int, tables: int = 8) -> float:
    """A projection worker's instructions per event: a catch-up of every projection in batches of `batch` over a
    played Cholek Tiga log, less the same catch-up on the caught-up models (the process and its look)."""
    import psycopg

    from bench.action_cost import server_url
    from bench.callgrind import module_instructions
    from bench.catch_up import played_log, reset_models
    from tests.conftest import fresh_database

    with fresh_database(server_url(), prefix="cardledger_budget") as url:
        played_log(url, "cholek-tiga", tables)
        with psycopg.connect(url) as conn:
            row = conn.execute("SELECT count(*) FROM events").fetchone()
        assert row is not None
        reset_models(url)
        full = module_instructions("bench.action_budget", ["--catch-up", url, str(batch)])
        empty = module_instructions("bench.action_budget", ["--catch-up", url, str(batch)])
        return (full - empty) / int(row[0])


def catch_up(url: str, batch: int) -> None:
    from infra import projections
    from infra.db import connect

    with connect(url) as conn:
        projections.catch_up_all(conn, batch_size=batch)


def measure(
    games: list[str],
    actions: int,
    relay_events: int,
    relay_batch: int,
    worker_batch: int,
    bots_deals: int,
    postgres: bool = False,
) -> tuple[dict[str, float], dict[str, dict[str, float]]]:
    """(the bare request's parts, each game's components), instructions: each game's API runs and the rest's, at
    once."""

    def other_group() -> dict[str, Any]:
        return {
            "bare": bare_server_and_test_client(max(actions, 100)),
            "relay": relay_counts(relay_events, relay_batch),
            "workers": workers_per_event(worker_batch),
            "bots": bots_counts(games, bots_deals, 10.0),
        }

    # The games' API runs at tables of their own (seeds 24, 25), beside each other and the rest.
    with ThreadPoolExecutor(len(games) + 2) as pool:
        api_futures = {game: pool.submit(api_counts, game, actions, 24 + n) for n, game in enumerate(games)}
        database = pool.submit(postgres_counts, 200, relay_events, relay_batch, worker_batch) if postgres else None
        other = pool.submit(other_group).result()
        api = {game: future.result() for game, future in api_futures.items()}
        backends = database.result() if database is not None else None
    bare_server, test_client = other["bare"]
    relay, redis = other["relay"]
    bare = {
        "server side (Flask, admission, one INSERT)": bare_server,
        "client side (the bots' HTTP client)": other["bots"][BARE],
    }
    if backends is not None:
        bare["PostgreSQL backend (one INSERT)"] = backends["insert"]
        print(f"PostgreSQL backends: {', '.join(f'{name} {count:,.0f}' for name, count in backends.items())}")
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
        if backends is not None:
            components[game] |= {
                "PostgreSQL: the API's append": backends["append"],
                "PostgreSQL: the pushes' read (from another app, half)": (1 - PUSHES_FROM_WRITER) * backends["read"],
                "PostgreSQL: the relay's reads": backends["relay per event"] * events,
                "PostgreSQL: the workers' statements": backends["worker per event"] * events,
            }
        print(
            f"{game}: POST with the test client {counts['post']:,.0f} (its side {test_client:,.0f}); pushes per "
            f"action from another app {pushes[0]:,.0f}, from the writer {pushes[1]:,.0f}; per event: relay "
            f"{relay:,.0f}, Redis {redis:,.0f}, workers {other['workers']:,.0f}",
            flush=True,
        )
    return bare, components


# PostgreSQL's backends (a postmaster under callgrind) ------------------------------------------------------------


@contextmanager
def cluster_under_callgrind(scratch: Path) -> Iterator[tuple[str, Path]]:
    """A private PostgreSQL cluster whose postmaster runs under callgrind, each backend writing its own file to
    the folder yielded with the server's URL (autovacuum off: no ANALYZE invalidates a plan mid-run)."""
    import shutil
    import subprocess
    import time

    import psycopg

    from services.simulate.stack import free_port

    data, out = scratch / "data", scratch / "callgrind"
    out.mkdir()
    as_owner: list[str] = []
    if os.geteuid() == 0:  # initdb and postgres refuse root: the cluster is the postgres user's
        as_owner = ["runuser", "-u", "postgres", "--"]
        for path in (scratch, out):
            shutil.chown(path, "postgres")
    binaries = Path(shutil.which("initdb") or "initdb").resolve().parent
    subprocess.run(
        [*as_owner, str(binaries / "initdb"), "-D", str(data), "-U", "postgres", "-A", "trust", "--no-sync"],
        check=True,
        capture_output=True,
    )
    port = free_port()
    command = [*as_owner, "valgrind", "--tool=callgrind", "--trace-children=yes", f"--callgrind-out-file={out}/cg.%p"]
    command += [str(binaries / "postgres"), "-D", str(data), "-p", str(port), "-k", str(scratch)]
    command += ["-c", "listen_addresses=127.0.0.1", "-c", "autovacuum=off", "-c", "fsync=off"]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"postgresql://postgres@127.0.0.1:{port}/postgres"
    try:
        for _ in range(1200):
            try:
                psycopg.connect(url, connect_timeout=5).close()
                break
            except psycopg.OperationalError:
                time.sleep(0.1)
        yield url, out
    finally:
        stop = [*as_owner, str(binaries / "pg_ctl"), "-D", str(data), "stop", "-m", "fast", "-t", "120"]
        subprocess.run(stop, capture_output=True)
        server.wait(timeout=180)


def settled(out: Path) -> set[Path]:
    """The callgrind files in `out` once none has appeared for 3 s (a backend's file is written a little after
    its connection closes)."""
    import time

    files, steady = set(out.glob("cg.*")), 0
    while steady < 15:
        time.sleep(0.2)
        now = set(out.glob("cg.*"))
        files, steady = now, steady + 1 if now == files else 0
    return files


def backends_instructions(out: Path, run: Callable[[], Any]) -> tuple[int, Any]:
    """The instructions of the backends that start and end during `run` (their callgrind files, written when
    each exits: `run` must close its connections), and what `run` returned."""
    from bench.callgrind import totals

    before = settled(out)
    got = run()
    return sum(totals(path) for path in settled(out) - before), got


def postgres_counts(appends: int, relay_events: int, relay_batch: int, worker_batch: int) -> dict[str, float]:
    """PostgreSQL's instructions (backends under callgrind, protocol included): per bare INSERT, per API append
    (an action's idempotency record), per read of a table's events after a view's version (a push from another
    app), per event read by the relay and per event projected by a worker."""
    import psycopg
    from psycopg.types.json import Jsonb

    from bench.append_server import over_protocol, played_answers
    from bench.catch_up import played_log, reset_models
    from bench.lag import _redis
    from bench.pipeline_cost import BODY
    from bench.relay_cost import child
    from infra.migrations import migrate
    from services.app.replays import record_of

    table_id, answers = played_answers(appends + 10)
    encode = json_encoder()
    records = [encode(record_of(answer, table_id)) for answer in answers]
    with (
        tempfile.TemporaryDirectory(prefix="cardledger-budget-") as scratch,
        cluster_under_callgrind(Path(scratch)) as (server, out),
    ):
        with psycopg.connect(server, autocommit=True) as admin:
            admin.execute("CREATE DATABASE budget")
        url = server.rsplit("/", 1)[0] + "/budget"
        migrate(url)
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("CREATE TABLE bench_baseline (id bigserial PRIMARY KEY, data jsonb NOT NULL)")

        def inserts(n: int) -> None:
            with psycopg.connect(url, autocommit=True) as conn:
                for _ in range(n):
                    conn.execute(
                        "INSERT INTO bench_baseline (data) VALUES (%s) RETURNING id", (Jsonb(BODY),)
                    ).fetchone()

        def appended(n: int, reads: bool) -> int:
            return backends_instructions(out, lambda: over_protocol(url, table_id, records[:n], reads))[0]

        got: dict[str, float] = {}
        few, many = (
            backends_instructions(out, lambda: inserts(10))[0],
            backends_instructions(out, lambda: inserts(10 + appends))[0],
        )
        got["insert"] = (many - few) / appends
        few, many = appended(10, False), appended(10 + appends, False)
        got["append"] = (many - few) / appends
        few_read, many_read = appended(10, True), appended(10 + appends, True)
        got["read"] = (many_read - few_read) / appends - got["append"]
        played_log(url, "cholek-tiga", 4)
        with _redis() as redis_url:
            few = backends_instructions(out, lambda: child(url, redis_url, 0, relay_batch))[0]
            many, done = backends_instructions(out, lambda: child(url, redis_url, relay_events, relay_batch))
        got["relay per event"] = (many - few) / done["published"]
        reset_models(url)
        with psycopg.connect(url) as conn:
            row = conn.execute("SELECT count(*) FROM events").fetchone()
        assert row is not None
        full = backends_instructions(out, lambda: catch_up(url, worker_batch))[0]
        empty = backends_instructions(out, lambda: catch_up(url, worker_batch))[0]
        got["worker per event"] = (full - empty) / int(row[0])
    return got


def json_encoder() -> Callable[[Any], str]:
    import json

    return json.JSONEncoder(separators=(",", ":")).encode


# The POST's layers (bytecodes) ---------------------------------------------------------------------------------------

LAYERS = (  # (a path's beginning, its layer); the first that matches
    ("flask/", "Flask and Werkzeug"),
    ("werkzeug/", "Flask and Werkzeug"),
    ("services/api/admission", "auth and admission"),
    ("services/api/auth", "auth and admission"),
    ("services/api/limits", "auth and admission"),
    ("services/api/proxies", "auth and admission"),
    ("services/app/callers", "auth and admission"),
    ("infra/players", "auth and admission"),
    ("services/api/plain_load", "request parse"),
    ("services/api/strict_json", "request parse"),
    ("services/api/schemas", "request parse"),
    ("services/api/converters", "request parse"),
    ("services/api/headers", "request parse"),
    ("services/api/prefer", "request parse"),
    ("services/api/plain_dump", "answer dump"),
    ("services/api/json_answers", "answer dump"),
    ("infra/compact_json", "answer dump"),
    ("services/api/metrics", "metrics and logging"),
    ("services/api/request_ids", "metrics and logging"),
    ("services/app/metrics", "metrics and logging"),
    ("infra/metrics", "metrics and logging"),
    ("prometheus_client/", "metrics and logging"),
    ("logging/", "metrics and logging"),
    ("services/api/", "API routes and hooks"),
    ("domain/hashchain", "hash chain"),
    ("infra/event_store/chain", "hash chain"),
    ("hashlib", "hash chain"),
    ("infra/signing", "receipt signature"),
    ("infra/sodium", "receipt signature"),
    ("infra/receipts", "receipt signature"),
    ("nacl/", "receipt signature"),
    ("domain/", "domain decide/evolve"),
    ("services/app/", "application service"),
    ("psycopg/", "SQL client side (psycopg, the store)"),
    ("psycopg_pool/", "SQL client side (psycopg, the store)"),
    ("infra/event_store/", "SQL client side (psycopg, the store)"),
    ("infra/storage/", "SQL client side (psycopg, the store)"),
    ("infra/db", "SQL client side (psycopg, the store)"),
    ("infra/", "caches and other infra"),
)
OTHER = "standard library, outside any layer"
LAYERS_SEED = 26  # a table of its own: the budget's API runs play at 24 and 25


def layer_of(path: str) -> str | None:
    """The layer of a file (the project's relative to its root, a library's from its package, as
    `bench.push_opcodes` shortens it), or None for the standard library."""
    path = path.removeprefix(f"{ROOT}/")
    for beginning, layer in LAYERS:
        if path.startswith(beginning):
            return layer
    return None


class LayerCounter(OpcodeCounter):
    """Bytecodes by layer on the threads it traces; a frame outside every layer counts in its caller's layer."""

    def __init__(self) -> None:
        super().__init__()
        self.on = False

    def key(self, frame: FrameType) -> Any:
        layer, caller = layer_of(_short(frame.f_code.co_filename)), frame.f_back
        while layer is None and caller is not None:
            layer, caller = layer_of(_short(caller.f_code.co_filename)), caller.f_back
        return layer or OTHER


@contextmanager
def counted_posts(path_end: str) -> Iterator[LayerCounter]:
    """A counter of the bytecodes of every POST whose path ends with `path_end`, in Flask's WSGI call (server
    side: the test client's own work is outside it)."""
    from flask import Flask

    counter = LayerCounter()
    wsgi = Flask.__call__

    def call(app: Any, environ: dict[str, Any], start_response: Any) -> Any:
        counter.on = environ.get("REQUEST_METHOD") == "POST" and environ.get("PATH_INFO", "").endswith(path_end)
        try:
            return counter.traced(wsgi)(app, environ, start_response)
        finally:
            counter.on = False

    Flask.__call__ = call  # type: ignore[method-assign]
    try:
        yield counter
    finally:
        Flask.__call__ = wsgi  # type: ignore[method-assign]


def post_layers(game: str, actions: int) -> tuple[Counter[str], int]:
    """Bytecodes of the actions' POSTs (server side) by layer, and the POSTs counted."""
    from bench import action_cost

    with counted_posts("/actions") as counter:
        outcome = action_cost.run_streamed(
            game, actions, seed=LAYERS_SEED, representation=False, streams=False, trace=False, publish=False
        )
    return counter.opcodes, outcome.actions


def bare_layers(requests: int) -> tuple[Counter[str], int]:
    """Bytecodes of the bare endpoint's POSTs (`bench.pipeline_cost`'s `baseline`, server side) by layer."""
    from bench.pipeline_cost import requester

    server = os.environ.get("DATABASE_URL")
    try:
        with counted_posts("/insert") as counter, requester("baseline") as request:
            for _ in range(requests):
                request()
    finally:  # the baseline's requester points DATABASE_URL at its database
        if server is None:
            os.environ.pop("DATABASE_URL", None)
        else:
            os.environ["DATABASE_URL"] = server
    return counter.opcodes, requests


def print_layers(title: str, opcodes: Counter[str], posts: int) -> None:
    total = sum(opcodes.values())
    print(f"{title}: {total / posts:,.1f} bytecodes per POST (server side, {posts} POSTs)")
    for layer, count in opcodes.most_common():
        print(f"  {layer:<42} {count / posts:9.1f}  {count / total:6.1%}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.action_budget", description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=GAMES, action="append", help="default: both")
    parser.add_argument("--actions", type=int, default=60, help="actions of each API run (callgrind)")
    parser.add_argument("--relay-events", type=int, default=300)
    parser.add_argument("--relay-batch", type=int, default=2, help="events per relay batch")
    parser.add_argument("--worker-batch", type=int, default=7, help="events per projection batch")
    parser.add_argument("--bots-deals", type=int, default=1, help="deals per table of the bots' smaller run")
    parser.add_argument("--layers", action="store_true", help="the POST's server side in bytecodes by layer")
    parser.add_argument("--postgres", action="store_true", help="also PostgreSQL's backends (a private cluster)")
    parser.add_argument("--catch-up", nargs=2, metavar=("URL", "BATCH"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.catch_up:
        catch_up(args.catch_up[0], int(args.catch_up[1]))
        return
    games = args.game or list(GAMES)
    if args.layers:
        print_layers(BARE, *bare_layers(args.actions))
        for game in games:
            print_layers(f"{game} action", *post_layers(game, args.actions))
        return
    bare, components = measure(
        games, args.actions, args.relay_events, args.relay_batch, args.worker_batch, args.bots_deals, args.postgres
    )
    for game in games:
        print(
            render(
                f"{game}: instructions per streaming action (callgrind, PYTHONHASHSEED=0)",
                budget(bare, components[game]),
            )
        )


if __name__ == "__main__":
    main()
