"""Players who stall or leave (house rules, docs/house-rules.md): the turn clock, leaving and joining between
deals, and abandoned tables, in the pure domain. Time enters only as the `occurred_at` of events and the `now`
of the clock's commands, so every test sets both."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain import table as t
from domain.cards import CHERKI_TYPES
from domain.cha_kau_tsz.scoring import POOL_PAID, pool_refunds
from domain.errors import ConflictError, OptionError
from domain.events import Event
from domain.games import game_named
from domain.ledger import POOL_ACCOUNT, account_player, net_by_account
from tests.play import random_action

T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
CASES = [("cholek-tiga", 2), ("cholek-tiga", 3), ("cha-kau-tsz", 2), ("cha-kau-tsz", 3), ("cha-kau-tsz", 4)]


class Seeds(dict[int, bytes]):
    def __missing__(self, deal_no: int) -> bytes:
        seed = hashlib.sha256(f"absent-players/{deal_no}".encode()).digest()
        self[deal_no] = seed
        return seed


class Timed:
    """A table driven through the domain with a clock of its own: every decision is appended `advance` seconds
    after the one before, and its events carry that time, as the log would give them."""

    def __init__(self, game: str, seats: int, turn_seconds: int | None = 60, **options: Any) -> None:
        self.seeds = Seeds()
        self.now = T0
        if turn_seconds is not None:
            options["turn_seconds"] = turn_seconds
        opening = t.open_table("table-1", game, seats, options, self.seeds[1])
        self.stream = [Event(opening.type, opening.data, self.now)]
        self.state = t.fold(None, self.stream)
        self.rng = random.Random(f"{game}-{seats}")

    def do(self, command: t.Command, advance: float = 1.0) -> list[Event]:
        self.now += timedelta(seconds=advance)
        events, after = t.decide_and_evolve(self.state, command, self.seeds)
        self.state = t.stamped(after, self.now)
        self.stream += [Event(e.type, e.data, self.now) for e in events]
        # What the log would give back folds to the very state the writer keeps (clock included).
        assert t.fold(None, self.stream) == self.state
        return events

    def sit_all(self, prefix: str = "p") -> None:
        for seat in range(self.state.seats):
            if self.state.players[seat] is None:
                self.do(t.Sit(f"{prefix}{seat}", seat, f"seed-{seat}"))

    def random_action(self, seat: int) -> dict[str, Any]:
        return random_action(self.state, seat, self.rng)

    def expire(self) -> list[Event]:
        """The clock at the deadline, exactly: the earliest moment it may act."""
        deadline = t.turn_deadline(self.state)
        assert deadline is not None
        self.now = deadline
        return self.do(t.Expire(deadline), advance=0)

    def play_deal(self, absent: frozenset[int] = frozenset()) -> list[Event]:
        """Until the deal ends: `absent` seats never act, the clock acts for them."""
        start = len(self.stream)
        while (seat := t.to_act(self.state)) is not None:
            if seat in absent:
                self.expire()
            else:
                self.do(t.Act(seat, self.random_action(seat)))
        return self.stream[start:]


def transfers_by_player(stream: list[Event]) -> dict[str, int]:
    """Every transfer of the stream, by the player each account names (seat accounts: the deal's players)."""
    players: tuple[str | None, ...] = ()
    totals: dict[str, int] = {}
    for event in stream:
        if event.type == t.DEAL_STARTED:
            players = tuple(event.data["players"])
        for account, amount in net_by_account(t.deal_transfers(event)).items():
            who = POOL_ACCOUNT if account == POOL_ACCOUNT else account_player(account, players)
            assert who is not None, f"{account} names nobody at {event.type}"
            totals[who] = totals.get(who, 0) + amount
    return totals


# Options ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("game", ["cholek-tiga", "cha-kau-tsz"])
def test_turn_seconds_is_a_table_option_from_5_to_3600_or_0_default_60(game: str) -> None:
    assert t.open_table("x", game, 2, {}, bytes(32)).data["options"]["turn_seconds"] == 60
    for good in (0, 5, 3600):
        assert t.open_table("x", game, 2, {"turn_seconds": good}, bytes(32)).data["options"]["turn_seconds"] == good
    for bad in (4, 3601, -1, True, "60", 60.0, None):
        with pytest.raises(OptionError, match="turn_seconds must be 0"):
            t.open_table("x", game, 2, {"turn_seconds": bad}, bytes(32))
    with pytest.raises(OptionError) as unknown:
        t.open_table("x", game, 2, {"turn_seconds": 30, "no_such_option": 1}, bytes(32))
    assert unknown.value.code == "unknown_option"


def test_a_table_opened_before_the_clock_has_none() -> None:
    table = Timed("cholek-tiga", 2)
    opening = table.stream[0]
    options = {k: v for k, v in opening.data["options"].items() if k != "turn_seconds"}
    old = t.evolve(None, Event(opening.type, {**opening.data, "options": options}, T0))
    for seat, player in enumerate(("a", "b")):
        old = t.stamped(t.fold(old, t.decide(old, t.Sit(player, seat), table.seeds)), T0)
    assert old.status == t.PLAYING and t.turn_seconds(old) == 0
    assert t.turn_deadline(old) is None and t.public_view(old)["turn_deadline"] is None
    with pytest.raises(ConflictError) as refused:
        t.decide(old, t.Expire(T0 + timedelta(days=9)), table.seeds)
    assert refused.value.code == "no_clock"


# The turn clock ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("game", "seats"), CASES)
def test_the_deadline_runs_from_the_event_that_started_the_turn(game: str, seats: int) -> None:
    table = Timed(game, seats, turn_seconds=30)
    assert t.turn_deadline(table.state) is None  # open: nobody to act
    table.sit_all()
    started = table.now
    assert t.turn_deadline(table.state) == started + timedelta(seconds=30)
    assert t.public_view(table.state)["turn_deadline"] == f"2026-12-01T12:00:{seats + 30:02d}.000000Z"
    with pytest.raises(ConflictError) as early:
        t.decide(table.state, t.Expire(started + timedelta(seconds=29.999)), table.seeds)
    assert early.value.code == "clock_running"
    seat = t.to_act(table.state)
    assert seat is not None
    table.do(t.Act(seat, table.random_action(seat)), advance=7)
    assert t.turn_deadline(table.state) == table.now + timedelta(seconds=30)  # the next decision's own clock
    no_clock = Timed(game, seats, turn_seconds=0)
    no_clock.sit_all()
    assert t.turn_deadline(no_clock.state) is None


def test_cholek_tiga_times_out_with_a_pass_or_the_first_card_in_canonical_order() -> None:
    order = {code: index for index, code in enumerate(CHERKI_TYPES)}
    table = Timed("cholek-tiga", 2)
    table.sit_all()
    seen = {"pass": 0, "discard": 0}
    while (seat := t.to_act(table.state)) is not None and min(seen.values()) < 3:
        deal = table.state.deal
        if seen["pass" if deal.pending is not None else "discard"] >= 3:
            table.do(t.Act(seat, table.random_action(seat)))
            continue
        hand, pending = deal.hands[seat], deal.pending
        events = table.expire()
        assert events[0].data["timed_out"] is True and events[0].data["seat"] == seat
        assert sum(1 for e in events if e.data.get("timed_out")) == 1  # only the seat's own action is marked
        if pending is not None:
            assert events[0] == Event("turn_up_passed", {"seat": seat, "card": pending, "timed_out": True})
            seen["pass"] += 1
        else:
            card = min(hand, key=order.__getitem__)
            assert events[0] == Event(
                "card_discarded", {"seat": seat, "card": card, "capture": None, "timed_out": True}
            )
            seen["discard"] += 1
    assert min(seen.values()) >= 3


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_cha_kau_tsz_times_out_with_a_single_lead_or_the_first_k_cards(seats: int) -> None:
    table = Timed("cha-kau-tsz", seats)
    table.sit_all()
    leads = follows = 0
    while (seat := t.to_act(table.state)) is not None:
        hand = table.state.deal
        held = list(hand.hands[seat])
        assert held == sorted(held, key=game_named("cha-kau-tsz").canonical_deck.index)
        count = 1 if hand.on_lead else len(hand.trick[0].cards)
        events = table.expire()
        assert events[0].type == "cards_played" and events[0].data["timed_out"] is True
        assert events[0].data["cards"] == held[:count]
        leads, follows = leads + hand.on_lead, follows + (not hand.on_lead)
        if leads > 3 and follows > 3:
            break
    assert leads > 3 and follows > 3


@pytest.mark.parametrize(("game", "seats"), CASES)
@pytest.mark.parametrize("absent_seat", [0, 1])
def test_whole_deals_with_one_seat_absent_settle_zero_sum(game: str, seats: int, absent_seat: int) -> None:
    table = Timed(game, seats)
    table.sit_all()
    for deal_no in (1, 2):
        deal = table.play_deal(absent=frozenset({absent_seat}))
        ended = deal[-1]
        assert ended.type == t.DEAL_ENDED and table.state.status == t.BETWEEN_DEALS
        assert sum(net_by_account(t.deal_transfers(ended)).values()) == 0
        # Zero-sum: what the seats gained and lost is what the pool lost and gained (no pool: zero).
        pool_after = int(ended.data["carry"].get("pool", 0))
        assert sum(ended.data["result"]["net"]) + pool_after == deal_pool_before(table.stream, deal_no)
        timed = [e for e in deal if e.data.get("timed_out")]
        assert timed and {e.data["seat"] for e in timed} == {absent_seat}
        # Exactly one action per decision of the absent seat, all by the clock.
        decisions = [e for e in deal if e.data.get("seat") == absent_seat and e.type in ACTION_EVENTS]
        assert decisions == timed
        if deal_no == 1:
            for seat in range(seats):
                table.do(t.Act(seat, {"type": "ready"}))
    assert sum(transfers_by_player(table.stream).values()) == 0


ACTION_EVENTS = frozenset({"card_discarded", "turn_up_passed", "turn_up_captured", "cards_played"})


def deal_pool_before(stream: list[Event], deal_no: int) -> int:
    """The Cha Kau Tsz pool before deal `deal_no` (0 before the first)."""
    ended = [e for e in stream if e.type == t.DEAL_ENDED and e.data["deal_no"] == deal_no - 1]
    return int(ended[0].data["carry"].get("pool", 0)) if ended else 0


def test_a_timeout_and_a_player_never_both_act_on_one_turn() -> None:
    table = Timed("cholek-tiga", 2)
    table.sit_all()
    at_turn = table.state
    seat = t.to_act(at_turn)
    assert seat is not None
    deadline = t.turn_deadline(at_turn)
    assert deadline is not None
    timed_out, after_clock = t.decide_and_evolve(at_turn, t.Expire(deadline), table.seeds)
    assert timed_out[0].data["timed_out"] is True
    after_clock = t.stamped(after_clock, deadline)
    # The clock's decision moved the turn on: the same turn cannot time out twice, and a late player acts on
    # the next turn's state (through the store this is a version conflict: both expect at_turn.version).
    assert after_clock.version > at_turn.version
    if t.to_act(after_clock) is not None:
        with pytest.raises(ConflictError):
            t.decide(after_clock, t.Expire(deadline), table.seeds)


# Between deals: readiness, leaving, joining --------------------------------------------------------------------


@pytest.mark.parametrize(("game", "seats"), CASES)
def test_a_seat_not_ready_within_five_turns_is_unseated_and_the_next_deal_waits_for_a_new_player(
    game: str, seats: int
) -> None:
    table = Timed(game, seats, turn_seconds=10)
    table.sit_all()
    table.play_deal()
    ended_at = table.now
    assert t.turn_deadline(table.state) == ended_at + timedelta(seconds=50)
    for seat in range(1, seats):
        table.do(t.Act(seat, {"type": "ready"}), advance=9)
    assert t.turn_deadline(table.state) == ended_at + timedelta(seconds=50)  # readiness does not move it
    with pytest.raises(ConflictError):
        t.decide(table.state, t.Expire(ended_at + timedelta(seconds=49)), table.seeds)
    unseated = table.expire()
    assert unseated == [Event(t.PLAYER_LEFT, {"seat": 0, "player_id": "p0", "deal_no": 1, "timed_out": True})]
    assert table.state.players[0] is None and table.state.status == t.BETWEEN_DEALS
    assert t.turn_deadline(table.state) is None and t.vacant_since(table.state) is None
    started = table.do(t.Sit("newcomer", client_seed="fresh"))
    assert [e.type for e in started[:2]] == [t.PLAYER_SEATED, t.DEAL_STARTED]
    assert started[1].data["players"] == ["newcomer", *(f"p{s}" for s in range(1, seats))]
    assert started[1].data["client_seeds"][0] == "fresh"
    assert table.state.status == t.PLAYING and table.state.deal_no == 2


def test_leaving_is_refused_during_a_deal_and_allowed_before_and_between_deals() -> None:
    table = Timed("cha-kau-tsz", 3)
    table.do(t.Sit("a"))
    assert t.legal_actions(table.state, 0) == [{"type": "leave"}]
    left = table.do(t.Act(0, {"type": "leave"}))
    assert left == [Event(t.PLAYER_LEFT, {"seat": 0, "player_id": "a", "deal_no": 0})]
    assert table.state.status == t.OPEN and table.state.players == (None, None, None)
    table.sit_all()
    assert table.state.status == t.PLAYING
    seat = t.to_act(table.state)
    assert seat is not None
    with pytest.raises(ConflictError) as refused:
        t.decide(table.state, t.Act(seat, {"type": "leave"}), table.seeds)
    assert refused.value.code == "deal_in_progress"
    table.play_deal()
    table.do(t.Act(1, {"type": "ready"}))
    assert t.legal_actions(table.state, 1) == [{"type": "leave"}]
    table.do(t.Act(1, {"type": "leave"}))  # a ready player may leave too: the seat is free, not ready
    assert table.state.ready == frozenset() and table.state.players[1] is None
    with pytest.raises(ConflictError) as full:
        t.decide(table.state, t.Sit("p0"), table.seeds)
    assert full.value.code == "already_seated"
    table.do(t.Act(0, {"type": "ready"}))
    table.do(t.Act(2, {"type": "ready"}))
    assert table.state.status == t.BETWEEN_DEALS  # every present seat is ready, but one is empty
    started = table.do(t.Sit("b", client_seed="b-seed"))
    assert started[1].type == t.DEAL_STARTED and started[1].data["players"] == ["p0", "b", "p2"]
    with pytest.raises(ConflictError) as taken:
        t.decide(table.state, t.Sit("c"), table.seeds)
    assert taken.value.code == "table_full"


@pytest.mark.parametrize(("game", "seats"), [("cholek-tiga", 3), ("cha-kau-tsz", 4)])
def test_the_loader_shortcut_folds_seat_changes_as_the_whole_history_does(game: str, seats: int) -> None:
    """Opening and deal-0 seatings, then from the deal_ended before the latest deal: seats that changed hands
    earlier are set right by the latest deal_started."""
    table = Timed(game, seats)
    table.sit_all()
    for deal_no in range(1, 5):
        table.play_deal(absent=frozenset({deal_no % seats}))
        leaver = deal_no % seats
        table.do(t.Act(leaver, {"type": "leave"}))
        for seat in range(seats):
            if seat != leaver:
                table.do(t.Act(seat, {"type": "ready"}))
        table.do(t.Sit(f"guest-{deal_no}", leaver))
        stream = table.stream
        head = [e for e in stream if e.type in (t.TABLE_OPENED, t.PLAYER_SEATED, t.PLAYER_LEFT)][: 1 + seats]
        starts = [i for i, e in enumerate(stream) if e.type == t.DEAL_STARTED]
        previous_end = max(i for i, e in enumerate(stream[: starts[-1]]) if e.type == t.DEAL_ENDED)
        short = t.fold(None, head + stream[previous_end:])
        assert replace(short, version=table.state.version) == table.state
        assert t.public_view(replace(short, version=table.state.version)) == t.public_view(table.state)


# Abandoned tables --------------------------------------------------------------------------------------------


def test_an_empty_table_is_closed_once_abandoned_for_long_enough() -> None:
    table = Timed("cholek-tiga", 2)
    after = timedelta(hours=24)
    assert t.vacant_since(table.state) == T0  # nobody ever sat
    table.sit_all()
    assert t.vacant_since(table.state) is None
    with pytest.raises(ConflictError) as seated:
        t.decide(table.state, t.Abandon(T0 + timedelta(days=2), after), table.seeds)
    assert seated.value.code == "not_abandoned"
    table.play_deal()
    table.do(t.Act(0, {"type": "leave"}))
    table.do(t.Act(1, {"type": "leave"}), advance=30)
    emptied = table.now
    assert t.vacant_since(table.state) == emptied and t.turn_deadline(table.state) is None
    with pytest.raises(ConflictError):
        t.decide(table.state, t.Abandon(emptied + after - timedelta(microseconds=1), after), table.seeds)
    closed = table.do(t.Abandon(emptied + after, after), advance=after.total_seconds())
    assert closed == [Event(t.TABLE_CLOSED, {"deal_no": 1, "reason": "abandoned"})]  # Cholek Tiga leaves nothing
    assert table.state.status == t.CLOSED and t.vacant_since(table.state) is None
    with pytest.raises(ConflictError) as gone:
        t.decide(table.state, t.Sit("late"), table.seeds)
    assert gone.value.code == "table_closed"


def play_until_pool(table: Timed, minimum: int = 1) -> None:
    """Deals (everyone ready in between) until the Cha Kau Tsz pool holds at least `minimum` points."""
    for _ in range(30):
        table.play_deal()
        if int(table.state.carry["pool"]) >= minimum:
            return
        for seat in range(table.state.seats):
            table.do(t.Act(seat, {"type": "ready"}))
    raise AssertionError("the pool stayed empty")


def test_an_abandoned_cha_kau_tsz_pool_goes_back_to_whoever_paid_it_even_after_they_left() -> None:
    table = Timed("cha-kau-tsz", 3)
    table.sit_all()
    play_until_pool(table)
    # Seat 1 changes hands; the pool game goes on, so both of its players may have paid into the pool.
    table.do(t.Act(1, {"type": "leave"}))
    table.do(t.Act(0, {"type": "ready"}))
    table.do(t.Act(2, {"type": "ready"}))
    table.do(t.Sit("late-comer", 1))
    table.play_deal()
    if int(table.state.carry["pool"]) == 0:  # won in that very hand: play on to a pool again
        for seat in range(3):
            table.do(t.Act(seat, {"type": "ready"}))
        play_until_pool(table)
    carry = table.state.carry
    paid = carry[POOL_PAID]
    assert sum(int(e["points"]) for e in paid) == int(carry["pool"]) > 0
    for seat in range(3):
        table.do(t.Act(seat, {"type": "leave"}))
    closed = table.do(t.Abandon(table.now + timedelta(days=1), timedelta(days=1)), advance=86400)[0]
    assert closed.data["reason"] == "abandoned" and closed.data["unit"] == "points"
    refunds = net_by_account(t.deal_transfers(closed))
    expected: dict[str, int] = {}
    for entry in paid:
        expected[f"player:{entry['player_id']}"] = expected.get(f"player:{entry['player_id']}", 0) + entry["points"]
    assert refunds == {POOL_ACCOUNT: -int(carry["pool"]), **expected}  # each gets exactly what they paid
    by_player = transfers_by_player(table.stream)
    assert by_player.get(POOL_ACCOUNT, 0) == 0 and sum(by_player.values()) == 0  # every point back with a player


@given(
    pool=st.integers(min_value=1, max_value=10_000),
    points=st.lists(st.integers(min_value=1, max_value=500), min_size=1, max_size=6),
)
@settings(max_examples=200, deadline=None)
def test_pool_refunds_are_pro_rata_with_the_remainder_to_the_lowest_seat(pool: int, points: list[int]) -> None:
    paid: list[dict[str, Any]] = [
        {"seat": (len(points) - n) % 4, "player_id": f"x{n}", "points": p} for n, p in enumerate(points)
    ]
    refunds = net_by_account(pool_refunds({"pool": pool, POOL_PAID: paid}))
    assert refunds.pop(POOL_ACCOUNT) == -pool
    assert sum(refunds.values()) == pool
    total = sum(points)
    lowest = min(paid, key=lambda e: int(e["seat"]))  # the first of the lowest seat
    for entry in paid:
        share = pool * int(entry["points"]) // total
        got = refunds.get(f"player:{entry['player_id']}", 0)
        assert got == share + (pool - sum(pool * p // total for p in points) if entry is lowest else 0)


def test_a_pool_whose_payers_are_unknown_stays_in_the_pool() -> None:
    assert pool_refunds({"pool": 12}) == []  # a carry from before the pool's payers were kept
    assert pool_refunds({"pool": 0, POOL_PAID: [{"seat": 0, "player_id": "a", "points": 3}]}) == []


def test_the_pool_payers_are_forgotten_when_the_pool_is_won() -> None:
    table = Timed("cha-kau-tsz", 2)
    table.sit_all()
    for _ in range(40):
        table.play_deal()
        ended = table.stream[-1]
        carry: Mapping[str, Any] = ended.data["carry"]
        assert sum(int(e["points"]) for e in carry[POOL_PAID]) == int(carry["pool"])
        if ended.data["result"]["pool_winner"] is not None:
            assert carry[POOL_PAID] == [] and carry["pool"] == 0
            return
        for seat in range(2):
            table.do(t.Act(seat, {"type": "ready"}))
    pytest.skip("no pool was won in 40 hands")
