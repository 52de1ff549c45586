"""The API process's own cost of one game action, counted rather than timed: SQL round trips, Python calls,
and (under callgrind) CPU instructions, for the action's POST and for the seat view GET it wakes.

Run:  python -m bench.action_cost [--game cholek-tiga] [--actions 300] [--views] [--calls] [--storage memory]
      python -m bench.action_cost --callgrind [--actions 300] [--storage memory]    (valgrind; minutes per game)

The API's Flask app (as `create_served_app` builds it, admission included) runs in this process through Flask's
test client, on a fresh database created on DATABASE_URL's server (dropped at the end) and Redis at REDIS_URL,
with two pooled PostgreSQL connections, traced by libpq: every round trip (a ReadyForQuery from the server) is
counted, per action and by statement. Two players open a two-seat table and sit through the API, then post
`--actions` actions as the `holding` client does (`If-Match`, `Prefer: return=representation`). With
`--views`, after each action the other seat reads its view as the holding client's long-poll does
(`GET /view?wait_for_version=<the action's version>`; here the version is already reached, and this process
wrote it: what a long-poll costs on the API worker that served the action). `--woken` (with or without
`--views`): each view GET is a long-poll served by a second app on the same database (another API worker,
which keeps the table's state at the version before), started before the action with
`wait_for_version=<the version before the action + 1>`, and woken when the script publishes the action's
events to the table's Redis stream as the relay does: the path of most woken long-polls. Its round trips
are counted on the second app's pool. `--calls` counts Python calls (cProfile) per POST and per view GET.
`--storage memory` plays the same script through the application service alone (`CardLedger.act` with its
view, `CardLedger.seat_view`) on the in-memory storage: no HTTP, no SQL, no server; what the game and the
application cost, for comparison with the requests.

The actions are chosen beforehand by playing the same table through the pure domain (server seeds fixed per
deal, a seeded random bot), so every run plays the same deals and the choosing costs the same whether the
actions are posted or not. `--callgrind` runs this script three times under `valgrind --tool=callgrind`,
choosing the actions every time, posting them in the second and third, and reading the views in the third:
the differences of the instruction totals, divided by the actions, are what posting one action and reading
one view cost this process (the HTTP client's and the server's side of the request, without PostgreSQL's
work, which another process does). With `--woken`, the second run publishes each action's events too, so the
difference is the woken view GET's (with its thread's start and join).

`--streamed` (`run_streamed`): the `streaming` client's path instead. Both seats follow their seat view's
stream (GET /view/stream) on a second app (another API worker), opened before the first action and read on a
thread each; each action is posted (`If-Match`, with `Prefer: return=representation` or, with `--plain`,
without), its events are published as the relay does, and each stream's next message (the view at the
action's version) is awaited: SQL round trips per pushed view on the second app's pool. Under `--callgrind`,
four runs: scripting only; posting and publishing with `return=representation`; the same without it; the
same with both streams read: instructions per POST with and without the view, and per pushed view.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
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
    round_trips: int
    per_action: Counter[int]  # round trips an action took -> how many actions took that many
    statements: Counter[str]
    cpu_seconds: float
    views: int = 0
    view_round_trips: int = 0
    post_calls: int = 0
    view_calls: int = 0
    redis_commands: Counter[str] | None = None  # sent by the app serving the views, by command (--woken, --streamed)


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


class Calls(Counter[str]):
    """Python calls counted by cProfile around some requests, by kind, when asked for."""

    def __init__(self, on: bool) -> None:
        super().__init__()
        self.on = on

    def around(self, kind: str, request: Any) -> Any:
        if not self.on:
            return request()
        import cProfile
        import pstats

        profile = cProfile.Profile()
        answer = profile.runcall(request)
        self[kind] += pstats.Stats(profile).total_calls  # type: ignore[attr-defined]
        return answer


def waiting_noted(container: Any) -> Any:
    """An event set whenever a long-poll of `container`'s app starts waiting on a table's stream."""
    import threading

    from services.api.pushes import table_waits

    waits = table_waits.of(container.redis)
    followed = threading.Event()
    follow = waits.follow

    def noted(*args: Any, **kwargs: Any) -> Any:
        following = follow(*args, **kwargs)
        followed.set()
        return following

    waits.follow = noted  # type: ignore[method-assign]
    return followed


class WokenView:
    """A seat's long-poll on another app (another API worker), started before the action that wakes it."""

    def __init__(self, client: Client, trace: Any, waiting: Any, calls: Calls) -> None:
        self.client, self.trace, self.waiting, self.calls = client, trace, waiting, calls
        self.answer: Any = None
        self.trips = 0

    def start(self, path: str, headers: dict[str, str]) -> None:
        import threading

        self.waiting.clear()
        self.thread = threading.Thread(target=self._get, args=(path, headers))
        self.thread.start()
        assert self.waiting.wait(60), "the long-poll did not wait on the table's stream"

    def _get(self, path: str, headers: dict[str, str]) -> None:
        from tests.round_trips import round_trips

        start = self.trace.mark()
        self.answer = self.calls.around("view", lambda: self.client.get(path, headers=headers))
        self.trips = round_trips(self.trace.between(start, self.trace.mark()))

    def result(self) -> tuple[Any, int]:
        self.thread.join(60)
        assert not self.thread.is_alive(), "the long-poll was not woken by the action"
        return self.answer, self.trips


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


