"""Stateful property tests: complete random hands and pool games with 2, 3 and 4 players through domain.table.

After every step: card conservation against the deck recomputed from the seed; every trick went to the
seat a reference referee (tests/.../support.ref_winner) names; tricks add up to the cards led; no hidden
card reaches another seat or the public (views and redacted events); sum(balances) + pool == 0 and the
ledger of all transfers matches the balances; every listed legal action is accepted; folding the opening,
the seatings, the last deal_ended and what follows gives the same state as folding the whole stream.
At the end: the same seeds and actions give the same events (determinism).
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from hypothesis import event as hypothesis_event
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from domain import table as tbl
from domain.cards import SAMPEN_DECK
from domain.cha_kau_tsz.options import hand_size
from domain.cha_kau_tsz.plays import ORDER, legal_leads
from domain.events import JSON, Event
from domain.ledger import net_by_account
from domain.redaction import PUBLIC, redact
from domain.shuffle import deal_deck

from .support import Table, ref_winner


def card_codes(value: JSON) -> list[str]:
    """Every card code anywhere in a JSON value."""
    if isinstance(value, str):
        return [value] if value in ORDER else []
    if isinstance(value, dict):
        return [code for item in value.values() for code in card_codes(item)]
    if isinstance(value, list | tuple):
        return [code for item in value for code in card_codes(item)]
    return []


def comparable(state: tbl.TableState, *ignored: str) -> dict[str, Any]:
    """Everything of a table state but its stream version (and the fields named)."""
    return {name: getattr(state, name) for name in state.__slots__ if name not in ("version", *ignored)}


class ChaKauTszMachine(RuleBasedStateMachine):
    seats = 4

    def __init__(self) -> None:
        super().__init__()
        self.table: Table | None = None

    @initialize(target_offset=st.integers(0, 7), salt=st.integers(0, 10**6))
    def open_table(self, target_offset: int, salt: int) -> None:
        size = hand_size(self.seats)
        self.target = min(size // 2 + 1 + target_offset, size)
        self.table_id = f"m-{self.seats}-{salt}"
        self.table = Table(self.seats, {"pool_target_tricks": self.target}, table_id=self.table_id)
        self.commands: list[tuple[int, dict[str, Any]]] = []
        self.ledger: dict[str, int] = {}
        self.hands_played = 0
        self.pools_won = 0
        self.start_deal_tracking()
        self.check_new_events(self.table.events)

    def start_deal_tracking(self) -> None:
        self.dealt: dict[int, Counter[str]] = {}
        self.dealt_indexes: set[int] = set()
        self.played: dict[int, Counter[str]] = {seat: Counter() for seat in range(self.seats)}
        self.trick: list[tuple[int, list[str]]] = []
        self.led_in_tricks = 0
        self.ref_tricks = [0] * self.seats

    # Steps -------------------------------------------------------------------

    @precondition(lambda self: self.table is not None and self.table.state.status == tbl.BETWEEN_DEALS)
    @rule(seed_choice=st.sampled_from(["", "abc", "ünïcode"]))
    def ready(self, seed_choice: str) -> None:
        assert self.table is not None
        seat = min(set(range(self.seats)) - self.table.state.ready)
        self.run(seat, {"type": "ready", "client_seed": seed_choice})

    @precondition(lambda self: self.table is not None and self.table.state.status == tbl.PLAYING)
    @rule(pick=st.integers(0, 2**32 - 1))
    def play(self, pick: int) -> None:
        assert self.table is not None
        state = self.table.state
        seat = tbl.to_act(state)
        assert seat is not None
        rng = random.Random(pick)
        actions = tbl.legal_actions(state, seat)
        assert actions, "the seat to act always has a legal action"
        for other in range(self.seats):
            if other != seat:
                assert tbl.legal_actions(state, other) == []
        if "count" in actions[0]:
            [follow] = actions
            count = follow["count"]
            held = self.table.hand(seat)
            combos = [list(lead) for lead in legal_leads(held) if len(lead) == count and count > 1]
            cards = rng.choice(combos) if combos and rng.random() < 0.6 else rng.sample(held, count)
            action: dict[str, Any] = {"type": "play", "cards": cards}
        else:
            for candidate in actions[:80]:
                events = tbl.decide(state, tbl.Act(seat, candidate), self.table.seeds)
                assert events[0].type == "cards_played" and events[0].data["lead"] is True
            action = rng.choice(actions)
        self.run(seat, action)

    def run(self, seat: int, action: dict[str, Any]) -> None:
        assert self.table is not None
        self.commands.append((seat, action))
        self.check_new_events(self.table.act(seat, action))

    # Checks on each new event ------------------------------------------------

    def check_new_events(self, events: list[Event]) -> None:
        assert self.table is not None
        for event in events:
            self.check_visibility(event)
            data = event.data
            if event.type == "deal_started":
                self.start_deal_tracking()
            elif event.type == "hand_dealt":
                deck = deal_deck(
                    SAMPEN_DECK,
                    self.table.seeds[self.table.state.deal_no],
                    self.table_id,
                    self.table.state.deal_no,
                    self.table.state.deal_client_seeds,
                )
                cards = data["private"]["cards"]
                assert [deck[index] for index in data["deck_indexes"]] == cards
                assert not self.dealt_indexes & set(data["deck_indexes"])
                self.dealt_indexes |= set(data["deck_indexes"])
                self.dealt[data["seat"]] = Counter(cards)
                assert len(cards) == data["count"] == hand_size(self.seats)
            elif event.type == "cards_played":
                self.played[data["seat"]].update(data["cards"])
                assert data["lead"] == (not self.trick)
                if self.trick:
                    assert data["seat"] == (self.trick[-1][0] + 1) % self.seats
                    assert len(data["cards"]) == len(self.trick[0][1])
                self.trick.append((data["seat"], list(data["cards"])))
            elif event.type == "trick_won":
                assert len(self.trick) == self.seats
                assert data["seat"] == ref_winner(self.trick)
                assert data["tricks"] == len(self.trick[0][1])
                self.ref_tricks[data["seat"]] += data["tricks"]
                assert data["total"] == self.ref_tricks[data["seat"]]
                self.led_in_tricks += data["tricks"]
                self.trick = []
            elif event.type == "hand_scored":
                assert data["tricks"] == self.ref_tricks
                assert sum(data["tricks"]) == hand_size(self.seats)
                most = max(self.ref_tricks)
                assert data["payments"] == [most - won for won in self.ref_tricks]
                winners = [seat for seat, won in enumerate(self.ref_tricks) if won >= self.target]
                assert data["pool_winner"] == (winners[0] if winners else None) and len(winners) <= 1
            elif event.type == "deal_ended":
                self.check_deal_ended(event)

    def check_deal_ended(self, event: Event) -> None:
        data = event.data
        totals = net_by_account(tbl.deal_transfers(event))
        assert sum(totals.values()) == 0
        for account, amount in totals.items():
            self.ledger[account] = self.ledger.get(account, 0) + amount
        result = data["result"]
        assert result["tricks"] == self.ref_tricks
        assert [totals.get(f"seat:{seat}", 0) for seat in range(self.seats)] == result["net"]
        self.hands_played += 1
        self.pools_won += result["pool_winner"] is not None

    def check_visibility(self, event: Event) -> None:
        """Only played cards are public; a dealt hand is shown to its holder alone while the deal is on."""
        viewers: list[Any] = [*range(self.seats), PUBLIC]
        for viewer in viewers:
            shown = redact(event, viewer, deal_ended=False)
            codes = card_codes(shown.to_json())
            if event.type == "cards_played":
                assert Counter(codes) == Counter(event.data["cards"])
            elif event.type == "hand_dealt" and viewer == event.data["seat"]:
                assert codes == event.data["private"]["cards"]
            else:
                assert codes == [], f"{event.type} shows {codes} to {viewer}"

    # Invariants after every step ----------------------------------------------

    @invariant()
    def cards_are_conserved(self) -> None:
        if self.table is None or self.table.state.deal is None:
            return
        deal = self.table.state.deal
        assert len(self.dealt_indexes) == self.seats * hand_size(self.seats)  # the rest is set aside unseen
        set_aside = 60 - len(self.dealt_indexes)
        total: Counter[str] = Counter()
        for seat in range(self.seats):
            held = Counter(deal.hands[seat])
            assert held + self.played[seat] == self.dealt[seat]
            total += held + self.played[seat]
        assert total.total() + set_aside == 60
        assert not total - Counter(SAMPEN_DECK)
        hand_sizes = {len(cards) for cards in deal.hands}
        played_in_trick = {seat for seat, _ in self.trick}
        if not self.trick:
            assert len(hand_sizes) == 1, "hands empty together"

        assert list(deal.tricks) == self.ref_tricks
        assert sum(deal.tricks) == self.led_in_tricks
        assert len(played_in_trick) == len(self.trick)

    @invariant()
    def views_hide_held_cards(self) -> None:
        if self.table is None or self.table.state.deal is None:
            return
        state = self.table.state
        played = sum(self.played.values(), Counter())
        public = tbl.public_view(state)
        assert not Counter(card_codes(public)) - played
        assert public["hand_sizes"] == [len(cards) for cards in state.deal.hands]
        assert public["tricks"] == self.ref_tricks
        for seat in range(self.seats):
            view = tbl.seat_view(state, seat)
            assert view["hand"] == sorted(state.deal.hands[seat], key=ORDER.__getitem__)
            rest = {key: value for key, value in view.items() if key not in ("hand", "legal_actions")}
            assert not Counter(card_codes(rest)) - played
            for action in view["legal_actions"]:
                assert not Counter(card_codes(action)) - Counter(view["hand"])

    @invariant()
    def money_balances(self) -> None:
        if self.table is None:
            return
        carry = self.table.state.carry
        assert sum(carry["balances"]) + carry["pool"] == 0
        for seat in range(self.seats):
            assert self.ledger.get(f"seat:{seat}", 0) == carry["balances"][seat]
        assert self.ledger.get("pool", 0) == carry["pool"]
        if self.table.state.deal is not None:
            view = tbl.public_view(self.table.state)
            assert view["balances"] == carry["balances"] and view["pool"] == carry["pool"]
            assert view["debts"] == [
                {"seat": seat, "points": -balance} for seat, balance in enumerate(carry["balances"]) if balance < 0
            ]

    @invariant()
    def carry_rebuilds_the_table(self) -> None:
        if self.table is None:
            return
        events = self.table.events
        ends = [index for index, event in enumerate(events) if event.type == "deal_ended"]
        if not ends:
            return
        last = ends[-1]
        head = [event for event in events[:last] if event.type in ("table_opened", "player_seated")]
        short = tbl.fold(None, [*head, *events[last:]])
        full = self.table.state
        if any(event.type == "deal_started" for event in events[last:]):
            assert comparable(short) == comparable(full)
        else:  # between deals the full fold still holds the last hand's state (for its views); the rest agrees
            assert short.deal is None
            assert comparable(short, "deal") == comparable(full, "deal")

    def teardown(self) -> None:
        if self.table is None:
            return
        hypothesis_event(f"hands played: {min(self.hands_played, 3)}+, pools won: {min(self.pools_won, 2)}+")
        again = Table(self.seats, {"pool_target_tricks": self.target}, table_id=self.table_id)
        for seat, action in self.commands:
            again.act(seat, action)
        assert [event.to_json() for event in again.events] == [event.to_json() for event in self.table.events]


class TwoPlayers(ChaKauTszMachine):
    seats = 2


class ThreePlayers(ChaKauTszMachine):
    seats = 3


class FourPlayers(ChaKauTszMachine):
    seats = 4


SETTINGS = settings(max_examples=15, stateful_step_count=200, deadline=None)
TestTwoPlayers = TwoPlayers.TestCase
TestTwoPlayers.settings = SETTINGS
TestThreePlayers = ThreePlayers.TestCase
TestThreePlayers.settings = SETTINGS
TestFourPlayers = FourPlayers.TestCase
TestFourPlayers.settings = SETTINGS
