"""What one game action costs the application service, in counts rather than time: SQL statements sent and
Python function calls (cProfile) per `CardLedger.act`, the API's write path without HTTP.

Run: python -m bench.action_path [--actions N] [--game G] [--storage postgres|memory] [--profile FILE]

Two players open a table and play `--actions` random legal actions through the application service; only
the `act` calls are counted. Server seeds, salts, ids and the players' choices come from fixed seeds, so two
runs play the same moves on the same texts and give the same counts, whatever else runs on the machine:
compare a change with its parent by these figures where wall-clock timings are too noisy. Then as many
actions again, not profiled, give the client's CPU time per `act` (thread time: noisy, but not a wall clock).
`--storage postgres` (the default) uses a fresh database on DATABASE_URL's server (default
postgresql://postgres@127.0.0.1:5432/postgres), dropped at the end; `memory` needs no server.

Statements are counted where they leave psycopg (`Cursor.execute`, and the event store's append, which goes
through libpq itself: `EventStore._execute_append` and `_prepare`).
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import os
import pstats
import random
import secrets
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

import psycopg

from domain import table as tables
from domain.games import game_named
from domain.table import TableState
from infra.db import open_pool
from infra.event_store import EventStore
from infra.migrations import migrate
from infra.storage import memory as memory_storage
from infra.storage.postgres import PostgresStorage
from services.app.callers import Caller
from services.app.ledger import CardLedger
from tests.conftest import fresh_database

DEFAULT_URL = "postgresql://postgres@127.0.0.1:5432/postgres"


class Counts:
    def __init__(self) -> None:
        self.on = False
        self.statements = 0

    def wrap(self, owner: Any, name: str, stack: ExitStack) -> None:
        """Count the calls of `owner.name` while `on`."""
        real = getattr(owner, name)

        def counted(*args: Any, **kwargs: Any) -> Any:
            if self.on:
                self.statements += 1
            return real(*args, **kwargs)

        setattr(owner, name, counted)
        stack.callback(setattr, owner, name, real)


def fixed_bytes() -> Callable[[int], bytes]:
    """Server seeds (and salts) from a counter, so every run deals the same cards."""
    made = iter(range(1 << 30))
    return lambda size: hashlib.sha256(b"bench-seed-%d" % next(made)).digest()[:size]


def next_move(state: TableState, rng: random.Random) -> tuple[int, dict[str, Any]]:
    if state.status == tables.BETWEEN_DEALS:
        seat = min(set(range(state.seats)) - set(state.ready))
        return seat, {"type": "ready", "client_seed": f"ready-{seat}-{state.deal_no}"}
    to_act = tables.to_act(state)
    assert to_act is not None
    action = dict(rng.choice(tables.legal_actions(state, to_act)))
    if action.get("type") == "play" and "count" in action:
        hand = game_named(state.game).hand(state.deal, to_act)
        action = {"type": "play", "cards": rng.sample(hand, int(action["count"]))}
    return to_act, action


@contextmanager
def ledger_on(storage: str, stack: ExitStack) -> Iterator[CardLedger]:
    if storage == "memory":
        yield CardLedger(memory_storage.InMemoryStorage(), None)
        return
    url = stack.enter_context(fresh_database(os.environ.get("DATABASE_URL", DEFAULT_URL), "cardledger_bench"))
    migrate(url)
    pool = open_pool(url, min_size=1, max_size=2)
    stack.callback(pool.close)
    yield CardLedger(PostgresStorage(pool, EventStore(pool)), None)


def run(actions: int, game: str, storage: str, profile_to: str | None = None) -> dict[str, float]:
    counts = Counts()
    with ExitStack() as stack:
        counts.wrap(psycopg.Cursor, "execute", stack)
        counts.wrap(EventStore, "_execute_append", stack)
        counts.wrap(EventStore, "_prepare", stack)
        stack.callback(setattr, secrets, "token_bytes", secrets.token_bytes)
        secrets.token_bytes = fixed_bytes()
        ids = random.Random(11)  # player and table ids too: the texts hashed and checked are the same every run
        stack.callback(setattr, uuid, "uuid4", uuid.uuid4)
        uuid.uuid4 = lambda: uuid.UUID(int=ids.getrandbits(128), version=4)
        ledger = stack.enter_context(ledger_on(storage, stack))
        players = [ledger.register_player(f"p{n}") for n in range(2)]
        callers = [Caller(str(p["id"]), str(p["name"])) for p in players]
        table_id = str(ledger.open_table(callers[0], game, 2, {})["id"])
        for seat, caller in enumerate(callers):
            ledger.sit(caller, table_id, seat, f"client-{seat}")
        rng = random.Random(7)
        profile = cProfile.Profile()
        for _ in range(actions):
            seat, action = next_move(ledger.load_state(table_id), rng)
            counts.on = True
            profile.enable()
            ledger.act(callers[seat], table_id, action, uuid.uuid4().hex, None)
            profile.disable()
            counts.on = False
        calls = pstats.Stats(profile).total_calls  # type: ignore[attr-defined]
        cpu = 0.0  # then as many actions again, not profiled: the client's CPU time in `act`
        for _ in range(actions):
            seat, action = next_move(ledger.load_state(table_id), rng)
            started = time.thread_time()
            ledger.act(callers[seat], table_id, action, uuid.uuid4().hex, None)
            cpu += time.thread_time() - started
        if profile_to is not None:
            profile.dump_stats(profile_to)
    return {
        "statements per action": counts.statements / actions,
        "python calls per action": calls / actions,
        "client CPU us per action": cpu / actions * 1e6,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actions", type=int, default=400)
    parser.add_argument("--game", default="cha-kau-tsz")
    parser.add_argument("--storage", choices=("postgres", "memory"), default="postgres")
    parser.add_argument("--profile", help="write the cProfile statistics of the counted calls to this file")
    arguments = parser.parse_args()
    for name, value in run(arguments.actions, arguments.game, arguments.storage, arguments.profile).items():
        print(f"{arguments.game} {arguments.storage} {name}: {value:.2f}")


if __name__ == "__main__":
    main()
