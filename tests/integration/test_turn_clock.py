"""The turn clock, leaving and abandoned tables through the application service, the projections and the audit,
against the real database. The clock takes `now` as a parameter: the tests move time, never wait for it.

The state machine interleaves players' actions (chosen at one version, posted later with If-Match, as a slow
client would), clock expiries (early, late, twice, two clocks racing) and restarts (a fresh `CardLedger` and
`Clock`, as after a crash), and checks from the log that each turn got exactly one action, a player's or the
clock's.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)
from psycopg_pool import ConnectionPool

from domain import table as tables
from domain.ledger import POOL_ACCOUNT
from infra.config import abandon_after, parse_duration
from infra.event_store import EventStore, RecordedEvent
from infra.storage.postgres import PostgresStorage
from services.app.audit.service import Audit, verify_tables
from services.app.callers import Caller
from services.app.errors import Conflict, Forbidden, PreconditionFailed
from services.app.ledger import CardLedger
from services.cli.verify_remote import expected_ledger_lines
from services.clock import Clock
from tests.integration.test_audit_support import project
from tests.play import random_action, register

Pool = ConnectionPool[Any]
CASES = [("cholek-tiga", 2), ("cholek-tiga", 3), ("cha-kau-tsz", 2), ("cha-kau-tsz", 3), ("cha-kau-tsz", 4)]
ACTION_EVENTS = frozenset({"card_discarded", "turn_up_passed", "turn_up_captured", "cards_played"})
ABANDON = timedelta(hours=24)


def key() -> str:
    return uuid.uuid4().hex


def groups(events: list[RecordedEvent]) -> Iterator[list[RecordedEvent]]:
    """The table's appends: events written by one transaction."""
    group: list[RecordedEvent] = []
    for event in events:
        if group and event.tx_id != group[0].tx_id:
            yield group
            group = []
        group.append(event)
    if group:
        yield group


@dataclass
class Table:
    """A table played through one CardLedger, its players by id, and a clock on the same ledger."""

    ledger: CardLedger
    table_id: str
    callers: dict[str, Caller]
    spare: list[Caller] = field(default_factory=list)

    def state(self) -> tables.TableState:
        return self.ledger.load_state(self.table_id)

    def caller_at(self, seat: int) -> Caller:
        player = self.state().players[seat]
        assert player is not None
        return self.callers[player]

    def act(self, seat: int, action: dict[str, Any], if_match: int | None = None) -> dict[str, Any]:
        return self.ledger.act(self.caller_at(seat), self.table_id, action, key(), if_match)

    def sit(self, seat: int) -> None:
        caller = self.spare.pop() if self.spare else register(self.ledger, f"late-{uuid.uuid4().hex[:8]}")
        self.callers[str(caller.player_id)] = caller
        self.ledger.sit(caller, self.table_id, seat, f"seed-{caller.name}")


def open_table(
    ledger: CardLedger, game: str, seats: int, turn_seconds: int = 5, spare: int = 0, **options: Any
) -> Table:
    players = [register(ledger, f"{game}-{n}-{uuid.uuid4().hex[:6]}") for n in range(seats + spare)]
    view = ledger.open_table(players[0], game, seats, {"turn_seconds": turn_seconds, **options})
    table = Table(ledger, str(view["id"]), {str(p.player_id): p for p in players[:seats]}, players[seats:])
    for seat, caller in enumerate(players[:seats]):
        ledger.sit(caller, table.table_id, seat, f"seed-{seat}")
    return table


def play_deal(table: Table, clock: Clock, rng: random.Random, absent: frozenset[int] = frozenset()) -> None:
    """Until the deal ends; the clock acts (at the deadline, injected) for the `absent` seats."""
    while (state := table.state()).status == tables.PLAYING:
        seat = tables.to_act(state)
        assert seat is not None
        if seat in absent:
            deadline = tables.turn_deadline(state)
            assert deadline is not None
            assert clock.tick(table.table_id, deadline - timedelta(milliseconds=1)) is None  # not yet
            written = clock.tick(table.table_id, deadline)
            assert written is not None and written.kind == "timed_out" and written.seats == (seat,)
        else:
            table.act(seat, random_action(state, seat, rng))


# The state machine -------------------------------------------------------------------------------------------


