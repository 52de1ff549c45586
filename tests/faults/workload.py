"""Random games played through `domain.table` and appended to the store (tests and benchmarks)."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterator
from dataclasses import dataclass, field

from domain.events import Event
from domain.table import Act, Sit, TableState, decide, evolve, legal_actions, open_table, to_act
from infra.event_store import EventStore, NewEvent


def seed_for(table_id: str, deal_no: int) -> bytes:
    return hashlib.sha256(f"{table_id}/{deal_no}".encode()).digest()


class Seeds(dict[int, bytes]):
    """Deterministic server seeds of one table, made on demand."""

    def __init__(self, table_id: str) -> None:
        super().__init__()
        self.table_id = table_id

    def __missing__(self, deal_no: int) -> bytes:
        return seed_for(self.table_id, deal_no)


@dataclass
class TableGame:
    """One table being played at random; each `step()` returns the events of one command."""

    table_id: str
    game: str = "cha-kau-tsz"
    seats: int = 3
    deals: int = 1
    rng: random.Random = field(default_factory=random.Random)
    state: TableState | None = None
    finished: bool = False

    def __post_init__(self) -> None:
        self.seeds = Seeds(self.table_id)

    def step(self) -> list[Event]:
        if self.state is None:
            return [open_table(self.table_id, self.game, self.seats, {}, self.seeds[1])]
        state = self.state
        if None in state.players:
            return decide(state, Sit(f"p-{self.table_id}-{state.players.index(None)}"), self.seeds)
        if state.status == "between_deals":
            if state.deal_no >= self.deals:
                seat = min(set(range(state.seats)) - set(state.ready))
                return decide(state, Act(seat, {"type": "close"}), self.seeds)
            seat = min(set(range(state.seats)) - set(state.ready))
            return decide(state, Act(seat, {"type": "ready"}), self.seeds)
        seat = to_act(state)
        assert seat is not None, f"nobody to act at {self.table_id} in status {state.status}"
        actions = legal_actions(state, seat)
        action = dict(self.rng.choice(actions))
        if "count" in action and "cards" not in action:
            action = {"type": action["type"], "cards": self._pick(state, seat, int(action["count"]))}
        return decide(state, Act(seat, action), self.seeds)

    def _pick(self, state: TableState, seat: int, count: int) -> list[str]:
        from domain.table import seat_view

        hand = list(seat_view(state, seat)["hand"])
        return self.rng.sample(hand, count)

    def advance(self, events: list[Event]) -> list[NewEvent]:
        """Fold `events` into the state; the NewEvents to append (deal_no after each event)."""
        out = []
        for event in events:
            self.state = evolve(self.state, event)
            out.append(NewEvent(event.type, event.data, self.state.deal_no))
        if self.state is not None and self.state.status == "closed":
            self.finished = True
        return out

    def play_into(self, store: EventStore) -> Iterator[int]:
        """Append every command's events until the table closes; yields the stream version after each."""
        while not self.finished:
            version = 0 if self.state is None else self.state.version
            new = self.advance(self.step())
            store.append(self.table_id, version, new)
            assert self.state is not None
            yield self.state.version


def play_tables(store: EventStore, count: int, deals: int = 1, seed: int = 7, game: str = "cha-kau-tsz") -> int:
    """Play `count` tables to their close, interleaving them; returns the events appended."""
    rng = random.Random(seed)
    games = [
        TableGame(f"t{seed}-{i}", game=game, seats=rng.choice([2, 3, 4]), deals=deals, rng=rng) for i in range(count)
    ]
    runs = [g.play_into(store) for g in games]
    total = 0
    while runs:
        run = rng.choice(runs)
        try:
            next(run)
        except StopIteration:
            runs.remove(run)
    for g in games:
        assert g.state is not None
        total += g.state.version
    return total
