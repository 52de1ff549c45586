"""The API process's own cost of one action of the `streaming` client, counted rather than timed: SQL round trips,
Redis commands and (under callgrind) CPU instructions, for the action's POST and the seat views it pushes.

Run:  python -m bench.action_cost [--game cholek-tiga] [--actions 300] [--plain] [--same-app]
      python -m bench.action_cost --callgrind [--game cholek-tiga] [--actions 60]    (valgrind; minutes per game)

The API's Flask app (as gunicorn serves it, admission included) runs in this process through Flask's test
client, on a fresh database created on DATABASE_URL's server (dropped at the end) and Redis at REDIS_URL, with
two pooled PostgreSQL connections. Two players open a two-seat table and sit through the API. Both seats follow
their seat view's stream (GET /view/stream) on a second app (another API worker; `--same-app`: the app that
writes, which keeps the state each POST wrote), read on a thread each. Each action is posted (`If-Match`, with
`Prefer: return=representation` or, with `--plain`, without), its events are published as the relay does, and
each stream's next message (the view at the action's version) is awaited. Printed: SQL round trips per pushed
view (libpq's trace of the streams' pool) and the Redis commands of the app serving the streams.

The actions are chosen beforehand by playing the same table through the pure domain (server seeds fixed per
deal, a seeded random bot), so every run plays the same deals and the choosing costs the same whether the
actions are posted or not. `--callgrind` runs this script under `valgrind --tool=callgrind` five times:
scripting only; posting and publishing with `return=representation`; the same without it; the same with both
streams read, from another app and from the writer: the differences of the instruction totals, divided by the
actions, are what a POST with and without its view and a pushed view cost this process (the test client's side
of the requests included, PostgreSQL's and Redis's work not: other processes do it).
"""

from __future__ import annotations

import argparse
import hashlib
import random
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
REPRESENTATION = "return=representation"
POOL_SIZE = 2  # a write that starts a deal asks whether it holds an old private block on a second connection


def fixed_seed(deal_no: int) -> bytes:
    return hashlib.sha256(f"bench.action_cost deal {deal_no}".encode()).digest()


def store_fixed_seeds(database_url: str, table_id: str, deals: int) -> None:
    """Deals 1..`deals` of the table get their fixed seeds before it opens: a stored seed wins over the one the
    service draws, so every run deals the same cards."""
    import psycopg

    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.cursor().executemany(
            "INSERT INTO deal_seeds (stream_id, deal_no, server_seed) VALUES (%s, %s, %s)",
            [(table_id, n, fixed_seed(n)) for n in range(1, deals + 1)],
        )


# The script of actions -----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    seat: int
    action: dict[str, Any]
    version: int  # the table's version the action is chosen at (its If-Match)


def script(state: Any, count: int, rng: random.Random) -> list[Step]:
    """`count` actions from `state` through the pure domain with the fixed seeds: a random legal action of the
    seat to act, `ready` for every seat between deals."""
    from domain import table as tables
    from domain.games import game_named
    from services.cli.simulate.bots import RandomBot

    bot = RandomBot(rng)
    steps: list[Step] = []
    while len(steps) < count:
        if state.status == tables.BETWEEN_DEALS:
            seat = min(set(range(state.seats)) - set(state.ready))
            action: dict[str, Any] = {"type": "ready", "client_seed": f"ready-{seat}-{state.deal_no}"}
        else:
            assert state.status == tables.PLAYING, f"the table is {state.status}"
            seat = tables.to_act(state)
            assert seat is not None
            view = {
                "legal_actions": tables.legal_actions(state, seat),
                "hand": game_named(state.game).hand(state.deal, seat),
            }
            action = bot.choose(view)
        seeds = {n: fixed_seed(n) for n in (state.deal_no, state.deal_no + 1) if n >= 1}
        steps.append(Step(seat, action, state.version))
        _, state = tables.decide_and_evolve(state, tables.Act(seat, action), seeds)
    return steps


# One run -------------------------------------------------------------------------------------------------------------


@dataclass
class Outcome:
    game: str
    actions: int
    views: int  # seat views pushed
    round_trips: int  # of the app serving the streams (with --same-app, the POSTs' too)
    redis_commands: Counter[str]  # sent by the app serving the streams, by command
    same_app: bool


class Client:
    """Flask's test client, each answer read and closed (admission holds a request's slot until then)."""

    def __init__(self, client: Any) -> None:
        self.client = client

    def post(self, path: str, **kwargs: Any) -> Any:
        answer = self.client.post(path, **kwargs)
        answer.get_data()
        answer.close()
        return answer

    def get(self, path: str, **kwargs: Any) -> Any:
        answer = self.client.get(path, **kwargs)
        answer.get_data()
        answer.close()
        return answer