def test_each_turn_gets_exactly_one_action_whatever_the_interleaving(pool: Pool, store: EventStore) -> None:
    class ClockMachine(RuleBasedStateMachine):
        def __init__(self) -> None:
            super().__init__()
            self.ledger = CardLedger(PostgresStorage(pool, store), None)
            self.clock = Clock(self.ledger, ABANDON)
            self.rng = random.Random(0)
            self.turns: dict[int, str] = {}  # version at which a decision was due -> who took it
            # (version seen, the player to act then, action): the player is taken when choosing, as a client would
            # hold its own token, since the clock may unseat them before they post
            self.chosen: tuple[int, Caller | None, dict[str, Any]] | None = None

        @initialize(case=st.sampled_from(CASES), seed=st.integers(0, 2**16))
        def open(self, case: tuple[str, int], seed: int) -> None:
            self.rng = random.Random(seed)
            self.table = open_table(self.ledger, *case, spare=12)

        def state(self) -> tables.TableState:
            return self.ledger.load_state(self.table.table_id)

        # Which rules and draws come next must not depend on the table (whose deals come from random seeds):
        # hypothesis replays an example and requires the same draws. So every rule draws the same, whatever
        # the state, and a choice is made (possibly of nothing) whenever one is asked for.
        @rule()
        def a_player_chooses(self) -> None:
            state = self.state()
            seat = tables.to_act(state)
            if seat is None:
                self.chosen = (state.version, None, {})
            else:
                self.chosen = (state.version, self.table.caller_at(seat), random_action(state, seat, self.rng))

        @precondition(lambda self: self.chosen is not None)
        @rule()
        def the_player_posts_what_they_chose(self) -> None:
            assert self.chosen is not None
            version, player, action = self.chosen
            self.chosen = None
            if player is None:
                return
            try:
                self.ledger.act(player, self.table.table_id, action, key(), version)
            except PreconditionFailed:
                assert self.state().version != version  # the clock (or a deal's end) took that turn
                return
            assert version not in self.turns
            self.turns[version] = "player"

        @rule(count=st.integers(1, 40))
        def players_play_on_at_once(self, count: int) -> None:
            for _ in range(count):
                state = self.state()
                seat = tables.to_act(state)
                if seat is None:
                    return
                self.table.act(seat, random_action(state, seat, self.rng), if_match=state.version)
                self.turns[state.version] = "player"

        @rule(late=st.floats(0, 3600), early=st.booleans())
        def the_clock_ticks(self, late: float, early: bool) -> None:
            state = self.state()
            deadline = tables.turn_deadline(state)
            if deadline is None:  # nothing is due (an empty table only after CARDLEDGER_ABANDON_AFTER)
                assert self.clock.tick(self.table.table_id, datetime.now(UTC) + ABANDON / 2) is None
                vacant = tables.vacant_since(state)
                if vacant is not None and early:
                    closed = self.clock.tick(self.table.table_id, vacant + ABANDON + timedelta(seconds=late))
                    assert closed is not None and closed.kind == "closed"
                    assert self.state().status == tables.CLOSED
                return
            if early:
                now = deadline - timedelta(seconds=late % 5 + 0.001)
                assert self.clock.tick(self.table.table_id, now) is None
                return
            now = deadline + timedelta(seconds=late)
            written = self.clock.tick(self.table.table_id, now)
            assert written is not None and written.expected_version == state.version
            assert written.kind == ("timed_out" if state.status == tables.PLAYING else "unseated")
            assert state.version not in self.turns
            self.turns[state.version] = "clock"
            # The same clock again, at the same moment: that turn is taken (the next one may be due already).
            again = self.clock.tick(self.table.table_id, now)
            if again is not None:
                assert again.expected_version > state.version and again.expected_version not in self.turns
                self.turns[again.expected_version] = "clock"

        @rule()
        def two_clocks_race_for_one_turn(self) -> None:
            state = self.state()
            deadline = tables.turn_deadline(state)
            if deadline is None:
                return
            other = Clock(CardLedger(PostgresStorage(pool, store), None), ABANDON)
            inner: list[Any] = []
            first = Clock(self.ledger, ABANDON, pause=lambda: inner.append(other.tick(self.table.table_id, deadline)))
            outer = first.tick(self.table.table_id, deadline)
            # The second clock acted while the first was between its decision and its append; the first lost.
            assert outer is None and inner[0] is not None and inner[0].expected_version == state.version
            assert state.version not in self.turns
            self.turns[state.version] = "clock"

        @rule()
        def every_process_restarts(self) -> None:
            self.ledger = CardLedger(PostgresStorage(pool, store), None)
            self.clock = Clock(self.ledger, ABANDON)
            self.table.ledger = self.ledger

        @rule(pick=st.integers(0, 11), stay=st.integers(0, 3))
        def between_deals_players_come_and_go(self, pick: int, stay: int) -> None:
            state = self.state()
            if state.status != tables.BETWEEN_DEALS:
                return
            empty = [seat for seat, player in enumerate(state.players) if player is None]
            if empty:
                self.table.sit(empty[pick % len(empty)])
                return
            unready = tables.seats_not_ready(state)
            seat = unready[pick % len(unready)]
            if stay:
                self.table.act(seat, {"type": "ready"})
            else:
                self.table.act(seat, {"type": "leave"})

        @invariant()
        def the_log_shows_one_action_per_turn(self) -> None:
            events = store.read_stream(self.table.table_id)
            taken: dict[int, str] = {}
            for group in groups(events):
                first = group[0]
                clock = first.metadata.get("actor") == tables.CLOCK_ACTOR
                if first.type in ACTION_EVENTS or (clock and first.type == tables.PLAYER_LEFT):
                    turn = first.version - 1
                    assert turn not in taken
                    taken[turn] = "clock" if clock else "player"
                    assert bool(first.data.get(tables.TIMED_OUT)) is clock
                    marked = [e for e in group if e.data.get(tables.TIMED_OUT)]
                    if not clock:
                        assert marked == []
                    elif first.type in ACTION_EVENTS:
                        assert marked == [first]  # the seat's action; what follows from it is not
                    else:
                        assert marked == group  # every seat not ready, unseated at once
            assert taken == self.turns

        def teardown(self) -> None:
            if not hasattr(self, "table"):
                return
            events = store.read_stream(self.table.table_id)
            for ended in (e for e in events if e.type == tables.DEAL_ENDED):
                transfers = tables.deal_transfers(tables.Event(ended.type, ended.data))
                assert sum(amount for t in transfers for _, amount in t.entries()) == 0

    run_state_machine_as_test(
        ClockMachine,
        settings=settings(
            max_examples=15,
            stateful_step_count=60,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        ),
    )


