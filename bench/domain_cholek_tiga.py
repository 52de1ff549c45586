"""Benchmarks of the Cholek Tiga rules: complete random games and event folding, on one core.

Run: python -m bench.domain_cholek_tiga

The first two rows are the targets (through `domain.table`, as the service
runs them). The rows marked "rules only" run the same work on the game's own
functions without the table wrapper, to show how the time splits between the
two.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from domain.cholek_tiga.rules import CHOLEK_TIGA
from domain.events import Event
from domain.shuffle import deal_deck
from domain.table import Act, Sit, TableState, decide_and_evolve, evolve, fold, legal_actions, open_table, to_act

SEEDS = {deal_no: bytes([deal_no]) * 32 for deal_no in range(1, 4)}


def play_game(rng: random.Random, players: int = 2, table_id: str = "bench") -> list[Event]:
    """One complete game through domain.table, random legal play; returns the table's whole stream."""
    events = [open_table(table_id, "cholek-tiga", players, {}, SEEDS[1])]
    state = evolve(None, events[0])
    for player in range(players):
        new, state = decide_and_evolve(state, Sit(f"player-{player}"), SEEDS)
        events += new
    while (seat := to_act(state)) is not None:
        new, state = decide_and_evolve(state, Act(seat, rng.choice(legal_actions(state, seat))), SEEDS)
        events += new
    return events


@dataclass
class _Table:
    """The few TableState fields the rules read, as a mutable stand-in (rules-only rows)."""

    seats: int
    options: dict[str, Any]
    carry: dict[str, Any] = field(default_factory=lambda: {"first_seat": 0})
    deal: Any = None


def play_game_rules_only(rng: random.Random, players: int = 2) -> int:
    """One complete game on decide_play/evolve_deal directly; returns the number of events."""
    game = CHOLEK_TIGA
    table: Any = _Table(players, game.parse_options({}, players))
    deck = deal_deck(game.canonical_deck, SEEDS[1], "bench", 1, [""] * players)
    count = 0
    for event in game.start_deal(table, deck):
        table.deal = game.evolve_deal(table, table.deal, event)
        count += 1
    while (seat := game.to_act(table.deal)) is not None:
        for event in game.decide_play(table, seat, rng.choice(game.legal_actions(table, seat)), deck):
            table.deal = game.evolve_deal(table, table.deal, event)
            count += 1
    game.outcome(table)
    return count


def _rate(work: Callable[[], int], seconds: float, window: float = 0.25) -> float:
    """Units of work per second: `work` (returning its units) repeated in short windows for about
    `seconds`; the best window counts, so that other load on a shared machine disturbs the figure less."""
    best = 0.0
    deadline = time.perf_counter() + seconds
    while True:
        units = 0
        start = time.perf_counter()
        while (elapsed := time.perf_counter() - start) < window:
            units += work()
        best = max(best, units / elapsed)
        if time.perf_counter() >= deadline:
            return best


def run(seconds: float = 3.0) -> list[dict[str, Any]]:
    rng = random.Random(20240601)
    streams = [play_game(rng, players=2 + i % 2, table_id=f"bench-{i}") for i in range(20)]
    total_events = sum(len(stream) for stream in streams)

    def fold_streams() -> int:
        for stream in streams:
            fold(None, stream)
        return total_events

    deal_streams: list[tuple[TableState, list[Event]]] = []
    for stream in streams:
        start = next(i for i, event in enumerate(stream) if event.type == "deal_started") + 1
        deal_streams.append((fold(None, stream[:start]), [e for e in stream[start:] if e.type != "deal_ended"]))
    deal_events = sum(len(events) for _, events in deal_streams)

    def fold_deals_rules_only() -> int:
        for table, events in deal_streams:
            deal = None
            for event in events:
                deal = CHOLEK_TIGA.evolve_deal(table, deal, event)
        return deal_events

    def one_game() -> int:
        play_game(rng)
        return 1

    def one_game_rules_only() -> int:
        play_game_rules_only(rng)
        return 1

    return [
        {
            "benchmark": "cholek-tiga complete 2-player games/s (1 core)",
            "value": _rate(one_game, seconds),
            "target": 500,
            "unit": "games/s",
        },
        {
            "benchmark": "cholek-tiga events folded/s",
            "value": _rate(fold_streams, seconds),
            "target": 200_000,
            "unit": "events/s",
        },
        {
            "benchmark": "cholek-tiga complete 2-player games/s, rules only (no table wrapper)",
            "value": _rate(one_game_rules_only, seconds),
            "target": None,
            "unit": "games/s",
        },
        {
            "benchmark": "cholek-tiga deal events folded/s, rules only (evolve_deal)",
            "value": _rate(fold_deals_rules_only, seconds),
            "target": None,
            "unit": "events/s",
        },
    ]


def main() -> None:
    rows = run()
    width = max(len(row["benchmark"]) for row in rows)
    print(f"{'benchmark':<{width}}  {'value':>12}  {'target':>9}  unit")
    for row in rows:
        target = "-" if row["target"] is None else f"{row['target']:,}"
        met = "" if row["target"] is None else ("  ok" if row["value"] >= row["target"] else "  BELOW TARGET")
        print(f"{row['benchmark']:<{width}}  {row['value']:>12,.0f}  {target:>9}  {row['unit']}{met}")


if __name__ == "__main__":
    main()
