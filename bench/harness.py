"""The benches' one harness: their settings, fresh databases (on DATABASE_URL's server, dropped at the end), Redis
(REDIS_URL, default db 11), the stack and its bots, and the table of rows: {"benchmark", "value", "unit", "target"},
optionally "baseline" and "ratio", a target met by a value at least it, or at most it for a unit ending in "(max)".
"""

from __future__ import annotations

import os
import random
import sys
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from services.cli.simulate.report import percentile  # noqa: E402

__all__ = ["percentile"]

DEFAULT_SERVER_URL = "postgresql://postgres@127.0.0.1:5432/postgres"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/11"
Row = dict[str, Any]


# Settings ----------------------------------------------------------------------------------------------------------


def quick() -> bool:
    """BENCH_QUICK=1: every bench shortened (a check that the run works, not figures to quote)."""
    return os.environ.get("BENCH_QUICK", "").strip() not in ("", "0")


def env_float(name: str, default: float, quick_default: float | None = None) -> float:
    raw = os.environ.get(name, "").strip()
    return float(raw) if raw else (quick_default if quick() and quick_default is not None else default)


def env_int(name: str, default: int, quick_default: int | None = None) -> int:
    return int(env_float(name, default, quick_default))


def server_url() -> str:
    return os.environ.get("DATABASE_URL", "").strip() or DEFAULT_SERVER_URL


def redis_url() -> str:
    return os.environ.get("REDIS_URL", "").strip() or DEFAULT_REDIS_URL


def say(text: str) -> None:
    print(f"  {text}", file=sys.stderr, flush=True)


# Databases, servers and the stack ----------------------------------------------------------------------------------


@contextmanager
def fresh_database(prefix: str = "cardledger_bench", migrated: bool = True, server: str | None = None) -> Iterator[str]:
    """A new database on DATABASE_URL's server (migrated unless told not), dropped at the end."""
    from infra.migrations import migrate
    from tests.conftest import fresh_database as created

    with created(server or server_url(), prefix=prefix) as url:
        if migrated:
            migrate(url)
        yield url


@contextmanager
def private_redis() -> Iterator[str]:
    """A redis-server of the run's own on a free port (its CPU is then the run's alone), else REDIS_URL."""
    from tests.faults.servers import RedisServer, redis_server_binary

    try:
        redis_server_binary()
    except RuntimeError:
        yield redis_url()
        return
    server = RedisServer()
    server.start()
    try:
        yield server.url
    finally:
        server.stop()


@contextmanager
def bench_stack(extra_env: Mapping[str, str] | None = None) -> Iterator[tuple[Any, str]]:
    """`cardledger up` against a fresh database; yields the stack (`RunningStack`) and the database URL."""
    from services.cli.simulate.stack import embedded_stack

    with fresh_database(migrated=False) as url:
        env = {"DATABASE_URL": url, "REDIS_URL": redis_url(), "CARDLEDGER_RATE_LIMITS": "off", **(extra_env or {})}
        with embedded_stack(env) as stack:
            yield stack, url


def registered_signer(database_url: str, signer: Any = None) -> Any:
    """`signer` (default: a fresh key) with its key in `database_url`'s signing_keys, as the owner registers it
    (the benches connect as a superuser): an API refuses to sign under a key the database does not list."""
    from infra.db import connect
    from infra.signing import ReceiptSigner, insert_key, key_registered, utc_timestamp

    signer = signer if signer is not None else ReceiptSigner.ephemeral()
    with connect(database_url) as conn:
        if not key_registered(conn, signer.key_id):
            insert_key(conn, signer, utc_timestamp(), None)
    return signer


def played_log(url: str, game: str, tables: int, deals: int = 2, seed: int = 3) -> None:
    """`tables` tables of `game` played `deals` deals each (`TableGame`, seed 3), interleaved at random as
    tables play at once, appended to the (migrated) database at `url`."""
    from domain.games import game_named
    from infra.db import open_pool
    from infra.event_store import EventStore
    from tests.faults.workload import TableGame

    pool = open_pool(url, min_size=1, max_size=2)
    try:
        store, rng, rules = EventStore(pool), random.Random(seed), game_named(game)
        games = [
            TableGame(f"t-{i}", game=game, seats=rng.randint(rules.min_seats, rules.max_seats), deals=deals, rng=rng)
            for i in range(tables)
        ]
        runs = [table.play_into(store) for table in games]
        while runs:
            run = rng.choice(runs)
            if next(run, None) is None:
                runs.remove(run)
    finally:
        pool.close()


# Bots --------------------------------------------------------------------------------------------------------------


def bots(base_url: str, game: str, tables: int, seed: str, **config: Any) -> Any:
    """`cardledger simulate`'s configuration: random bots on `tables` two-seat tables at once, deals without end
    (a `duration` or a stop ends them)."""
    from services.cli.simulate import SimulationConfig

    settings: dict[str, Any] = dict(seats=2, concurrency=tables, bot="random", deals=1_000_000, progress=False)
    return SimulationConfig(base_url=base_url, game=game, tables=tables, seed=seed, **{**settings, **config})


