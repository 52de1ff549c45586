"""The application service's commands and queries, each test once per storage (memory, PostgreSQL): whole
deals of both games, idempotent replays, If-Match, a lost race, what a seat may see, the turn clock.

Everything goes through `CardLedger` (what the routes, the clock and the CLI call), never through HTTP.
"""

from __future__ import annotations

import itertools
import json
import random
import uuid
from collections.abc import Callable, Iterator
from datetime import timedelta
from typing import Any

import pytest

from domain import table as tables
from domain.games import game_named
from domain.shuffle import commitment
from infra.receipts import OK, OTHER_TABLE, check_receipts
from services.app.callers import AUDITOR_CALLER, Caller
from services.app.errors import Conflict, Forbidden, NotFound, PreconditionFailed, Unprocessable
from services.app.ledger import CardLedger
from services.app.metrics import APPEND_CONFLICTS
from services.app.ports import Storage
from services.bootstrap import in_memory_application
from tests.app.conftest import AUDITOR_TOKEN
from tests.play import Table, deal_ended, next_move, register

GAMES = [("cholek-tiga", 2), ("cha-kau-tsz", 3)]
ABANDON = timedelta(hours=24)


def walk(node: Any, parent: dict[str, Any] | None = None) -> Iterator[tuple[str, Any, dict[str, Any]]]:
    if isinstance(node, dict):
        for key, value in node.items():
            yield key, value, node
            yield from walk(value, node)
    elif isinstance(node, list):
        for item in node:
            yield from walk(item, parent)


# --------------------------------------------------------------------------- players


def test_a_player_registers_and_is_known_by_the_whole_token(storage: Storage, ledger: CardLedger) -> None:
    player = ledger.identity.register_player("alice")
    token = str(player["token"])
    assert ledger.identity.authenticate(token) == Caller(str(player["id"]), "alice")
    assert CardLedger(storage, None).identity.authenticate(token) == Caller(
        str(player["id"]), "alice"
    )  # another process
    assert ledger.identity.authenticate(token[:-1]) is None
    assert ledger.identity.authenticate(f"{uuid.uuid4()}.{token.partition('.')[2]}") is None
    assert ledger.identity.authenticate(AUDITOR_TOKEN) == AUDITOR_CALLER


# --------------------------------------------------------------------------- whole deals


@pytest.mark.parametrize(("game", "seats"), GAMES)
def test_whole_deals_are_played_settled_and_the_table_closed(
    storage: Storage, ledger: CardLedger, game: str, seats: int
) -> None:
    table = Table(ledger, game, seats)
    rng = random.Random(seats)
    answers = table.play_until(rng, deal_ended(1))
    answers += table.play_until(rng, lambda state: state.status == tables.PLAYING)  # every seat ready
    answers += table.play_until(rng, deal_ended(2))

    # Every answer numbers its events after the previous answer's, and the store holds exactly those.
    assert table.versions == sorted(set(table.versions))
    stream = storage.store.read_stream(table.table_id)
    assert len(stream) == table.versions[-1] == storage.store.stream_version(table.table_id)
    for answer in answers:
        for event in answer["events"]:
            stored = stream[event["position"] - 1]
            assert (event["global_position"], event["hash"]) == (stored.global_position, stored.hash)
    assert all(event.recomputed_hash() == event.hash for event in stream)
    assert all(later.prev_hash == earlier.hash for earlier, later in itertools.pairwise(stream))

    # Each deal revealed the seed it committed to.
    started = [e for e in stream if e.type == tables.DEAL_STARTED]
    ended = [e for e in stream if e.type == tables.DEAL_ENDED]
    assert [e.deal_no for e in started] == [1, 2] and [e.deal_no for e in ended] == [1, 2]
    for start, end in zip(started, ended, strict=True):
        assert commitment(bytes.fromhex(str(end.data["server_seed"]))) == start.data["commitment"]

    # The last seat leaves, the first closes the table: nobody can act any more.
    last = seats - 1
    table.act(last, {"type": "leave"})
    assert ledger.queries.seat_view(table.players[0], table.table_id)["players"][last] is None
    table.act(0, {"type": "close"})
    assert ledger.queries.table_view(table.table_id)["status"] == tables.CLOSED
    with pytest.raises(Conflict):
        table.act(0, {"type": "ready"})
    assert storage.store.stream_version(table.table_id) == table.versions[-1]


# --------------------------------------------------------------------------- idempotency, If-Match, races


def test_a_retried_action_gets_the_first_answer_and_appends_nothing(storage: Storage, ledger: CardLedger) -> None:
    table = Table(ledger, "cha-kau-tsz", 3)
    state = table.state()
    seat, action = next_move(state, random.Random(1))
    first = table.act(seat, action, key="key-1")
    version = storage.store.stream_version(table.table_id)
    assert table.act(seat, action, key="key-1") == first  # the table moved on: the write fails, the key answers
    other = CardLedger(storage, None)  # another process, caches of its own
    assert other.act(table.players[seat], table.table_id, action, "key-1", None) == first
    assert storage.store.stream_version(table.table_id) == version
    with pytest.raises(Unprocessable) as reused:
        table.act(seat, {"type": "play", "cards": []}, key="key-1")
    assert reused.value.code == "idempotency_key_reused"
    # A key is the player's own: another player's same key is another key.
    mover, next_action = next_move(table.state(), random.Random(2))
    assert mover != seat
    assert table.act(mover, next_action, key="key-1")["version"] > version


