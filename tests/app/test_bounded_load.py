"""The in-memory storage folds a table from the bounded selection of its events (`bounded_table_events`, what
PostgreSQL's table loader selects in SQL: tests/integration/test_storage_contract.py checks the two agree).
Whatever is played, and whoever leaves and sits between deals, that selection folds to the state of the whole
stream. No server: the application runs on the in-memory storage.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from domain import table as tables
from infra.storage.memory import InMemoryStorage
from infra.table_loader import bounded_table_events, fold_recorded
from services.app.callers import Caller
from services.bootstrap import application
from tests.play import next_move, register


@settings(max_examples=12, deadline=None)
@given(
    game_seats=st.sampled_from([("cholek-tiga", 2), ("cha-kau-tsz", 3)]),
    seed=st.integers(0, 2**32 - 1),
    deals=st.integers(1, 3),
    changes=st.floats(0, 1),
)
def test_the_bounded_events_fold_to_the_whole_streams_state(
    game_seats: tuple[str, int], seed: int, deals: int, changes: float
) -> None:
    game, seats = game_seats
    storage = InMemoryStorage()
    ledger = application(storage, None)
    rng = random.Random(seed)
    players = [register(ledger, f"p{seat}") for seat in range(seats)]
    table_id = str(ledger.open_table(players[0], game, seats, {})["id"])
    for seat, player in enumerate(players):
        ledger.sit(player, table_id, seat, None)
    while (state := ledger.queries.load_state(table_id)).deal_no <= deals:
        if state.status == tables.BETWEEN_DEALS and state.deal_no == deals:
            break
        if state.status == tables.BETWEEN_DEALS and not state.ready and rng.random() < changes:
            seat = rng.randrange(seats)  # a seat changes hands between deals
            ledger.act(players[seat], table_id, {"type": "leave"}, f"leave-{state.version}", None)
            players[seat] = register(ledger, f"late-{state.version}")
            ledger.sit(players[seat], table_id, seat, None)
            continue
        seat, action = next_move(state, rng)
        caller: Caller = players[seat]
        ledger.act(caller, table_id, action, f"k-{state.version}", None)

    stream = storage.store.read_stream(table_id)
    starts = {e.version for e in stream if e.type in (tables.DEAL_STARTED, tables.DEAL_ENDED)}
    versions = sorted({v + d for v in starts for d in (-1, 0, 1)} | set(rng.sample(range(1, len(stream) + 1), 10)))
    for version in [v for v in versions if 1 <= v <= len(stream)] + [len(stream)]:
        chosen = bounded_table_events(stream[:version])
        assert fold_recorded(chosen) == fold_recorded(stream[:version]), f"at version {version}"
        assert storage.table_events(table_id, up_to_version=version) == chosen
