"""How fast are the rules? Whole random games through `domain.table` on one core, and the same play on the game's
own functions ("rules only", "engine only"): how the time splits between the two.

Run: python -m bench.rules
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
    """Server seeds for every deal, derived on demand."""

    def __missing__(self, deal_no: int) -> bytes:
        self[deal_no] = hashlib.sha256(b"bench-cha-kau-tsz-%d" % deal_no).digest()
        return self[deal_no]


def play_game(rng: random.Random, players: int = 2, table_id: str = "bench") -> list[Event]:
    """One complete Cholek Tiga game through domain.table, random legal play: the table's whole stream."""
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


def play_game_rules_only(rng: random.Random, players: int = 2) -> None:
    """The same game on decide_play/evolve_deal directly."""
    game = CHOLEK_TIGA
    table: Any = _Table(players, game.parse_options({}, players))
    deck = deal_deck(game.canonical_deck, SEEDS[1], "bench", 1, [""] * players)
    for event in game.start_deal(table, deck):
        table.deal = game.evolve_deal(table, table.deal, event)
    while (seat := game.to_act(table.deal)) is not None:
        for event in game.decide_play(table, seat, rng.choice(game.legal_actions(table, seat)), deck):
            table.deal = game.evolve_deal(table, table.deal, event)
    game.outcome(table)


def best_rate(work: Callable[[], int], seconds: float, window: float = 0.25) -> float:
    """Units per second of `work` (which returns its units), the best of windows of `window` s over `seconds`."""
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
    deals = []  # (the table as its deal starts, the deal's events)
    for stream in streams:
        start = next(i for i, event in enumerate(stream) if event.type == "deal_started") + 1
        deals.append((tbl.fold(None, stream[:start]), [e for e in stream[start:] if e.type != "deal_ended"]))

    def fold_streams() -> int:
        for stream in streams:
            tbl.fold(None, stream)
        return sum(len(stream) for stream in streams)

    def fold_deals_only() -> int:
        for table, events in deals:
            deal = None
            for event in events:
                deal = CHOLEK_TIGA.evolve_deal(table, deal, event)
        return sum(len(events) for _, events in deals)

    def one_game() -> int:
        play_game(rng)
        return 1

    def one_game_rules_only() -> int:
        play_game_rules_only(rng)
        return 1

    rules_only = "rules only (no table wrapper)"
    return [
        row("cholek-tiga complete 2-player games/s (1 core)", best_rate(one_game, seconds), "games/s", 500),
        row("cholek-tiga events folded/s", best_rate(fold_streams, seconds), "events/s", 200_000),
        row(f"cholek-tiga complete 2-player games/s, {rules_only}", best_rate(one_game_rules_only, seconds), "games/s"),
        row(
            "cholek-tiga deal events folded/s, rules only (evolve_deal)",
            best_rate(fold_deals_only, seconds),
            "events/s",
        ),
    ]


def play_hands(seats: int, hands: int, rng: random.Random) -> None:
    """`hands` complete Cha Kau Tsz hands of random legal play at a fresh table, through domain.table."""
    seeds = _Seeds()
    state = tbl.evolve(None, tbl.open_table("bench", "cha-kau-tsz", seats, {}, seeds[1]))
    for seat in range(seats):
        state = tbl.decide_and_evolve(state, tbl.Sit(f"player-{seat}"), seeds)[1]
    finished = 0
    while True:
        if state.status == tbl.BETWEEN_DEALS:
            finished += 1
            if finished == hands:
                return
            for ready in range(seats):
                state = tbl.decide_and_evolve(state, tbl.Act(ready, {"type": "ready"}), seeds)[1]
            continue
        seat = tbl.to_act(state)
        assert seat is not None
        choice: dict[str, Any] = rng.choice(tbl.legal_actions(state, seat))
        if "count" in choice:
            choice = {"type": "play", "cards": rng.sample(list(state.deal.hands[seat]), choice["count"])}
        state = tbl.decide_and_evolve(state, tbl.Act(seat, choice), seeds)[1]


def play_hands_engine(seats: int, hands: int, rng: random.Random) -> None:
    """The same random play on the game engine alone (no table wrapper)."""
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


def hands_per_second(seats: int, hands: int, engine_only: bool) -> float:
    started = time.process_time()  # CPU time of this process: one core, robust to a busy machine
    (play_hands_engine if engine_only else play_hands)(seats, hands, random.Random(seats))
    return hands / (time.process_time() - started)


def cha_kau_tsz(hands: int) -> list[Row]:
    rows = []
    for engine_only in (False, True):
        through = "game engine only, no table wrapper" if engine_only else "through domain.table"
        for seats in (4, 2):
            hands_per_second(seats, max(hands // 20, 10), engine_only)  # warm up caches and imports
            rate = round(hands_per_second(seats, hands, engine_only), 1)
            label = f"cha-kau-tsz complete random hands/s, {seats} players, {through} (1 core)"
            rows.append(row(label, rate, "hands/s", None if engine_only else 1000))
    return rows


def run(seconds: float = 3.0, hands: int = 2000) -> list[Row]:
    return cholek_tiga(seconds) + cha_kau_tsz(hands)


if __name__ == "__main__":
    print_table(run())