# Whole deals with a seat absent, through the service and the read models --------------------------------------


@pytest.mark.parametrize(("game", "seats"), CASES)
def test_whole_deals_with_one_seat_absent_settle_and_are_reported(
    pool: Pool, store: EventStore, game: str, seats: int
) -> None:
    ledger = CardLedger(PostgresStorage(pool, store), None)
    clock = Clock(ledger, ABANDON)
    table = open_table(ledger, game, seats)
    rng = random.Random(seats)
    absent = seats - 1
    for deal_no in (1, 2):
        play_deal(table, clock, rng, absent=frozenset({absent}))
        if deal_no == 1:
            for seat in range(seats):
                table.act(seat, {"type": "ready"})
    project(pool)
    audit = Audit(pool, store)
    auditor = Caller(None, "auditor")
    events = store.read_stream(table.table_id)
    for deal_no in (1, 2):
        record = audit.deal_record(auditor, table.table_id, deal_no)
        deal = [e for e in events if e.deal_no == deal_no and e.version <= record["ended_version"]]
        timed = [e for e in deal if e.data.get("timed_out")]
        assert record["timed_out_actions"] == [len(timed) if seat == absent else 0 for seat in range(seats)]
        assert record["timed_out_actions"][absent] > 0 and record["verification"]["ok"] is True
        assert all(e.metadata["actor"] == "clock" for e in timed)
        report = audit.dispute_report(auditor, table.table_id, deal_no)
        marked = [step for step in report["steps"] if step["timed_out"]]
        assert len(marked) == len(timed) and all(step["seat"] == absent for step in marked)
        assert all(step["actor"] == "clock" for step in marked)
        assert all(step["legal_alternatives"] for step in marked)  # what the absent seat could have done
    with pool.connection() as conn:
        lines = conn.execute(
            "SELECT player_id, account, amount FROM ledger_lines WHERE table_id = %s", (table.table_id,)
        ).fetchall()
    assert sum(int(line["amount"]) for line in lines) == 0
    assert all(line["player_id"] is not None or line["account"] == POOL_ACCOUNT for line in lines)
    assert verify_tables(pool, table.table_id, progress=False).ok


