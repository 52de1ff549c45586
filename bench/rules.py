"""How fast are the rules? Whole random games through `domain.table` (decide + evolve), as the service runs them,
on one core; the rows "rules only" / "engine only" play the same way on the game's own functions without the
table wrapper, to show how the time splits between the two.

Run: python -m bench.rules

Cholek Tiga: complete 2-player games per second and events folded per second (the best of short windows, so that
other load on a shared machine disturbs the figure less). Cha Kau Tsz: complete hands per second at 4 and 2
seats (CPU time of this process), a bot playing random legal moves, every seat "ready" between hands.
"""

from __future__ import annotations

import hashlib
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bench.harness import Row, print_table, row
from domain import table as tbl
from domain.cards import SAMPEN_DECK
from domain.cha_kau_tsz import options as opts
from domain.cha_kau_tsz.dealing import deal_events
from domain.cha_kau_tsz.decide import decide_play
from domain.cha_kau_tsz.evolve import evolve_hand
from domain.cha_kau_tsz.plays import legal_leads
from domain.cha_kau_tsz.scoring import settle
from domain.cha_kau_tsz.state import Hand
from domain.cholek_tiga.rules import CHOLEK_TIGA
from domain.events import Event
from domain.shuffle import deal_deck

SEEDS = {deal_no: bytes([deal_no]) * 32 for deal_no in range(1, 4)}


class _Seeds(dict[int, bytes]):
    """Server seeds for every deal, derived on demand (the service uses secrets)."""

    def __missing__(self, deal_no: int) -> bytes:
        self[deal_no] = hashlib.sha256(b"bench-cha-kau-tsz-%d" % deal_no).digest()
        return self[deal_no]


# Cholek Tiga -------------------------------------------------------------------------------------------------------


def play_game(rng: random.Random, players: int = 2, table_id: str = "bench") -> list[Event]:
    """One complete game through domain.table, random legal play; returns the table's whole stream."""
    events = [tbl.open_table(table_id, "cholek-tiga", players, {}, SEEDS[1])]
    state = tbl.evolve(None, events[0])
    for player in range(players):
        new, state = tbl.decide_and_evolve(state, tbl.Sit(f"player-{player}"), SEEDS)
        events += new
    while (seat := tbl.to_act(state)) is not None:
        new, state = tbl.decide_and_evolve(state, tbl.Act(seat, rng.choice(tbl.legal_actions(state, seat))), SEEDS)
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
        table.deal, count = game.evolve_deal(table, table.deal, event), count + 1
    while (seat := game.to_act(table.deal)) is not None:
        for event in game.decide_play(table, seat, rng.choice(game.legal_actions(table, seat)), deck):
            table.deal, count = game.evolve_deal(table, table.deal, event), count + 1
    game.outcome(table)
    return count


def _rate(work: Callable[[], int], seconds: float, window: float = 0.25) -> float:
    """Units of work per second: `work` (returning its units) repeated in short windows for about `seconds`; the
    best window counts."""
    best, deadline = 0.0, time.perf_counter() + seconds
    while True:
        units, start = 0, time.perf_counter()
        while (elapsed := time.perf_counter() - start) < window:
            units += work()
        best = max(best, units / elapsed)
        if time.perf_counter() >= deadline:
            return best


def cholek_tiga(seconds: float) -> list[Row]:
    rng = random.Random(20240601)
    streams = [play_game(rng, players=2 + i % 2, table_id=f"bench-{i}") for i in range(20)]
    total_events = sum(len(stream) for stream in streams)
    deal_streams: list[tuple[tbl.TableState, list[Event]]] = []
    for stream in streams:
        start = next(i for i, event in enumerate(stream) if event.type == "deal_started") + 1
        deal_streams.append((tbl.fold(None, stream[:start]), [e for e in stream[start:] if e.type != "deal_ended"]))
    deal_events_count = sum(len(events) for _, events in deal_streams)

    def fold_streams() -> int:
        for stream in streams:
            tbl.fold(None, stream)
        return total_events

    def fold_deals_rules_only() -> int:
        for table, events in deal_streams:
            deal = None
            for event in events:
                deal = CHOLEK_TIGA.evolve_deal(table, deal, event)
        return deal_events_count

    def one_game() -> int:
        play_game(rng)
        return 1

    def one_game_rules_only() -> int:
        play_game_rules_only(rng)
        return 1

    return [
        row("cholek-tiga complete 2-player games/s (1 core)", _rate(one_game, seconds), "games/s", 500),
        row("cholek-tiga events folded/s", _rate(fold_streams, seconds), "events/s", 200_000),
        row(
            "cholek-tiga complete 2-player games/s, rules only (no table wrapper)",
            _rate(one_game_rules_only, seconds),
            "games/s",
        ),
        row(
            "cholek-tiga deal events folded/s, rules only (evolve_deal)",
            _rate(fold_deals_rules_only, seconds),
            "events/s",
        ),
    ]