def play(base_url: str, game: str, tables: int, seconds: float, seed: str, **config: Any) -> dict[str, Any]:
    """The bots for `seconds` (the deals in progress then finish): simulate's summary."""
    from services.cli.simulate import simulate

    summary: dict[str, Any] = simulate(bots(base_url, game, tables, seed, duration=seconds, **config)).summary
    return summary


@contextmanager
def in_process(database_url: str) -> Iterator[Any]:
    """The application's container in this process (`CardLedger` at `.ledger`), on `database_url`."""
    from infra.config import Settings
    from services.bootstrap import bootstrap

    settings = Settings.from_env({**os.environ, "DATABASE_URL": database_url, "REDIS_URL": redis_url()})
    container = bootstrap(settings, start_embedded=False)
    try:
        yield container
    finally:
        container.close()


def seated_in_process(ledger: Any, game: str, name: str, turn_seconds: int) -> tuple[str, list[Any], list[str]]:
    """A two-seat table opened and sat at by two new players through `ledger`: (its id, their callers, tokens)."""
    tokens = [str(ledger.identity.register_player(f"{name}-{seat}")["token"]) for seat in (0, 1)]
    callers = [ledger.identity.authenticate(token) for token in tokens]
    table_id = str(ledger.open_table(callers[0], game, 2, {"turn_seconds": turn_seconds})["id"])
    for seat, caller in enumerate(callers):
        ledger.sit(caller, table_id, seat, f"{name}-{seat}-1")
    return table_id, callers, tokens


def act_in_process(ledger: Any, table_id: str, callers: list[Any], bot: Any, name: str, ready: bool = True) -> bool:
    """One step at a table played through `ledger`: the seat to act reads its view and acts (True); between deals,
    every seat says it is ready when `ready` (False either way)."""
    import uuid

    from domain import table

    state = ledger.queries.load_state(table_id)
    if state.status != "playing":
        for seat, caller in enumerate(callers if ready else []):
            said = {"type": "ready", "client_seed": f"{name}-{seat}-{state.deal_no + 1}"}
            ledger.act(caller, table_id, said, str(uuid.uuid4()), None)
        return False
    seat = table.to_act(state)
    assert seat is not None, f"table {table_id} is playing with no seat to act"
    view = ledger.queries.seat_view(callers[seat], table_id)
    ledger.act(callers[seat], table_id, bot.choose(view), str(uuid.uuid4()), int(str(view["version"])))
    return True


def in_threads(count: int, work: Callable[[int], None]) -> None:
    """`work(n)` for n in range(count), each on a thread of its own; returns when all are done."""
    threads = [threading.Thread(target=work, args=(n,)) for n in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


# Rows --------------------------------------------------------------------------------------------------------------


def ratio(value: float | None, base: float | None) -> float | None:
    return value / base if value is not None and base else None


def row(
    benchmark: str, value: Any, unit: str = "", target: float | None = None, baseline: Any = None, **more: Any
) -> Row:
    """One row; with a `baseline`, its ratio too."""
    found: Row = {"benchmark": benchmark, "value": value, "target": target, "unit": unit, **more}
    if baseline is not None:
        found["baseline"] = baseline
        found.setdefault("ratio", ratio(value, baseline) if isinstance(value, int | float) else None)
    return found


def verdict(found: Row) -> str:
    target, value = found.get("target"), found.get("value")
    if target is None or not isinstance(value, int | float):
        return ""
    met = value <= target if str(found.get("unit", "")).endswith("(max)") else value >= target
    return "ok" if met else "MISSED"


def _cell(value: Any) -> str:
    return "" if value is None else f"{value:,.2f}" if isinstance(value, int | float) else str(value)


def print_table(rows: list[Row]) -> None:
    if not rows:
        print("(no rows)")
        return
    header: tuple[str, ...] = ("benchmark", "value", "unit", "target", "")
    comparisons = any(r.get("baseline") is not None or r.get("ratio") is not None for r in rows)
    lines = []
    for r in rows:
        value, target = "-" if r.get("value") is None else _cell(r["value"]), r.get("target")
        line = (
            str(r.get("benchmark")),
            value,
            str(r.get("unit", "")),
            "" if target is None else f"{target:,}",
            verdict(r),
        )
        lines.append(line + ((_cell(r.get("baseline")), _cell(r.get("ratio"))) if comparisons else ()))
    header += ("baseline", "ratio") if comparisons else ()
    widths = [max(len(h), *(len(line[i]) for line in lines)) for i, h in enumerate(header)]
    for line in (header, tuple("-" * w for w in widths), *lines):
        print("  ".join(cell.ljust(w) for cell, w in zip(line, widths, strict=True)).rstrip())
