"""The table: seats, seeds and the life of its deals, around one game's rules.

`decide(state, command, seeds) -> events` and `evolve(state, event) -> state`
are pure. Randomness enters only as server seeds, passed in by the caller as
a mapping from deal number to seed (the current deal and the next one).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

from domain.errors import ConflictError, NotYourTurn, OptionError, RuleError
from domain.events import JSON, Event
from domain.games import game_named
from domain.ledger import Transfer
from domain.shuffle import commitment, deal_deck, validate_client_seed

OPEN, PLAYING, BETWEEN_DEALS, CLOSED = "open", "playing", "between_deals", "closed"

TABLE_OPENED = "table_opened"
PLAYER_SEATED = "player_seated"
DEAL_STARTED = "deal_started"
DEAL_ENDED = "deal_ended"
PLAYER_READY = "player_ready"
TABLE_CLOSED = "table_closed"
TABLE_EVENT_TYPES = frozenset({TABLE_OPENED, PLAYER_SEATED, DEAL_STARTED, DEAL_ENDED, PLAYER_READY, TABLE_CLOSED})


@dataclass(frozen=True, slots=True)
class TableState:
    table_id: str
    game: str
    seats: int
    options: Mapping[str, JSON]
    status: str = OPEN
    players: tuple[str | None, ...] = ()
    version: int = 0  # events folded so far: the stream version
    deal_no: int = 0  # the running or last finished deal; 0 before the first
    next_commitment: str = ""
    next_client_seeds: tuple[str, ...] = ()
    deal_client_seeds: tuple[str, ...] = ()
    ready: frozenset[int] = frozenset()
    carry: Mapping[str, JSON] = field(default_factory=dict)
    deal: Any = None  # the game's state of the running (or last) deal
    last_result: Mapping[str, JSON] | None = None

    def seat_of(self, player_id: str) -> int | None:
        for seat, occupant in enumerate(self.players):
            if occupant == player_id:
                return seat
        return None


# Commands -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Sit:
    player_id: str
    seat: int | None = None
    client_seed: str | None = None


@dataclass(frozen=True, slots=True)
class Act:
    seat: int
    action: Mapping[str, Any]


Command = Sit | Act


def open_table(table_id: str, game_name: str, seats: int, raw_options: Mapping[str, Any], first_seed: bytes) -> Event:
    game = game_named(game_name)
    if not game.min_seats <= seats <= game.max_seats:
        raise OptionError(
            f"{game.name} is played by {game.min_seats} to {game.max_seats} players, not {seats}",
            code="invalid_seats",
        )
    options = game.parse_options(raw_options, seats)
    return Event(
        TABLE_OPENED,
        {
            "table_id": table_id,
            "game": game.name,
            "seats": seats,
            "options": options,
            "commitment": commitment(first_seed),
        },
    )


def decide(state: TableState, command: Command, seeds: Mapping[int, bytes]) -> list[Event]:
    return decide_and_evolve(state, command, seeds)[0]


def decide_and_evolve(
    state: TableState, command: Command, seeds: Mapping[int, bytes]
) -> tuple[list[Event], TableState]:
    """`decide`, and the state those events lead to (equal to `fold(state, events)`, without folding twice)."""
    if state.status == CLOSED:
        raise ConflictError(f"table {state.table_id} is closed", code="table_closed")
    if isinstance(command, Sit):
        events = _sit(state, command, seeds)
        return events, fold(state, events)
    return _act(state, command.seat, command.action, seeds)


def _sit(state: TableState, command: Sit, seeds: Mapping[int, bytes]) -> list[Event]:
    if state.seat_of(command.player_id) is not None:
        raise ConflictError(
            f"player {command.player_id} already sits at seat {state.seat_of(command.player_id)}", code="already_seated"
        )
    if state.status != OPEN:
        raise ConflictError(f"table {state.table_id} is full", code="table_full")
    free = [seat for seat, occupant in enumerate(state.players) if occupant is None]
    seat = free[0] if command.seat is None else command.seat
    if not 0 <= seat < state.seats:
        raise RuleError(f"seat {seat} does not exist; this table has seats 0..{state.seats - 1}", code="invalid_seat")
    if state.players[seat] is not None:
        raise ConflictError(f"seat {seat} is taken", code="seat_taken")
    client_seed = command.client_seed or ""
    validate_client_seed(client_seed)
    events = [Event(PLAYER_SEATED, {"seat": seat, "player_id": command.player_id, "client_seed": client_seed})]
    if len(free) == 1:
        events += _start_deal(evolve(state, events[0]), seeds)
    return events


def _act(
    state: TableState, seat: int, action: Mapping[str, Any], seeds: Mapping[int, bytes]
) -> tuple[list[Event], TableState]:
    if not 0 <= seat < state.seats or state.players[seat] is None:
        raise RuleError(f"seat {seat} is not taken at table {state.table_id}", code="not_seated")
    if not isinstance(action, Mapping):
        raise RuleError(f"an action must be a JSON object, got {type(action).__name__}", code="malformed_action")
    kind = action.get("type")
    if kind == "ready":
        events = _ready(state, seat, action, seeds)
        return events, fold(state, events)
    if kind == "close":
        if state.status != BETWEEN_DEALS:
            raise ConflictError(f"a table can be closed only between deals; it is {state.status}", code="wrong_phase")
        events = [Event(TABLE_CLOSED, {"seat": seat, "deal_no": state.deal_no})]
        return events, fold(state, events)
    if state.status != PLAYING:
        raise ConflictError(f"no deal is being played at this table; it is {state.status}", code="wrong_phase")
    game = game_named(state.game)
    to_act = game.to_act(state.deal)
    if to_act != seat:
        raise NotYourTurn(f"it is seat {to_act}'s turn, not seat {seat}'s")
    events = game.decide_play(state, seat, action, _deck(state, seeds))
    after = state
    for event in events:  # game events only: each is one `_with_deal` step of `evolve`
        after = _with_deal(after, game.evolve_deal(after, after.deal, event))
    if game.is_over(after.deal):
        ended = _deal_ended(after, seeds)
        events.append(ended)
        after = evolve(after, ended)
    return events, after


def _ready(state: TableState, seat: int, action: Mapping[str, Any], seeds: Mapping[int, bytes]) -> list[Event]:
    if state.status != BETWEEN_DEALS:
        raise ConflictError(f"'ready' is for between deals; the table is {state.status}", code="wrong_phase")
    if seat in state.ready:
        raise ConflictError(f"seat {seat} is already ready for deal {state.deal_no + 1}", code="already_ready")
    client_seed = action.get("client_seed") or ""
    if not isinstance(client_seed, str):
        raise RuleError("client_seed must be a string", code="invalid_client_seed")
    validate_client_seed(client_seed)
    events = [Event(PLAYER_READY, {"seat": seat, "deal_no": state.deal_no + 1, "client_seed": client_seed})]
    if len(state.ready) + 1 == state.seats:
        events += _start_deal(evolve(state, events[0]), seeds)
    return events


def _start_deal(state: TableState, seeds: Mapping[int, bytes]) -> list[Event]:
    deal_no = state.deal_no + 1
    seed = seeds[deal_no]
    if commitment(seed) != state.next_commitment:
        raise RuntimeError(f"server seed for deal {deal_no} does not match its published commitment")
    started = Event(
        DEAL_STARTED,
        {"deal_no": deal_no, "commitment": state.next_commitment, "client_seeds": list(state.next_client_seeds)},
    )
    dealing_state = evolve(state, started)
    return [started, *game_named(state.game).start_deal(dealing_state, _deck(dealing_state, seeds))]


def _deal_ended(state: TableState, seeds: Mapping[int, bytes]) -> Event:
    outcome = game_named(state.game).outcome(state)
    return Event(
        DEAL_ENDED,
        {
            "deal_no": state.deal_no,
            "server_seed": seeds[state.deal_no].hex(),
            "commitment": commitment(seeds[state.deal_no]),
            "client_seeds": list(state.deal_client_seeds),
            "result": outcome.result,
            "transfers": [t.to_json() for t in outcome.transfers],
            "unit": game_named(state.game).money_unit,
            "carry": outcome.carry,
            "next_commitment": commitment(seeds[state.deal_no + 1]),
        },
    )


def _deck(state: TableState, seeds: Mapping[int, bytes]) -> tuple[str, ...]:
    return _deal_deck(state.game, seeds[state.deal_no], state.table_id, state.deal_no, state.deal_client_seeds)


@lru_cache(maxsize=256)
def _deal_deck(game: str, seed: bytes, table_id: str, deal_no: int, client_seeds: tuple[str, ...]) -> tuple[str, ...]:
    return deal_deck(game_named(game).canonical_deck, seed, table_id, deal_no, client_seeds)


# Evolution ------------------------------------------------------------------


def evolve(state: TableState | None, event: Event) -> TableState:
    data = event.data
    if state is None:
        if event.type != TABLE_OPENED:
            raise ValueError(f"a table stream must begin with {TABLE_OPENED}, not {event.type}")
        game = game_named(str(data["game"]))
        seats = int(data["seats"])
        return TableState(
            table_id=str(data["table_id"]),
            game=game.name,
            seats=seats,
            options=dict(data["options"]),
            players=(None,) * seats,
            version=1,
            next_commitment=str(data["commitment"]),
            next_client_seeds=("",) * seats,
            carry=game.initial_carry(seats, data["options"]),
        )
    if event.type not in TABLE_EVENT_TYPES:  # the hot path: one replace per game event
        return _with_deal(state, game_named(state.game).evolve_deal(state, state.deal, event))
    state = replace(state, version=state.version + 1)
    if event.type == PLAYER_SEATED:
        seat = int(data["seat"])
        players = _set(state.players, seat, str(data["player_id"]))
        seeds = _set(state.next_client_seeds, seat, str(data["client_seed"]))
        status = PLAYING if None not in players else OPEN
        return replace(state, players=players, next_client_seeds=seeds, status=status)
    if event.type == DEAL_STARTED:
        return replace(
            state,
            status=PLAYING,
            deal_no=int(data["deal_no"]),
            deal_client_seeds=tuple(data["client_seeds"]),
            next_client_seeds=("",) * state.seats,
            ready=frozenset(),
            deal=None,
            last_result=None,
        )
    if event.type == DEAL_ENDED:
        return replace(
            state,
            status=BETWEEN_DEALS,
            deal_no=int(data["deal_no"]),
            deal_client_seeds=tuple(data["client_seeds"]),
            carry=dict(data["carry"]),
            next_commitment=str(data["next_commitment"]),
            last_result=dict(data["result"]),
            ready=frozenset(),
        )
    if event.type == PLAYER_READY:
        seat = int(data["seat"])
        return replace(
            state,
            ready=state.ready | {seat},
            next_client_seeds=_set(state.next_client_seeds, seat, str(data["client_seed"])),
        )
    if event.type == TABLE_CLOSED:
        return replace(state, status=CLOSED)
    raise ValueError(f"{event.type} is not a table event")  # pragma: no cover - TABLE_EVENT_TYPES lists them all


def _with_deal(state: TableState, deal: Any, steps: int = 1) -> TableState:
    """`replace(state, version=+steps, deal=deal)`, spelled out: game events are most of every fold."""
    return TableState(
        state.table_id,
        state.game,
        state.seats,
        state.options,
        state.status,
        state.players,
        state.version + steps,
        state.deal_no,
        state.next_commitment,
        state.next_client_seeds,
        state.deal_client_seeds,
        state.ready,
        state.carry,
        deal,
        state.last_result,
    )


def fold(state: TableState | None, events: Iterable[Event]) -> TableState:
    """`evolve` over `events`, in order.

    A run of game events changes only the deal and the version, and the games' `evolve_deal` reads
    nothing else of the table that such a run could change, so a run makes one TableState at its end
    rather than one per event (in a seat_views rebuild, folding went from 18% to 12% of the samples).
    """
    deal: Any = None
    run = 0  # game events folded into `deal`, not yet into `state`
    for event in events:
        if state is not None and event.type not in TABLE_EVENT_TYPES:
            if run == 0:
                deal, rules = state.deal, game_named(state.game)
            deal = rules.evolve_deal(state, deal, event)
            run += 1
            continue
        if run:
            assert state is not None
            state, run = _with_deal(state, deal, run), 0
        state = evolve(state, event)
    if state is None:
        raise ValueError("no events to fold")
    return _with_deal(state, deal, run) if run else state


def _set(values: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return (*values[:index], value, *values[index + 1 :])


# Views ----------------------------------------------------------------------


def to_act(state: TableState) -> int | None:
    if state.status != PLAYING or state.deal is None:
        return None
    return game_named(state.game).to_act(state.deal)


def legal_actions(state: TableState, seat: int) -> list[dict[str, JSON]]:
    if state.status == PLAYING:
        if to_act(state) != seat:
            return []
        return game_named(state.game).legal_actions(state, seat)
    if state.status == BETWEEN_DEALS and seat not in state.ready:
        return [{"type": "ready"}, {"type": "close"}]
    return []


def public_view(state: TableState) -> dict[str, JSON]:
    view: dict[str, JSON] = {
        "id": state.table_id,
        "game": state.game,
        "seats": state.seats,
        "options": dict(state.options),
        "status": state.status,
        "players": list(state.players),
        "deal_no": state.deal_no,
        "to_act": to_act(state),
        "version": state.version,
        "next_deal": None
        if state.status in (PLAYING, CLOSED)
        else {"deal_no": state.deal_no + 1, "commitment": state.next_commitment},
        "ready": sorted(state.ready),
    }
    if state.deal is not None:
        view.update(game_named(state.game).public_state(state))
    if state.last_result is not None:
        view["last_result"] = dict(state.last_result)
    return view


def seat_view(state: TableState, seat: int, public: Mapping[str, JSON] | None = None) -> dict[str, JSON]:
    """What `seat` sees: the public view with its hand and legal actions. `public` is the state's
    `public_view` when the caller has made it already (copied, not changed), as for every seat of a table."""
    view = public_view(state) if public is None else dict(public)
    view["seat"] = seat
    view["hand"] = game_named(state.game).hand(state.deal, seat) if state.deal is not None else []
    view["legal_actions"] = legal_actions(state, seat)
    return view


def deal_transfers(event: Event) -> list[Transfer]:
    """The settlement transfers an event carries (deal ends and in-play bonuses)."""
    return [Transfer.from_json(raw) for raw in event.data.get("transfers", ())]


def revealed_cards(event: Event) -> Sequence[tuple[int, str]]:
    """(deck index, card) for each card this event took from the deck."""
    indexes = event.data.get("deck_indexes")
    if not indexes:
        return []
    cards = event.data.get("cards")
    if cards is None:
        cards = event.data.get("private", {}).get("cards", [])
    return list(zip(indexes, cards, strict=True))
