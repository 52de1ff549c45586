"""An API process's memory is bounded by its caches' configured sizes, not by the tables and players it serves.

`CardLedger` (the application service an API worker holds) is given small `CacheSizes`, serves many more tables
and players than they allow through its commands and queries, and then every container reachable from it is
looked at: each `Lru` is sized from the configuration and holds no more than its size, and nothing else holds
more entries than the largest configured size. A cache added with a size of its own, or a plain dict that keeps
something per table or per player, fails here.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from psycopg_pool import ConnectionPool

from domain import table as tables
from domain.games import game_named
from infra.config import CacheSizes, Settings
from infra.event_store import EventStore
from infra.lru import Lru
from infra.signing import ReceiptSigner
from infra.storage.postgres import PostgresStorage
from services.app.ledger import CardLedger
from services.bootstrap import bootstrap
from tests.play import register

SIZES = CacheSizes(tables=3, players=4)
TABLES = 12  # four times the tables the cache may keep, each with two players of its own
OWN_PACKAGES = ("infra", "services", "domain")


def reachable(root: object) -> Iterator[tuple[str, object]]:
    """(path, object) of every object of this project's packages reachable from `root` through attributes,
    and of every container those hold (the containers themselves, not their contents)."""
    seen: set[int] = set()
    todo: list[tuple[str, object]] = [("ledger", root)]
    while todo:
        path, value = todo.pop()
        if id(value) in seen:
            continue
        seen.add(id(value))
        yield path, value
        if isinstance(value, Lru):
            continue  # its contents are the cached values, bounded by its size
        module = type(value).__module__.split(".")[0]
        if module not in OWN_PACKAGES:
            continue
        attributes: dict[str, Any] = dict(getattr(value, "__dict__", {}))
        for slot in getattr(type(value), "__slots__", ()):
            if hasattr(value, slot):
                attributes[slot] = getattr(value, slot)
        for name, attribute in attributes.items():
            todo.append((f"{path}.{name}", attribute))


# Containers written once, at construction, whatever the process serves: the pool's connection parameters.
FIXED_CONTAINERS = (".pool.kwargs",)


def containers(root: object) -> list[tuple[str, Any]]:
    return [
        (path, v)
        for path, v in reachable(root)
        if isinstance(v, dict | list | set | tuple) and path != "ledger" and not path.endswith(FIXED_CONTAINERS)
    ]


def play_some(ledger: CardLedger) -> None:
    """TABLES tables, two new players each: opened, seated (deal 1 starts), a few moves, every read."""
    game = game_named("cholek-tiga")
    for n in range(TABLES):
        callers = [register(ledger, f"bounded-{n}-{seat}") for seat in range(2)]
        table_id = str(ledger.open_table(callers[0], game.name, 2, {})["id"])
        for seat, caller in enumerate(callers):
            ledger.sit(caller, table_id, seat, f"seed-{n}-{seat}")
        for _ in range(3):
            state = ledger.queries.load_state(table_id)
            seat = tables.to_act(state)
            assert seat is not None
            view = ledger.queries.seat_view(callers[seat], table_id)
            action = dict(view["legal_actions"][0])  # type: ignore[index]
            ledger.act(callers[seat], table_id, action, str(uuid.uuid4()), int(str(view["version"])))
        ledger.queries.table_view(table_id)
        ledger.queries.events(callers[0], table_id, 0, 100)


def test_every_cache_of_the_application_is_bounded_by_its_configured_size(
    pool: ConnectionPool[Any], store: EventStore
) -> None:
    ledger = CardLedger(PostgresStorage(pool, store), None, caches=SIZES)
    play_some(ledger)

    caches = [(path, v) for path, v in reachable(ledger) if isinstance(v, Lru)]
    names = {path.rsplit(".", 1)[-1] for path, _ in caches}
    # The caches this test knows of; a new one must be sized from CacheSizes to pass the checks below.
    assert {"_known", "_players", "_token_hashes", "_seeds", "_v1_private_deals"} <= names, names
    configured = {SIZES.tables, SIZES.players, SIZES.seeds, SIZES.deals}
    for path, cache in caches:
        assert cache.size in configured, f"{path} has a size of its own, {cache.size}, not one of {configured}"
        assert len(cache) <= cache.size, f"{path} holds {len(cache)} entries, more than its size {cache.size}"
    full = {path.rsplit(".", 1)[-1] for path, cache in caches if len(cache) == cache.size}
    # Fed more than they may keep: the table, player and seed caches are full (and no fuller).
    assert {"_known", "_players", "_token_hashes", "_seeds"} <= full, full

    largest = max(configured)
    for path, container in containers(ledger):
        assert len(container) <= largest, (
            f"{path} holds {len(container)} entries after {TABLES} tables and {2 * TABLES} players, more than any "
            f"configured cache size ({largest}): it grows with what the process has served"
        )


def test_bootstrap_sizes_the_caches_from_the_settings(migrated_database_url: str, redis_url: str) -> None:
    settings = Settings.from_env(
        {
            "DATABASE_URL": migrated_database_url,
            "REDIS_URL": redis_url,
            "CARDLEDGER_CACHE_TABLES": "7",
            "CARDLEDGER_CACHE_PLAYERS": "9",
        }
    )
    assert settings.caches == CacheSizes(tables=7, players=9)
    container = bootstrap(settings, start_embedded=False, signer=ReceiptSigner.ephemeral())
    try:
        sizes = {path.rsplit(".", 1)[-1]: v.size for path, v in reachable(container.ledger) if isinstance(v, Lru)}
    finally:
        container.close()
    assert sizes["_known"] == 7
    assert sizes["_seeds"] == 14
    assert sizes["_v1_private_deals"] == 7
    assert sizes["_players"] == sizes["_token_hashes"] == 9


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        ("CARDLEDGER_CACHE_TABLES", "0", "CARDLEDGER_CACHE_TABLES must be between 1 and 10000000, got '0'"),
        ("CARDLEDGER_CACHE_PLAYERS", "lots", "CARDLEDGER_CACHE_PLAYERS must be an integer, got 'lots'"),
        ("CARDLEDGER_CACHE_TABLES", "10000001", "CARDLEDGER_CACHE_TABLES must be between 1 and 10000000"),
    ],
)
def test_a_cache_size_out_of_bounds_is_refused_naming_the_variable(variable: str, value: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Settings.from_env({variable: value})