@contextmanager
def served_app(database_url: str, commands: Counter[str] | None = None) -> Iterator[tuple[Any, Any]]:
    """The API app as gunicorn serves it, on a container with POOL_SIZE pooled connections; (app, container).
    `commands`: the container's Redis client counts its commands there (`counting_redis`)."""
    from infra.config import Settings
    from services.api import create_app, served_admission
    from services.bootstrap import bootstrap

    settings = Settings(database_url=database_url, redis_url=redis_url())
    container = bootstrap(
        settings,
        pool_max_size=POOL_SIZE,
        pool_min_size=POOL_SIZE,
        start_embedded=False,
        signer=registered_signer(database_url),
    )
    if commands is not None:
        container.redis.close()
        container.redis = counting_redis(commands, redis_url())

    try:
        app = create_app(
            container=container,
            config={"RATE_LIMITS_ENABLED": False},
            middleware=[served_admission(container.settings.serving)],
        )
        yield app, container
    finally:
        container.close()


def seated_over_http(client: Client, game: str, seed: int, prefer: dict[str, str]) -> tuple[str, list[dict[str, str]]]:
    """Two players register, open a two-seat table of `game` (its id fixed by `seed`) and sit through the API:
    (the table's id, each seat's Authorization header)."""
    auth = []
    for name in ("north", "south"):
        answer = client.post("/v1/players", json={"name": name})
        assert answer.status_code == 201, answer.get_json()
        auth.append({"Authorization": f"Bearer {answer.get_json()['token']}"})
    opened = client.post("/v1/tables", json={"game": game, "seats": 2, "options": {}}, headers=auth[0])
    table_id = str(uuid.UUID(int=seed))
    assert opened.status_code == 201 and opened.get_json()["id"] == table_id, opened.get_json()
    for seat in (0, 1):
        body = {"seat": seat, "client_seed": f"seat-{seat}"}
        seated = client.post(f"/v1/tables/{table_id}/seats", json=body, headers={**auth[seat], **prefer})
        assert seated.status_code == 201, seated.get_json()
    return table_id, auth


def report(outcome: Outcome) -> str:
    where = "its POST and pushed views" if outcome.same_app else "pushed views, the app serving them"
    commands = outcome.redis_commands
    each = ", ".join(f"{name} {n / outcome.actions:.3f}" for name, n in commands.most_common())
    return (
        f"{outcome.game}: {outcome.actions} actions posted, {outcome.views} seat views pushed\n"
        f"  SQL round trips per action ({where}): {outcome.round_trips / outcome.actions:.3f}\n"
        f"  Redis commands per action of the app serving the streams: {sum(commands.values()) / outcome.actions:.3f}"
        f" ({each or 'none'})"
    )


class SeatViewStream:
    """One seat's view stream on an app, read on a thread of its own: the versions of the views pushed."""

    def __init__(self, client: Client, path: str, headers: dict[str, str]) -> None:
        import threading

        self.response = client.client.get(path, headers=headers)
        assert self.response.status_code == 200, self.response.get_data(as_text=True)
        self.versions: list[int] = []
        self.changed = threading.Condition()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        import contextlib

        with contextlib.suppress(Exception):  # the apps closed under a stream left waiting: the run is over
            self._messages()

    def _messages(self) -> None:
        """Each message's version from its SSE id (the view's version): the data is not parsed, as the woken
        GET's JSON is parsed only for its version."""
        buffer = ""
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