# Cha Kau Tsz -------------------------------------------------------------------------------------------------------


def play_hands(seats: int, hands: int, rng: random.Random) -> tbl.TableState:
    """Play `hands` complete hands of random legal play at a fresh table."""
    seeds = _Seeds()
    state = tbl.evolve(None, tbl.open_table("bench", "cha-kau-tsz", seats, {}, seeds[1]))
    for seat in range(seats):
        state = tbl.decide_and_evolve(state, tbl.Sit(f"player-{seat}"), seeds)[1]
    finished = 0
    while True:
        if state.status == tbl.BETWEEN_DEALS:
            finished += 1
            if finished == hands:
                return state
            for ready in range(seats):
                state = tbl.decide_and_evolve(state, tbl.Act(ready, {"type": "ready"}), seeds)[1]
            continue
        seat = tbl.to_act(state)
        assert seat is not None
        choice: dict[str, Any] = rng.choice(tbl.legal_actions(state, seat))
        if "count" in choice:
            choice = {"type": "play", "cards": rng.sample(list(state.deal.hands[seat]), choice["count"])}
        state = tbl.decide_and_evolve(state, tbl.Act(seat, choice), seeds)[1]


def play_hands_engine(seats: int, hands: int, rng: random.Random) -> dict[str, Any]:
    """The same random play on the game engine alone (no table wrapper): how much of a hand is the rules."""
    options = opts.parse_options({}, seats)
    target = int(options["pool_target_tricks"])
    carry = opts.initial_carry(seats, options)
    for hand_no in range(1, hands + 1):
        deck = deal_deck(SAMPEN_DECK, _Seeds()[hand_no], "bench", hand_no, ("",) * seats)
        hand: Hand | None = None
        for event in deal_events(hand_no, seats, int(carry["pool_game"]), deck):
            hand = evolve_hand(hand, event, seats)
        assert hand is not None
        while not hand.scored:
            seat = hand.to_act
            assert seat is not None
            if hand.on_lead:
                cards = list(rng.choice(legal_leads(hand.hands[seat])))
            else:
                cards = rng.sample(list(hand.hands[seat]), len(hand.trick[0].cards))
            for event in decide_play(hand, seat, {"type": "play", "cards": cards}, carry, target):
                hand = evolve_hand(hand, event, seats)
        carry = settle(hand.tricks, carry, target).carry
    return carry


def hands_per_second(seats: int, hands: int, engine_only: bool = False) -> float:
    rng = random.Random(seats)
    started = time.process_time()  # CPU time of this process: one core, robust to a busy machine
    (play_hands_engine if engine_only else play_hands)(seats, hands, rng)
    return hands / (time.process_time() - started)


def cha_kau_tsz(hands: int) -> list[Row]:
    rows = []
    for engine_only in (False, True):
        for seats in (4, 2):
            hands_per_second(seats, max(hands // 20, 10), engine_only)  # warm up caches and imports
            through = "game engine only, no table wrapper" if engine_only else "through domain.table"
            rows.append(
                row(
                    f"cha-kau-tsz complete random hands/s, {seats} players, {through} (1 core)",
                    round(hands_per_second(seats, hands, engine_only), 1),
                    "hands/s",
                    None if engine_only else 1000,
                )
            )
    return rows


def run(seconds: float = 3.0, hands: int = 2000) -> list[Row]:
    return cholek_tiga(seconds) + cha_kau_tsz(hands)


if __name__ == "__main__":
    print_table(run())