def memory_table(game: str) -> tuple[Any, list[Any], str]:
    """A two-seat table of `game` opened and seated through the application service on the in-memory storage
    with the fixed seeds: (the application, the two seats' callers, the table's id)."""
    from infra.signing import ReceiptSigner
    from infra.storage.memory import InMemoryStorage
    from services.bootstrap import application

    class FixedSeedStorage(InMemoryStorage):
        def seeds_for(self, table_id: str, deal_numbers: Any) -> dict[int, bytes]:
            return {n: fixed_seed(n) for n in sorted(set(deal_numbers)) if n >= 1}

    ledger = application(FixedSeedStorage(), None, ReceiptSigner.ephemeral())
    callers = [ledger.authenticate(str(ledger.register_player(name)["token"])) for name in ("north", "south")]
    table_id = str(ledger.open_table(callers[0], game, 2, {})["id"])
    for seat in (0, 1):
        ledger.sit(callers[seat], table_id, seat, f"seat-{seat}", True)
    return ledger, callers, table_id


def run_in_memory(game: str, count: int, post: bool, seed: int, views: bool, count_calls: bool) -> Outcome:
    """`run_once` through the application service on the in-memory storage, the same fixed seeds and script."""
    ledger, callers, table_id = memory_table(game)
    steps = script(ledger.load_state(table_id), count, random.Random(seed))
    calls = Calls(count_calls)
    cpu = time.process_time()
    if post:
        for n, step in enumerate(steps):
            answer = calls.around(
                "post",
                lambda n=n, step=step: ledger.act(
                    callers[step.seat], table_id, step.action, f"action-{n}", step.version, with_view=True
                ),
            )
            assert "view" in answer, answer
            if views:
                other = callers[1 - step.seat]
                viewed = calls.around("view", lambda other=other: ledger.seat_view(other, table_id))
                assert viewed["version"] >= answer["version"]
    cpu = time.process_time() - cpu
    actions = len(steps) if post else 0
    views_read = actions if views else 0
    return Outcome(game, actions, 0, Counter(), Counter(), cpu, views_read, 0, calls["post"], calls["view"])


