"""Property tests: random complete games with 2 and 3 players through domain.table, checked at every step."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from domain.cards import CHERKI_DECK
from domain.events import Event
from domain.ledger import Transfer, net_by_account
from domain.redaction import AUDITOR, PUBLIC, redact
from domain.table import PLAYING, Act, TableState, decide, evolve, legal_actions, public_view, seat_view, to_act

from .support import current_deck, oracle_rank, oracle_score, seated_table, seeds_for

GAMES_PER_RUN = 3
FULL_DECK = Counter(CHERKI_DECK)


class CholekTigaTable(RuleBasedStateMachine):
    state: TableState
    events: list[Event]

    @initialize(
        players=st.sampled_from([2, 3]),
        honours_rank=st.sampled_from(["own", "ace"]),
        in_play_bonuses=st.booleans(),
        point_value_cents=st.integers(min_value=0, max_value=37),
        salt=st.integers(min_value=0, max_value=255),
    )
    def open_table(
        self, players: int, honours_rank: str, in_play_bonuses: bool, point_value_cents: int, salt: int
    ) -> None:
        self.options: dict[str, Any] = {
            "honours_rank": honours_rank,
            "in_play_bonuses": in_play_bonuses,
            "point_value_cents": point_value_cents,
        }
        self.seeds = seeds_for(GAMES_PER_RUN, salt)
        self.decks: dict[int, tuple[str, ...]] = {}
        self.deal_transfers: list[Transfer] = []
        self.games_ended = 0
        _, events = seated_table(players, self.options, seeds=self.seeds, table_id=f"prop-{salt}")
        self.state = evolve(None, events[0])
        self.events = events[:1]
        self._apply(events[1:])

    # Playing ------------------------------------------------------------------

    @precondition(lambda self: to_act(self.state) is not None)
    @rule(choice=st.integers(min_value=0, max_value=1_000))
    def take_a_legal_action(self, choice: int) -> None:
        seat = to_act(self.state)
        assert seat is not None
        actions = legal_actions(self.state, seat)
        assert actions, "the seat to act always has a legal action"
        for other in range(self.state.seats):
            if other != seat:
                assert legal_actions(self.state, other) == []
        self._apply(decide(self.state, Act(seat, actions[choice % len(actions)]), self.seeds))

    @precondition(lambda self: to_act(self.state) is None and self.games_ended < GAMES_PER_RUN)
    @rule()
    def start_the_next_game(self) -> None:
        for seat in range(self.state.seats):
            self._apply(decide(self.state, Act(seat, {"type": "ready"}), self.seeds))

    def _apply(self, new: list[Event]) -> None:
        for event in new:
            before = self.state
            if event.type == "deal_started":
                self.deal_transfers = []
            self._check_event(before, event)
            self.state = evolve(before, event)
            self.events.append(event)
            if event.type == "deal_ended":
                self._check_deal_end(before, event)

    # Per-event checks -----------------------------------------------------------

    def _check_event(self, before: TableState, event: Event) -> None:
        data = event.data
        deal = before.deal
        ranks = self.options["honours_rank"]
        if event.type in ("card_discarded", "turn_up_captured") and data["capture"] is not None:
            card, pair = data["card"], data["capture"]
            if event.type == "card_discarded":
                assert card in deal.hands[data["seat"]]
            else:
                assert card == deal.pending
            assert pair == sorted(pair)
            assert not Counter(pair) - Counter(deal.pool), f"{pair} not in pool {deal.pool}"
            assert {oracle_rank(c, ranks) for c in (card, *pair)} == {oracle_rank(card, ranks)}
        if event.type == "card_turned_up":
            pool = list(deal.pool)
            same = sum(1 for c in pool if oracle_rank(c, ranks) == oracle_rank(data["card"], ranks))
            assert data["can_capture"] == (same >= 2)
            assert deal.stock_remaining > 0
        self.deal_transfers += [Transfer.from_json(raw) for raw in data.get("transfers", ())]
        if "private" in data and before.status == PLAYING:
            holder = data["seat"]
            for viewer in range(before.seats):
                assert ("private" in redact(event, viewer, deal_ended=False).data) == (viewer == holder)
            assert "private" not in redact(event, PUBLIC, deal_ended=False).data
            assert "private" not in redact(event, AUDITOR, deal_ended=False).data
        if "deck_indexes" in data:
            deck = self._deck(before)
            cards = data.get("cards") or data["private"]["cards"]
            assert [deck[i] for i in data["deck_indexes"]] == cards

    def _check_deal_end(self, before: TableState, event: Event) -> None:
        self.games_ended += 1
        deal = before.deal
        result = event.data["result"]
        assert result["scores"] == [oracle_score(pile) for pile in deal.piles]
        assert result["leftover_pool"] == list(deal.pool)
        assert result["piles"] == [list(pile) for pile in deal.piles]
        assert sum(net_by_account(self.deal_transfers).values()) == 0
        net = net_by_account(self.deal_transfers)
        assert result["net"] == [net.get(f"seat:{seat}", 0) for seat in range(before.seats)]
        order = [(deal.first_seat + k) % before.seats for k in range(before.seats)]
        assert event.data["carry"] == {"first_seat": min(order, key=lambda s: result["scores"][s])}

    def _deck(self, state: TableState) -> tuple[str, ...]:
        if state.deal_no not in self.decks:
            self.decks[state.deal_no] = current_deck(state, self.seeds)
        return self.decks[state.deal_no]

    # Invariants after every step -----------------------------------------------------

    @invariant()
    def every_card_is_accounted_for_exactly_once(self) -> None:
        deal = self.state.deal
        if deal is None:
            return
        deck = self._deck(self.state)
        assert Counter(deck) == FULL_DECK
        held = Counter(deck[deal.taken :]) + Counter(deal.pool)
        for seat in range(deal.players):
            held += Counter(deal.hands[seat]) + Counter(deal.piles[seat])
        if deal.pending is not None:
            held[deal.pending] += 1
        assert held == FULL_DECK

    @invariant()
    def no_view_shows_another_seats_hand(self) -> None:
        state = self.state
        if state.deal is None:
            return
        public = public_view(state)
        assert "hand" not in public and "hands" not in public
        json.dumps(public)
        assert public["hand_sizes"] == [len(hand) for hand in state.deal.hands]
        assert public["stock_remaining"] == 120 - state.deal.taken
        for seat in range(state.seats):
            view = seat_view(state, seat)
            json.dumps(view)
            assert view["hand"] == sorted(state.deal.hands[seat])
            shared = {k: v for k, v in view.items() if k not in ("seat", "hand", "legal_actions")}
            assert shared == public  # nothing seat-specific besides the seat's own hand and actions

    @invariant()
    def turn_order_is_consistent(self) -> None:
        deal = self.state.deal
        if deal is None or self.state.status != PLAYING:
            return
        assert (deal.to_act is not None and deal.hands[deal.to_act]) or deal.pending is not None


CholekTigaTable.TestCase.settings = settings(
    max_examples=30,
    stateful_step_count=250,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
TestCholekTigaTable = CholekTigaTable.TestCase