# Leaving and joining between deals ------------------------------------------------------------------------------


@pytest.mark.parametrize("game", ["cholek-tiga", "cha-kau-tsz"])
def test_a_seat_changes_hands_between_deals_and_money_follows_the_player(
    pool: Pool, store: EventStore, game: str
) -> None:
    ledger = CardLedger(PostgresStorage(pool, store), None)
    clock = Clock(ledger, ABANDON)
    table = open_table(ledger, game, 2, spare=1, **({"in_play_bonuses": True} if game == "cholek-tiga" else {}))
    rng = random.Random(3)
    first = table.caller_at(0)
    with pytest.raises(Conflict) as refused:
        table.act(0, {"type": "leave"})
    assert refused.value.code == "deal_in_progress"
    play_deal(table, clock, rng)
    table.act(0, {"type": "leave"})
    with pytest.raises(Forbidden):
        ledger.seat_view(first, table.table_id)
    assert ledger.table_view(table.table_id)["players"][0] is None
    table.act(1, {"type": "ready"})
    table.sit(0)
    newcomer = table.caller_at(0)
    assert table.state().status == tables.PLAYING and table.state().deal_no == 2
    play_deal(table, clock, rng)
    project(pool)
    with pool.connection() as conn:
        lines = conn.execute(
            """SELECT deal_no, account, player_id, amount FROM ledger_lines WHERE table_id = %s
               ORDER BY global_position, line_no""",
            (table.table_id,),
        ).fetchall()
        parts = conn.execute("SELECT seat_parts FROM table_views WHERE table_id = %s", (table.table_id,)).fetchone()
        settled = {
            str(row["player_id"]): int(row["deals"])
            for row in conn.execute("SELECT player_id, deals FROM settlements WHERE table_id = %s", (table.table_id,))
        }
    for line in lines:
        if line["account"] == "seat:0":
            assert line["player_id"] == (first.player_id if line["deal_no"] == 1 else newcomer.player_id)
    assert parts is not None
    assert sorted((part["seat"], player) for player, part in parts["seat_parts"].items()) == [
        (0, newcomer.player_id),
        (1, table.caller_at(1).player_id),
    ]
    assert settled == {str(first.player_id): 1, str(newcomer.player_id): 1, str(table.caller_at(1).player_id): 2}
    # The remote verifier's derivation of the ledger from the events agrees with the projection.
    expected = expected_ledger_lines(store.read_stream(table.table_id))
    assert [(e["deal_no"], e["account"], e["player_id"], e["amount"]) for e in expected] == [
        (r["deal_no"], r["account"], r["player_id"], r["amount"]) for r in lines
    ]


# Abandoned tables -------------------------------------------------------------------------------------------