def run_once(
    game: str,
    count: int,
    post: bool,
    seed: int = 24,
    views: bool = False,
    count_calls: bool = False,
    storage: str = "postgres",
    woken: bool = False,
    publish: bool = False,
) -> Outcome:
    """Open a table, sit, script `count` actions, and post them when `post`. The table id and every server seed
    are fixed, so every run deals the same cards and plays the same actions. `woken`: the views are long-polls
    another app serves, woken by the action (see `--woken`); `publish`: each action's events are published as
    the relay does (what `woken` does too)."""
    if storage == "memory":
        return run_in_memory(game, count, post, seed, views, count_calls)
    import services.app.commands
    from infra import redis_bus
    from tests.round_trips import round_trips, statements, traced_pool

    # The same table id and server seeds in every run, so that every run deals the same cards.
    services.app.commands.uuid = SimpleNamespace(uuid4=lambda: uuid.UUID(int=seed))  # type: ignore[attr-defined,assignment]
    redis_commands: Counter[str] = Counter()
    with fresh_database("cardledger_cost") as url:
        store_fixed_seeds(url, str(uuid.UUID(int=seed)), count + 2)  # a deal takes at least one action
        with served_app(url) as (app, container), ExitStack() as others:
            # Traced from the start, so that the statements psycopg prepares (after a few runs) are known by name.
            trace = traced_pool(container.pool, POOL_SIZE)
            client = Client(app.test_client())
            relay = others.enter_context(served_app(url))[1] if woken or publish else None
            if woken:
                viewer_app, viewer = others.enter_context(served_app(url, commands=redis_commands))
                long_poll_waits = waiting_noted(viewer)
                view_trace = traced_pool(viewer.pool, POOL_SIZE)
                view_client = Client(viewer_app.test_client())
            if relay is not None:
                relay.redis.delete(redis_bus.table_stream(str(uuid.UUID(int=seed))))  # a previous run's entries
            table_id, auth = seated_over_http(client, game, seed, {"Prefer": REPRESENTATION})
            known = container.ledger.states.newest(table_id)
            assert known is not None, "the app keeps the state it wrote"
            steps = script(known.state, count, random.Random(seed))
            per_action: Counter[int] = Counter()
            done: Counter[str] = Counter()
            calls = Calls(count_calls)
            view_trips = 0
            start = trace.mark()
            commands_before = Counter(redis_commands)
            cpu = time.process_time()
            if post:
                for n, step in enumerate(steps):
                    if woken:
                        waiting = WokenView(view_client, view_trace, long_poll_waits, calls)
                        path = f"/v1/tables/{table_id}/view?wait_for_version={step.version + 1}"
                        waiting.start(path, auth[1 - step.seat])
                    before = trace.mark()
                    answer = calls.around(
                        "post",
                        lambda n=n, step=step: client.post(
                            f"/v1/tables/{table_id}/actions",
                            json=step.action,
                            headers={
                                **auth[step.seat],
                                "Idempotency-Key": f"action-{n}",
                                "If-Match": f'"{step.version}"',
                                "Prefer": REPRESENTATION,
                            },
                        ),
                    )
                    assert answer.status_code == 201, (step, answer.get_json())
                    assert "view" in answer.get_json()
                    posted = trace.mark()
                    per_action[round_trips(trace.between(before, posted))] += 1
                    if relay is not None:
                        redis_bus.publish(relay.redis, relay.store.read_stream(table_id, from_version=step.version + 1))
                    if woken:
                        viewed, trips = waiting.result()
                        assert viewed.status_code == 200, viewed.get_json()
                        assert viewed.get_json()["version"] >= step.version + 1
                        view_trips += trips
                    elif views:
                        version = answer.get_json()["view"]["version"]
                        other = 1 - step.seat
                        viewed = calls.around(
                            "view",
                            lambda other=other, version=version: client.get(
                                f"/v1/tables/{table_id}/view?wait_for_version={version}", headers=auth[other]
                            ),
                        )
                        assert viewed.status_code == 200, viewed.get_json()
                        assert viewed.get_json()["version"] >= version
                        view_trips += round_trips(trace.between(posted, trace.mark()))
            cpu = time.process_time() - cpu
            commands = redis_commands - commands_before
            lines = trace.between(start, trace.mark())
            if woken:
                view_trace.close()
            names: dict[str, str] = {}
            statements(trace.between([0] * POOL_SIZE, start), names)
            done = statements(lines, names)
            actions = len(steps) if post else 0
            trips = round_trips(lines) - (0 if woken else view_trips)
            views_read = actions if views else 0
            outcome = Outcome(game, actions, trips, per_action, done, cpu, views_read, view_trips, calls["post"])
            outcome.view_calls, outcome.redis_commands = calls["view"], commands if woken else None
            trace.close()
    return outcome


