"""The API process's own cost of a `streaming` action (Flask's test client, both seats' view streams on a second
app or, with --same-app, on the writer): SQL round trips and Redis commands per action, or with --callgrind the
instructions of a POST (with and without its view) and of a pushed seat view (docs/performance.md).

Run:  python -m bench.action_cost [--game cholek-tiga] [--actions 300] [--plain] [--same-app]
      python -m bench.action_cost --callgrind [--game cholek-tiga] [--actions 60]    (valgrind; minutes per game)
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import random
import threading
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

from bench.counting import counting_redis, module_instructions
from bench.harness import fresh_database, redis_url, registered_signer

GAMES = ("cholek-tiga", "cha-kau-tsz")
POOL_SIZE = 2  # a write that starts a deal asks whether it holds an old private block on a second connection
RUNS = {  # the callgrind runs of this script that the counts are differences of: their flags
    "idle": ["--no-post", "--no-streams"],
    "representation": ["--no-streams"],
    "unpublished": ["--plain", "--no-streams", "--no-publish"],
    "plain": ["--plain", "--no-streams"],
    "streamed": ["--plain"],
    "same app": ["--plain", "--same-app"],
}


def fixed_seed(deal_no: int) -> bytes:
    return hashlib.sha256(f"bench.action_cost deal {deal_no}".encode()).digest()


def store_fixed_seeds(database_url: str, table_id: str, deals: int) -> None:
    """Deals 1..`deals` get their fixed seeds before the table opens (a stored seed wins over a drawn one)."""
    import psycopg

    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.cursor().executemany(
            "INSERT INTO deal_seeds (stream_id, deal_no, server_seed) VALUES (%s, %s, %s)",
            [(table_id, n, fixed_seed(n)) for n in range(1, deals + 1)],
        )


@dataclass(frozen=True)
class Step:
    seat: int
    action: dict[str, Any]
    version: int  # the table's version the action is chosen at (its If-Match)
    events: int  # the events it appends


def script(state: Any, count: int, rng: random.Random) -> list[Step]:
    """`count` actions from `state` through the pure domain with the fixed seeds: a random legal action of the
    seat to act, `ready` for every seat between deals."""
    from domain import table as tables
    from domain.games import game_named
    from services.cli.simulate.bots import RandomBot

    bot, steps = RandomBot(rng), list[Step]()
    while len(steps) < count:
        if state.status == tables.BETWEEN_DEALS:
            seat = min(set(range(state.seats)) - set(state.ready))
            action: dict[str, Any] = {"type": "ready", "client_seed": f"ready-{seat}-{state.deal_no}"}
        else:
            assert state.status == tables.PLAYING, f"the table is {state.status}"
            seat = tables.to_act(state)
            assert seat is not None
            hand = game_named(state.game).hand(state.deal, seat)
            action = bot.choose({"legal_actions": tables.legal_actions(state, seat), "hand": hand})
        seeds = {n: fixed_seed(n) for n in (state.deal_no, state.deal_no + 1) if n >= 1}
        new, after = tables.decide_and_evolve(state, tables.Act(seat, action), seeds)
        steps.append(Step(seat, action, state.version, len(new)))
        state = after
    return steps


def table_id_of(seed: int) -> str:
    return str(uuid.UUID(int=seed))


def posted(client: Any, path: str, **kwargs: Any) -> Any:
    """A POST through Flask's test client, its answer read and closed (admission holds a slot until then)."""
    answer = client.post(path, **kwargs)
    answer.get_data()
    answer.close()
    return answer


@contextmanager
def served_app(database_url: str, commands: Counter[str] | None = None) -> Iterator[tuple[Any, Any]]:
    """The API app as gunicorn serves it, on POOL_SIZE pooled connections: (app, container). `commands`: count
    the container's Redis commands there."""
    from infra.config import Settings
    from services.api import create_app, served_admission
    from services.bootstrap import bootstrap

    settings = Settings(database_url=database_url, redis_url=redis_url())
    signer = registered_signer(database_url)
    container = bootstrap(
        settings, pool_max_size=POOL_SIZE, pool_min_size=POOL_SIZE, start_embedded=False, signer=signer
    )
    if commands is not None:
        container.redis.close()
        container.redis = counting_redis(commands, redis_url())
    try:
        middleware = [served_admission(container.settings.serving)]
        yield create_app(container=container, config={"RATE_LIMITS_ENABLED": False}, middleware=middleware), container
    finally:
        container.close()