def test_a_stale_if_match_is_refused_and_a_current_one_accepted(storage: Storage, ledger: CardLedger) -> None:
    table = Table(ledger, "cholek-tiga", 2)
    state = table.state()
    seat, action = next_move(state, random.Random(3))
    with pytest.raises(PreconditionFailed, match=f"If-Match names version {state.version - 1}"):
        table.act(seat, action, if_match=state.version - 1)
    assert storage.store.stream_version(table.table_id) == state.version
    assert table.act(seat, action, if_match=state.version)["version"] > state.version


def lose_the_race_once(
    monkeypatch: pytest.MonkeyPatch, ledger: CardLedger, meanwhile: Callable[[], object]
) -> list[object]:
    """`ledger` decides, then `meanwhile` writes to the table (another process), then `ledger` appends."""
    store = ledger.commands.store
    append = store.append_prepared
    done: list[object] = []

    def lose_then_append(*args: Any) -> Any:
        if not done:
            done.append("racing")  # the other process appends through the same store
            done[0] = meanwhile()
        return append(*args)

    monkeypatch.setattr(store, "append_prepared", lose_then_append)
    return done


def test_a_lost_race_is_retried_from_the_state_that_won(
    storage: Storage, ledger: CardLedger, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = CardLedger(storage, None)
    alice, bob = register(ledger, "alice"), register(ledger, "bob")
    table_id = str(ledger.open_table(alice, "cholek-tiga", 3, {})["id"])
    ledger.queries.load_state(table_id)  # both processes know the table
    other.queries.load_state(table_id)
    raced = lose_the_race_once(monkeypatch, ledger, lambda: other.sit(bob, table_id, None, None))
    conflicts = APPEND_CONFLICTS._value.get()

    answer = ledger.sit(alice, table_id, None, None)

    assert raced and APPEND_CONFLICTS._value.get() == conflicts + 1
    state = ledger.queries.load_state(table_id)
    assert sorted(p for p in state.players if p) == sorted([alice.player_id, bob.player_id])
    assert answer["seat"] == state.seat_of(str(alice.player_id)) != state.seat_of(str(bob.player_id))
    assert answer["version"] == state.version == storage.store.stream_version(table_id) == 3


def test_a_lost_race_under_if_match_is_refused(
    storage: Storage, ledger: CardLedger, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = Table(ledger, "cholek-tiga", 2)
    state = table.state()
    seat, action = next_move(state, random.Random(4))
    other = CardLedger(storage, None)
    player = table.players[seat]
    lose_the_race_once(monkeypatch, ledger, lambda: other.act(player, table.table_id, action, "other-key", None))
    with pytest.raises(PreconditionFailed, match=f"version {state.version} but table"):
        table.act(seat, action, if_match=state.version)
    assert storage.store.find_idempotency(str(player.player_id), "other-key") is not None


# --------------------------------------------------------------------------- what a seat sees


@pytest.mark.parametrize(("game", "seats"), GAMES)
def test_no_seat_ever_receives_another_seats_hand(ledger: CardLedger, game: str, seats: int) -> None:
    table = Table(ledger, game, seats)
    bystander = register(ledger, "bystander")
    rng = random.Random(seats + 10)
    received: dict[int, list[tuple[Any, list[str]]]] = {seat: [] for seat in range(seats)}
    while (state := table.state()).status == tables.PLAYING:
        hands = {seat: game_named(game).hand(state.deal, seat) for seat in range(seats)}
        for seat, player in enumerate(table.players):
            got = [
                ledger.queries.seat_view(player, table.table_id),
                ledger.queries.events(player, table.table_id, 0, 1000),
            ]
            received[seat] += [(body, hands[seat]) for body in got]
        seat, action = next_move(state, rng)
        answer = table.act(seat, action, with_view=True)
        received[seat].append((answer, game_named(game).hand(table.state().deal, seat)))
        for body, own in received[seat][-1:]:
            assert sorted(body["view"]["hand"]) == sorted(own)
        for other, hand in hands.items():
            if other != seat and len(hand) >= 3:
                assert json.dumps(hand) not in json.dumps(answer)
    public = [ledger.queries.table_view(table.table_id), ledger.queries.events(bystander, table.table_id, 0, 1000)]
    for seat, bodies in received.items():
        for body, own in bodies:
            for key, value, holder in walk(body):
                if key == "private":
                    assert holder.get("seat") == seat, f"seat {seat} received seat {holder.get('seat')}'s cards"
                if key == "hand":
                    assert sorted(value) == sorted(own), f"seat {seat} received a hand not its own"
                assert key not in ("stock", "deck", "hands"), f"seat {seat} received {key!r}"
    for body in public:
        assert all(key not in ("private", "hand", "stock", "deck", "hands") for key, _, _ in walk(body))
    with pytest.raises(Forbidden):
        ledger.queries.seat_view(bystander, table.table_id)


# --------------------------------------------------------------------------- the turn clock, the lobby


def test_the_clock_plays_for_a_seat_whose_time_ran_out(
    storage: Storage, ledger: CardLedger, project: Callable[[], None]
) -> None:
    table = Table(ledger, "cha-kau-tsz", 3, turn_seconds=5)
    state = table.state()
    deadline, seat = tables.turn_deadline(state), tables.to_act(state)
    assert deadline is not None and seat is not None
    assert ledger.commands.clock_tick(table.table_id, deadline - timedelta(milliseconds=1), ABANDON) is None
    project()
    assert table.table_id in ledger.queries.tables_due(deadline, ABANDON, 10)
    assert table.table_id not in ledger.queries.tables_due(deadline - timedelta(milliseconds=1), ABANDON, 10)

    written = ledger.commands.clock_tick(table.table_id, deadline, ABANDON)

    assert written is not None and (written.kind, written.seats) == ("timed_out", (seat,))
    assert written.expected_version == state.version
    after = table.state()
    assert written.version == after.version == storage.store.stream_version(table.table_id) > state.version
    events = storage.store.read_stream(table.table_id, from_version=state.version + 1)
    assert events[0].data.get("timed_out") is True and events[0].metadata["actor"] == "clock"
    assert ledger.commands.clock_tick(table.table_id, deadline, ABANDON) is None  # the next turn's time runs from now


def test_the_clock_closes_a_table_nobody_sat_at(ledger: CardLedger, project: Callable[[], None]) -> None:
    alice = register(ledger, "alice")
    table_id = str(ledger.open_table(alice, "cholek-tiga", 2, {})["id"])
    vacant = tables.vacant_since(ledger.queries.load_state(table_id))
    assert vacant is not None
    project()
    assert ledger.queries.tables_due(vacant + ABANDON, ABANDON, 10) == [table_id]
    assert ledger.commands.clock_tick(table_id, vacant + ABANDON - timedelta(seconds=1), ABANDON) is None
    written = ledger.commands.clock_tick(table_id, vacant + ABANDON, ABANDON)
    assert written is not None and written.kind == "closed"
    assert ledger.queries.table_view(table_id)["status"] == tables.CLOSED


def test_the_lobby_lists_tables_in_creation_order(ledger: CardLedger, project: Callable[[], None]) -> None:
    alice = register(ledger, "alice")
    opened = [str(ledger.open_table(alice, game, 2, {})["id"]) for game, _ in GAMES]
    ledger.sit(alice, opened[0], 0, None)
    project()
    page = ledger.queries.lobby(None, None, 0, 1)
    assert [t["id"] for t in page["tables"]] == opened[:1] and page["next_after"] is not None
    assert page["tables"][0]["players"][0] == {"id": alice.player_id, "name": "alice"}
    rest = ledger.queries.lobby(None, None, int(page["next_after"]), 10)
    assert [t["id"] for t in rest["tables"]] == opened[1:] and rest["next_after"] is None
    assert [t["id"] for t in ledger.queries.lobby(None, "cha-kau-tsz", 0, 10)["tables"]] == opened[1:]


def test_reads_of_a_table_that_does_not_exist(ledger: CardLedger) -> None:
    alice = register(ledger, "alice")
    missing = str(uuid.uuid4())
    with pytest.raises(NotFound):
        ledger.queries.table_view(missing)
    with pytest.raises(NotFound):
        ledger.act(alice, missing, {"type": "ready"}, "k", None)
    assert ledger.queries.exists(missing) is False


# --------------------------------------------------------------------------- receipts


def test_every_receipt_verifies_against_the_listed_keys_and_the_log(storage: Storage, ledger: CardLedger) -> None:
    table = Table(ledger, "cholek-tiga", 2)
    receipts = [table.act(*next_move(table.state(), random.Random(5)))["receipt"]]
    other = str(ledger.open_table(table.players[0], "cholek-tiga", 2, {})["id"])
    receipts.append(ledger.sit(register(ledger, "late"), other, None, None)["receipt"])
    keys = ledger.queries.signing_keys()
    assert ledger.signer.key_id in [key["key_id"] for key in keys]
    log = {event.version: event.hash for event in storage.store.read_stream(table.table_id)}
    checks = check_receipts(receipts, keys, log, table_id=table.table_id)
    assert [check.verdict for check in checks] == [OK, OTHER_TABLE]


def test_the_in_memory_application_needs_no_server() -> None:
    ledger = in_memory_application(AUDITOR_TOKEN)
    alice = register(ledger, "alice")
    opened = ledger.open_table(alice, "cha-kau-tsz", 2, {})
    assert ledger.queries.signing_keys()[0]["key_id"] == ledger.signer.key_id
    assert ledger.queries.table_view(str(opened["id"]))["status"] == tables.OPEN