def report(outcome: Outcome) -> str:
    lines = [f"{outcome.game}: {outcome.actions} actions posted"]
    if outcome.actions:
        lines.append(f"  SQL round trips per action: {outcome.round_trips / outcome.actions:.3f}")
        spread = ", ".join(f"{trips}: {n}" for trips, n in sorted(outcome.per_action.items()))
        lines.append(f"  actions by round trips taken: {spread}")
        if outcome.views:
            lines.append(f"  SQL round trips per view GET: {outcome.view_round_trips / outcome.views:.3f}")
        if outcome.post_calls:
            lines.append(f"  Python calls per action POST (cProfile): {outcome.post_calls / outcome.actions:.1f}")
        if outcome.view_calls:
            lines.append(f"  Python calls per view GET (cProfile): {outcome.view_calls / outcome.views:.1f}")
        if outcome.redis_commands is not None:
            lines.append(f"  Redis commands of the app serving the long-polls: {redis_per(outcome)}")
        lines.append(
            f"  CPU seconds of this process per action{' and its view' if outcome.views else ''} (timed, noisy): "
            f"{outcome.cpu_seconds / outcome.actions:.6f}"
        )
        lines.append("  statements (POSTs and views):")
        for text, n in outcome.statements.most_common():
            lines.append(f"  {n:6d}  {text}")
    return "\n".join(lines)


def redis_per(outcome: Outcome) -> str:
    commands = outcome.redis_commands or Counter()
    each = ", ".join(f"{name} {n / outcome.actions:.3f}" for name, n in commands.most_common())
    return f"{sum(commands.values()) / outcome.actions:.3f} per action ({each or 'none'})"


def report_streamed(outcome: Outcome) -> str:
    lines = [f"{outcome.game}: {outcome.actions} actions posted, {outcome.views} seat views pushed"]
    if outcome.round_trips:  # --same-app: one pool serves both
        lines.append(
            f"  SQL round trips per action (its POST and pushed views): {outcome.round_trips / outcome.actions:.3f}"
        )
    elif outcome.views:
        lines.append(f"  SQL round trips per pushed view: {outcome.view_round_trips / outcome.views:.3f}")
    if outcome.redis_commands is not None:
        lines.append(f"  Redis commands of the app serving the streams: {redis_per(outcome)}")
    lines.append(
        f"  CPU seconds of this process per action (timed, noisy): {outcome.cpu_seconds / outcome.actions:.6f}"
    )
    return "\n".join(lines)


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
    """The `streaming` client's path (`--streamed`): open a table and sit as `run_once` does, post `count`
    scripted actions (asking for the view in the answer when `representation`), publish each action's events,
    and (when `streams`) await each seat's pushed view of it, from streams a second app serves (`same_app`: the
    app that serves the POSTs, which keeps the state each one wrote). `trace`: count the SQL round trips of the
    app serving the streams (libpq's trace; not under callgrind, where tracing the POSTs' pool with
    `same_app` would count its writing as the pushes'). `publish=False` (without `streams`): the POSTs alone,
    their events left unpublished (the relay's work, which `bench.relay_cost` counts)."""
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
            cpu = time.process_time()
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
            cpu = time.process_time() - cpu
            commands = redis_commands - commands_before
            trips = round_trips(view_trace.since(start)) if view_trace is not None else 0
            # The streams are left waiting on Redis (their reading threads are daemons): closing one from this
            # thread while its reader is inside the generator would fail, and the apps close at the end anyway.
            if view_trace is not None:
                view_trace.close()
    actions = len(steps) if post else 0
    pushed = actions * len(followed)
    if same_app:
        return Outcome(game, actions, trips, Counter(), Counter(), cpu, pushed, 0, redis_commands=commands)
    return Outcome(game, actions, 0, Counter(), Counter(), cpu, pushed, trips, redis_commands=commands)


def streamed_instructions(game: str, count: int) -> str:
    """`--streamed --callgrind`: the four runs of `run_streamed`'s path, as a line of the report."""
    idle = callgrind_instructions(game, count, post=False, streamed=["--no-streams"])
    runs = {
        name: callgrind_instructions(game, count, post=True, streamed=flags)
        for name, flags in (
            ("representation", ["--no-streams"]),
            ("plain", ["--plain", "--no-streams"]),
            ("streamed", ["--plain"]),
            ("same_app", ["--plain", "--same-app"]),
        )
    }
    return (
        f"{game} (streamed): {count} actions: {idle:,} instructions opening the apps and scripting them; "
        f"{(runs['representation'] - idle) / count:,.0f} per action POST with return=representation, "
        f"{(runs['plain'] - idle) / count:,.0f} without (each with its events published); "
        f"{(runs['streamed'] - runs['plain']) / (2 * count):,.0f} per pushed seat view (two seats' streams, "
        f"{(runs['streamed'] - runs['plain']) / count:,.0f} per action) served by another app, "
        f"{(runs['same_app'] - runs['plain']) / (2 * count):,.0f} served by the app that wrote"
    )