def seated_over_http(client: Any, game: str, seed: int) -> list[dict[str, str]]:
    """Two players register, open a two-seat table (its id fixed by `seed`) and sit: each seat's headers."""
    auth = []
    for name in ("north", "south"):
        answer = posted(client, "/v1/players", json={"name": name})
        assert answer.status_code == 201, answer.get_json()
        auth.append({"Authorization": f"Bearer {answer.get_json()['token']}"})
    opened = posted(client, "/v1/tables", json={"game": game, "seats": 2, "options": {}}, headers=auth[0])
    assert opened.status_code == 201 and opened.get_json()["id"] == table_id_of(seed), opened.get_json()
    for seat in (0, 1):
        body = {"seat": seat, "client_seed": f"seat-{seat}"}
        seated = posted(client, f"/v1/tables/{table_id_of(seed)}/seats", json=body, headers=auth[seat])
        assert seated.status_code == 201, seated.get_json()
    return auth


class SeatViewStream:
    """One seat's view stream on an app, read on a thread of its own: the versions of the views pushed (from each
    message's SSE id; the data is not parsed)."""

    def __init__(self, client: Any, path: str, headers: dict[str, str]) -> None:
        self.response = client.get(path, headers=headers)
        assert self.response.status_code == 200, self.response.get_data(as_text=True)
        self.versions: list[int] = []
        self.changed = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        buffer = ""
        with contextlib.suppress(Exception):  # the apps closed under a stream left waiting: the run is over
            for chunk in self.response.response:
                buffer += chunk.decode() if isinstance(chunk, bytes) else chunk
                while "\n\n" in buffer:
                    block, buffer = buffer.split("\n\n", 1)
                    if block.startswith("id: ") and "\nevent: view\n" in block:
                        with self.changed:
                            self.versions.append(int(block[4 : block.index("\n")]))
                            self.changed.notify_all()

    def wait_for(self, version: int) -> None:
        with self.changed:
            reached = self.changed.wait_for(lambda: bool(self.versions) and self.versions[-1] >= version, 60)
        assert reached, f"no view at version {version} was pushed (pushed: {self.versions[-3:]})"


@dataclass
class Outcome:
    actions: int
    views: int  # seat views pushed
    round_trips: int  # of the app serving the streams (with same_app, the POSTs' too)
    redis_commands: Counter[str]  # sent by the app serving the streams


def run_streamed(game: str, count: int, args: argparse.Namespace) -> Outcome:
    """Post `count` scripted actions and await each seat's pushed view of each (module docstring). `args.quiet`:
    no libpq trace (under callgrind, where tracing the POSTs' pool with --same-app would count its writing);
    `args.no_publish` (with --no-streams): the POSTs alone, their events left to the relay."""
    import services.app.commands
    from infra import redis_bus
    from tests.round_trips import round_trips, traced_pool

    seed, table_id = args.seed, table_id_of(args.seed)
    services.app.commands.uuid = SimpleNamespace(uuid4=lambda: uuid.UUID(int=seed))  # type: ignore[attr-defined,assignment]
    commands: Counter[str] = Counter()  # the Redis commands of the app serving the streams
    with fresh_database("cardledger_cost") as url:
        store_fixed_seeds(url, table_id, count + 2)
        with (
            served_app(url, commands if args.same_app else None) as (app, writer),
            served_app(url) as (_, relay),
            served_app(url, None if args.same_app else commands) as (viewer_app, viewer),
        ):
            if args.same_app:
                viewer_app, viewer = app, writer
            viewer_app.config.update(SSE_MAX_SECONDS=3600, SSE_HEARTBEAT_SECONDS=3600)
            relay.redis.delete(redis_bus.table_stream(table_id))  # a previous run's entries
            client = app.test_client()
            auth = seated_over_http(client, game, seed)
            redis_bus.publish(relay.redis, relay.store.read_stream(table_id))
            known = writer.ledger.states.newest(table_id)
            assert known is not None, "the app keeps the state it wrote"
            steps = script(known.state, count, random.Random(seed))  # scripted in every run: its cost cancels
            trace = None if args.quiet else traced_pool(viewer.pool, POOL_SIZE)  # with same_app, the POSTs' too
            path = f"/v1/tables/{table_id}/view/stream"
            viewer_client = viewer_app.test_client()
            streams = [] if args.no_streams else [SeatViewStream(viewer_client, path, a) for a in auth]
            for stream in streams:
                stream.wait_for(known.state.version)
            start, commands_before = trace.mark() if trace else [], Counter(commands)
            prefer = {} if args.plain else {"Prefer": "return=representation"}
            for n, step in enumerate([] if args.no_post else steps):
                headers = {**auth[step.seat], "Idempotency-Key": f"action-{n}", "If-Match": f'"{step.version}"'}
                answer = posted(client, f"/v1/tables/{table_id}/actions", json=step.action, headers=headers | prefer)
                answered = answer.get_json()  # parsed once: the script's parsing is no push's cost
                assert answer.status_code == 201 and ("view" in answered) != args.plain, (step, answered)
                if not args.no_publish:
                    redis_bus.publish(relay.redis, relay.store.read_stream(table_id, from_version=step.version + 1))
                for stream in streams:
                    stream.wait_for(int(answered["version"]))
            trips = round_trips(trace.since(start)) if trace else 0
            if trace:  # the streams are left waiting (daemon threads): the apps close at the end anyway
                trace.close()
    actions = 0 if args.no_post else len(steps)
    return Outcome(actions, actions * len(streams), trips, commands - commands_before)