def test_an_abandoned_table_is_closed_and_its_pool_goes_back_pro_rata(pool: Pool, store: EventStore) -> None:
    ledger = CardLedger(PostgresStorage(pool, store), None)
    clock = Clock(ledger, ABANDON)
    table = open_table(ledger, "cha-kau-tsz", 3, spare=1)
    rng = random.Random(11)
    for _ in range(20):
        play_deal(table, clock, rng, absent=frozenset({2}))
        if int(table.state().carry["pool"]) > 0:
            break
        for seat in range(3):
            table.act(seat, {"type": "ready"})
    carry = table.state().carry
    assert int(carry["pool"]) > 0
    paid: dict[str, int] = {}
    for entry in carry["pool_paid"]:
        paid[entry["player_id"]] = paid.get(entry["player_id"], 0) + int(entry["points"])
    for seat in range(3):
        table.act(seat, {"type": "leave"})
    state = table.state()
    vacant = tables.vacant_since(state)
    assert vacant is not None
    project(pool)
    # The sweep finds it in table_clock only once it has been empty for CARDLEDGER_ABANDON_AFTER.
    assert clock.sweep(vacant + ABANDON - timedelta(seconds=1)) == []
    done = clock.sweep(vacant + ABANDON)
    assert [(w.table_id, w.kind) for w in done] == [(table.table_id, "closed")]
    closed = store.read_stream(table.table_id)[-1]
    assert closed.type == tables.TABLE_CLOSED and closed.metadata["actor"] == "clock"
    assert closed.data["reason"] == "abandoned"
    refunds = {t["payee"]: t["amount"] for t in closed.data["transfers"]}
    assert refunds == {f"player:{player}": points for player, points in paid.items()}
    assert all(t["payer"] == POOL_ACCOUNT and t["reason"] == "pool_returned" for t in closed.data["transfers"])
    project(pool)
    assert clock.sweep(vacant + 2 * ABANDON) == []  # closed: nothing more is due
    with pool.connection() as conn:
        by_player = {
            row["player_id"]: int(row["amount"])
            for row in conn.execute(
                """SELECT coalesce(player_id, account) AS player_id, sum(amount) AS amount FROM ledger_lines
                   WHERE table_id = %s GROUP BY 1""",
                (table.table_id,),
            )
        }
        view = conn.execute(
            """SELECT v.status, c.turn_deadline, c.vacant_since FROM table_views v JOIN table_clock c USING (table_id)
               WHERE table_id = %s""",
            (table.table_id,),
        ).fetchone()
        lines = conn.execute(
            """SELECT version, account, player_id, amount, reason FROM ledger_lines WHERE table_id = %s
               ORDER BY global_position, line_no""",
            (table.table_id,),
        ).fetchall()
    # The remote verifier derives the same lines from the events, refunds to player accounts included.
    expected = expected_ledger_lines(store.read_stream(table.table_id))
    assert [(e["version"], e["account"], e["player_id"], e["amount"], e["reason"]) for e in expected] == [
        (r["version"], r["account"], r["player_id"], r["amount"], r["reason"]) for r in lines
    ]
    assert by_player.pop(POOL_ACCOUNT, 0) == 0  # every point of the pool is back with a player
    assert sum(by_player.values()) == 0
    assert view is not None and (view["status"], view["turn_deadline"], view["vacant_since"]) == ("closed", None, None)
    assert verify_tables(pool, table.table_id, progress=False).ok


def test_the_projection_carries_the_deadline_the_clock_sweeps_for(pool: Pool, store: EventStore) -> None:
    ledger = CardLedger(PostgresStorage(pool, store), None)
    clock = Clock(ledger, ABANDON)
    table = open_table(ledger, "cholek-tiga", 2, turn_seconds=20)
    project(pool)
    state = table.state()
    deadline = tables.turn_deadline(state)
    assert deadline is not None
    with pool.connection() as conn:
        row = conn.execute(
            """SELECT v.view, c.turn_deadline, c.vacant_since FROM table_views v JOIN table_clock c USING (table_id)
               WHERE table_id = %s""",
            (table.table_id,),
        ).fetchone()
    assert row is not None and row["turn_deadline"] == deadline and row["vacant_since"] is None
    assert row["view"]["turn_deadline"] == tables.public_view(state)["turn_deadline"]
    assert ledger.table_view(table.table_id)["turn_deadline"] == row["view"]["turn_deadline"]
    assert table.table_id not in clock.due(deadline - timedelta(seconds=1))
    assert table.table_id in clock.due(deadline)
    assert [w.table_id for w in clock.sweep(deadline)] == [table.table_id]
    project(pool)
    assert table.table_id not in clock.due(deadline)  # the next turn's deadline is later


def test_abandon_after_is_seconds_or_a_duration_within_bounds() -> None:
    assert abandon_after({}) == timedelta(hours=24)
    assert abandon_after({"CARDLEDGER_ABANDON_AFTER": "3600"}) == timedelta(hours=1)
    assert abandon_after({"CARDLEDGER_ABANDON_AFTER": " 1d12h "}) == timedelta(hours=36)
    assert parse_duration("90m") == timedelta(minutes=90) and parse_duration("45s") == timedelta(seconds=45)
    for bad in ("59", "366d", "ten", "1h1d", "-5", "1.5h"):
        with pytest.raises(ValueError, match="CARDLEDGER_ABANDON_AFTER"):
            abandon_after({"CARDLEDGER_ABANDON_AFTER": bad})