# Callgrind -----------------------------------------------------------------------------------------------------------


def callgrind_instructions(
    game: str,
    count: int,
    post: bool,
    views: bool = False,
    storage: str = "postgres",
    woken: bool = False,
    streamed: list[str] | None = None,
    seed: int | None = None,
) -> int:
    """The instructions this script executes (callgrind's total) to script `count` actions and post them or not,
    and read the other seat's view after each or not; `woken`: publish each action's events, and (with
    `views`) read the views as woken long-polls."""
    return module_instructions(
        "bench.action_cost",
        [
            "--game",
            game,
            "--actions",
            str(count),
            "--quiet",
            *([] if post else ["--no-post"]),
            *(["--views"] if views else []),
            *((["--views", "--woken"] if views else ["--publish"]) if woken else []),
            "--storage",
            storage,
            *([] if streamed is None else ["--streamed", *streamed]),
            *([] if seed is None else ["--seed", str(seed)]),
        ],
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.action_cost", description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=GAMES, action="append", help="default: both")
    parser.add_argument("--actions", type=int, default=300)
    parser.add_argument("--callgrind", action="store_true", help="count instructions per action (valgrind)")
    parser.add_argument("--views", action="store_true", help="after each action, the other seat reads its view")
    parser.add_argument("--calls", action="store_true", help="count Python calls per request (cProfile)")
    parser.add_argument(
        "--woken",
        action="store_true",
        help="with --views: each view is a long-poll on another app, started before the action that wakes it",
    )
    parser.add_argument(
        "--storage", choices=("postgres", "memory"), default="postgres", help="memory: the application alone"
    )
    parser.add_argument(
        "--streamed",
        action="store_true",
        help="the streaming client's path: POSTs and pushed seat views (run_streamed)",
    )
    parser.add_argument("--plain", action="store_true", help="with --streamed: POSTs without return=representation")
    parser.add_argument(
        "--same-app", action="store_true", help="with --streamed: the streams are served by the app that writes"
    )
    parser.add_argument("--no-streams", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--no-post", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--no-publish", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--seed", type=int, default=24, help=argparse.SUPPRESS)  # --streamed: the table id's
    parser.add_argument("--publish", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--quiet", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.no_publish and not args.no_streams:
        parser.error("--no-publish leaves the streams nothing to push: give --no-streams too")
    if args.woken and args.storage != "postgres":
        parser.error("--woken reads the views of the API on PostgreSQL")
    games = args.game or list(GAMES)
    for game in games:
        if args.streamed and args.callgrind and not args.quiet:
            print(streamed_instructions(game, args.actions))
            continue
        if args.streamed:
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
                print(report_streamed(outcome))
            continue
        if args.callgrind:
            idle = callgrind_instructions(game, args.actions, post=False, storage=args.storage)
            busy = callgrind_instructions(game, args.actions, post=True, storage=args.storage, woken=args.woken)
            viewed = callgrind_instructions(
                game, args.actions, post=True, views=True, storage=args.storage, woken=args.woken
            )
            print(
                f"{game} ({args.storage}): {args.actions} actions: {idle:,} instructions scripting them, "
                f"{busy:,} posting them, "
                f"{viewed:,} posting them and reading a view after each; "
                f"{(busy - idle) / args.actions:,.0f} instructions per action POST, "
                f"{(viewed - busy) / args.actions:,.0f} per view GET"
            )
            continue
        outcome = run_once(
            game,
            args.actions,
            not args.no_post,
            views=args.views or args.woken,
            count_calls=args.calls,
            storage=args.storage,
            woken=args.woken,
            publish=args.publish,
        )
        if not args.quiet:
            print(report(outcome))


if __name__ == "__main__":
    main()
