"""Benchmark: complete random Cha Kau Tsz hands per second through `domain.table` (decide + evolve), one core.

Run: `python -m bench.domain_cha_kau_tsz`. A bot plays random legal moves: on
lead it picks one of `legal_actions` (the full enumeration of legal leads),
on a follow random cards of the led count from its hand. Between hands every
seat posts "ready". Each row reports complete hands per second. The
"engine only" rows play the same way on the rules engine without the table
layer (no TableState copies, no double fold in decide), to show its share.
"""

from __future__ import annotations

import hashlib
import random
import time
from typing import Any

from domain import table as tbl
from domain.cards import SAMPEN_DECK
from domain.cha_kau_tsz import options as opts
from domain.cha_kau_tsz.dealing import deal_events
from domain.cha_kau_tsz.decide import decide_play
from domain.cha_kau_tsz.evolve import evolve_hand
from domain.cha_kau_tsz.plays import legal_leads
from domain.cha_kau_tsz.scoring import settle
from domain.cha_kau_tsz.state import Hand
from domain.shuffle import deal_deck

TARGET_HANDS_PER_SECOND = 1000


class _Seeds(dict[int, bytes]):
    """Server seeds for every deal, derived on demand (benchmark only; the service uses secrets)."""

    def __missing__(self, deal_no: int) -> bytes:
        seed = hashlib.sha256(b"bench-cha-kau-tsz-%d" % deal_no).digest()
        self[deal_no] = seed
        return seed


def seated_table(seats: int, table_id: str = "bench") -> tuple[tbl.TableState, _Seeds]:
    seeds = _Seeds()
    state = tbl.evolve(None, tbl.open_table(table_id, "cha-kau-tsz", seats, {}, seeds[1]))
    for seat in range(seats):
        state = tbl.decide_and_evolve(state, tbl.Sit(f"player-{seat}"), seeds)[1]
    return state, seeds


def play_hands(seats: int, hands: int, rng: random.Random) -> tbl.TableState:
    """Play `hands` complete hands of random legal play at a fresh table."""
    state, seeds = seated_table(seats)
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
            held = list(state.deal.hands[seat])
            choice = {"type": "play", "cards": rng.sample(held, choice["count"])}
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


def measure(seats: int, hands: int, engine_only: bool = False) -> float:
    rng = random.Random(seats)
    started = time.process_time()  # CPU time of this process: one core, robust to a busy machine
    if engine_only:
        play_hands_engine(seats, hands, rng)
    else:
        play_hands(seats, hands, rng)
    return hands / (time.process_time() - started)


def run(hands: int = 2000) -> list[dict[str, Any]]:
    rows = []
    for engine_only in (False, True):
        for seats in (4, 2):
            measure(seats, max(hands // 20, 10), engine_only)  # warm up caches and imports
            through = "game engine only, no table wrapper" if engine_only else "through domain.table"
            rows.append(
                {
                    "benchmark": f"cha-kau-tsz complete random hands/s, {seats} players, {through} (1 core)",
                    "value": round(measure(seats, hands, engine_only), 1),
                    "target": None if engine_only else TARGET_HANDS_PER_SECOND,
                    "unit": "hands/s",
                }
            )
    return rows


def main() -> None:
    rows = run()
    width = max(len(row["benchmark"]) for row in rows)
    print(f"{'benchmark':<{width}}  {'value':>10}  {'target':>8}  unit")
    for row in rows:
        target = "-" if row["target"] is None else str(row["target"])
        met = "" if row["target"] is None else ("  ok" if row["value"] >= row["target"] else "  BELOW TARGET")
        print(f"{row['benchmark']:<{width}}  {row['value']:>10.1f}  {target:>8}  {row['unit']}{met}")


if __name__ == "__main__":
    main()