def report(game: str, outcome: Outcome, same_app: bool) -> str:
    where = "its POST and pushed views" if same_app else "pushed views, the app serving them"
    per = outcome.actions
    each = ", ".join(f"{name} {n / per:.3f}" for name, n in outcome.redis_commands.most_common())
    return (
        f"{game}: {outcome.actions} actions posted, {outcome.views} seat views pushed\n"
        f"  SQL round trips per action ({where}): {outcome.round_trips / per:.3f}\n"
        f"  Redis commands per action of the app serving the streams: "
        f"{sum(outcome.redis_commands.values()) / per:.3f} ({each or 'none'})"
    )


def instructions(game: str, count: int, runs: list[str], seed: int = 24) -> dict[str, int]:
    """callgrind's total of each of `runs` (RUNS) of this script, scripting `count` actions at the table of `seed`."""
    arguments = ["--game", game, "--actions", str(count), "--seed", str(seed), "--quiet"]
    return {name: module_instructions("bench.action_cost", [*arguments, *RUNS[name]]) for name in runs}


def callgrind_line(game: str, count: int) -> str:
    """`--callgrind`: a POST with and without its view, and a pushed view from another app or from the writer."""
    runs = instructions(game, count, ["idle", "representation", "plain", "streamed", "same app"])
    idle, plain = runs["idle"], runs["plain"]
    pushes, same = runs["streamed"] - plain, runs["same app"] - plain
    return (
        f"{game}: {count} actions: {idle:,} instructions opening the apps and scripting them; "
        f"{(runs['representation'] - idle) / count:,.0f} per action POST with return=representation, "
        f"{(plain - idle) / count:,.0f} without (each with its events published); "
        f"{pushes / (2 * count):,.0f} per pushed seat view (two seats' streams, {pushes / count:,.0f} per action) "
        f"served by another app, {same / (2 * count):,.0f} served by the app that wrote"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.action_cost", description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", choices=GAMES, action="append", help="default: both")
    parser.add_argument("--actions", type=int, default=300)
    parser.add_argument("--callgrind", action="store_true", help="count instructions per action (valgrind)")
    parser.add_argument("--plain", action="store_true", help="POSTs without return=representation")
    parser.add_argument("--same-app", action="store_true", help="the streams are served by the app that writes")
    for hidden in ("--no-streams", "--no-post", "--no-publish", "--quiet"):  # the callgrind runs' (RUNS)
        parser.add_argument(hidden, action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--seed", type=int, default=24, help=argparse.SUPPRESS)  # the table id's
    args = parser.parse_args(argv)
    if args.no_publish and not args.no_streams:
        parser.error("--no-publish leaves the streams nothing to push: give --no-streams too")
    for game in args.game or list(GAMES):
        if args.callgrind:
            print(callgrind_line(game, args.actions))
            continue
        outcome = run_streamed(game, args.actions, args)
        if not args.quiet and outcome.actions:
            print(report(game, outcome, args.same_app))


if __name__ == "__main__":
    main()