def run_streamed(
    game: str,
    count: int,
    seed: int = 24,
    representation: bool = True,
    streams: bool = True,
    post: bool = True,
    same_app: bool = False,
    trace: bool = True,
    publish: bool = True,
) -> Outcome:
    """The `streaming` client's path: open a table and sit through the API, post `count`
    scripted actions (asking for the view in the answer when `representation`), publish each action's events,
    and (when `streams`) await each seat's pushed view of it, from streams a second app serves (`same_app`: the
    app that serves the POSTs, which keeps the state each one wrote). `trace`: count the SQL round trips of the
    app serving the streams (libpq's trace; not under callgrind, where tracing the POSTs' pool with
    `same_app` would count its writing as the pushes'). `publish=False` (without `streams`): the POSTs alone,
    their events left unpublished (the relay's work, which `bench.action_budget` counts apart)."""
    import services.app.commands
    from infra import redis_bus
    from tests.round_trips import round_trips, traced_pool

    services.app.commands.uuid = SimpleNamespace(uuid4=lambda: uuid.UUID(int=seed))  # type: ignore[attr-defined,assignment]
    table_id = str(uuid.UUID(int=seed))
    redis_commands: Counter[str] = Counter()  # the Redis commands of the app serving the streams
    with fresh_database("cardledger_cost") as url:
        store_fixed_seeds(url, table_id, count + 2)
        with (
            served_app(url, commands=redis_commands if same_app else None) as (app, container),
            served_app(url) as (_, relay),
            served_app(url, commands=None if same_app else redis_commands) as (viewer_app, viewer),
        ):
            if same_app:
                viewer_app, viewer = app, container
            viewer_app.config.update(SSE_MAX_SECONDS=3600, SSE_HEARTBEAT_SECONDS=3600)
            relay.redis.delete(redis_bus.table_stream(table_id))  # a previous run's entries
            client = Client(app.test_client())
            table_id, auth = seated_over_http(client, game, seed, {})
            redis_bus.publish(relay.redis, relay.store.read_stream(table_id))
            known = container.ledger.states.newest(table_id)
            assert known is not None, "the app keeps the state it wrote"
            steps = script(known.state, count, random.Random(seed))
            view_trace = traced_pool(viewer.pool, POOL_SIZE) if trace else None  # with same_app, the POSTs' too
            followed = []
            if streams:
                viewer_client = Client(viewer_app.test_client())
                followed = [
                    SeatViewStream(viewer_client, f"/v1/tables/{table_id}/view/stream", auth[seat]) for seat in (0, 1)
                ]
                for stream in followed:
                    stream.wait_for(known.state.version)
            start = view_trace.mark() if view_trace is not None else []
            commands_before = Counter(redis_commands)
            prefer = {"Prefer": REPRESENTATION} if representation else {}
            for n, step in enumerate(steps if post else []):
                answer = client.post(
                    f"/v1/tables/{table_id}/actions",
                    json=step.action,
                    headers={
                        **auth[step.seat],
                        "Idempotency-Key": f"action-{n}",
                        "If-Match": f'"{step.version}"',
                        **prefer,
                    },
                )
                answered = answer.get_json()  # parsed once: the script's parsing is no push's cost
                assert answer.status_code == 201, (step, answered)
                assert ("view" in answered) == representation
                if publish:
                    redis_bus.publish(relay.redis, relay.store.read_stream(table_id, from_version=step.version + 1))
                for stream in followed:
                    stream.wait_for(int(answered["version"]))
            commands = redis_commands - commands_before
            trips = round_trips(view_trace.since(start)) if view_trace is not None else 0
            # The streams are left waiting on Redis (their reading threads are daemons): closing one from this
            # thread while its reader is inside the generator would fail, and the apps close at the end anyway.
            if view_trace is not None:
                view_trace.close()
    actions = len(steps) if post else 0
    return Outcome(game, actions, actions * len(followed), trips, commands, same_app)


def instructions(game: str, count: int) -> str:
    """`--callgrind`: the five runs of `run_streamed`'s path, as a line of the report."""
    idle = callgrind_instructions(game, count, post=False, flags=["--no-streams"])
    runs = {
        name: callgrind_instructions(game, count, post=True, flags=flags)
        for name, flags in (
            ("representation", ["--no-streams"]),
            ("plain", ["--plain", "--no-streams"]),
            ("streamed", ["--plain"]),
            ("same_app", ["--plain", "--same-app"]),
        )
    }
    return (
        f"{game}: {count} actions: {idle:,} instructions opening the apps and scripting them; "
        f"{(runs['representation'] - idle) / count:,.0f} per action POST with return=representation, "
        f"{(runs['plain'] - idle) / count:,.0f} without (each with its events published); "
        f"{(runs['streamed'] - runs['plain']) / (2 * count):,.0f} per pushed seat view (two seats' streams, "
        f"{(runs['streamed'] - runs['plain']) / count:,.0f} per action) served by another app, "
        f"{(runs['same_app'] - runs['plain']) / (2 * count):,.0f} served by the app that wrote"
    )


def callgrind_instructions(game: str, count: int, post: bool, flags: list[str], seed: int | None = None) -> int:
    """The instructions this script executes (callgrind's total) to script `count` actions and post them or
    not, with `flags` (`--plain`, `--same-app`, `--no-streams`, `--no-publish`)."""
    arguments = ["--game", game, "--actions", str(count), "--quiet", *flags]
    arguments += ([] if post else ["--no-post"]) + ([] if seed is None else ["--seed", str(seed)])
    return module_instructions("bench.action_cost", arguments)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.action_cost", description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=GAMES, action="append", help="default: both")
    parser.add_argument("--actions", type=int, default=300)
    parser.add_argument("--callgrind", action="store_true", help="count instructions per action (valgrind)")
    parser.add_argument("--plain", action="store_true", help="POSTs without return=representation")
    parser.add_argument("--same-app", action="store_true", help="the streams are served by the app that writes")
    parser.add_argument("--no-streams", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--no-post", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--no-publish", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--seed", type=int, default=24, help=argparse.SUPPRESS)  # the table id's
    parser.add_argument("--quiet", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.no_publish and not args.no_streams:
        parser.error("--no-publish leaves the streams nothing to push: give --no-streams too")
    for game in args.game or list(GAMES):
        if args.callgrind:
            print(instructions(game, args.actions))
            continue
        outcome = run_streamed(
            game,
            args.actions,
            seed=args.seed,
            representation=not args.plain,
            streams=not args.no_streams,
            post=not args.no_post,
            same_app=args.same_app,
            trace=not args.quiet,
            publish=not args.no_publish,
        )
        if not args.quiet and outcome.actions:
            print(report(outcome))


if __name__ == "__main__":
    main()
