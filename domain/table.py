"""The table: seats, seeds and the life of its deals, around one game's rules.

`decide(state, command, seeds) -> events` and `evolve(state, event) -> state`
are pure. Randomness enters only as server seeds, passed in by the caller as
a mapping from deal number to seed (the current deal and the next one), and
time only as the `occurred_at` of events from the log and the `now` of the
clock's commands (`Expire`, `Abandon`).

The turn clock (house rules, docs/house-rules.md). `clock_since` is the time of
the event from which the current clock runs: while a deal is played, the last
event (every write ends where a seat must decide); between deals, the
`deal_ended` event (readiness is due within `READY_FACTOR` turns of it); at a
table nobody sits at, the event that emptied it (or its opening). From it and
the table option `turn_seconds`, `turn_deadline(state)` is a pure function of
the log, whichever process folds it and however often it restarts.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any

from domain.decks import deck_of
from domain.errors import ConflictError, NotYourTurn, OptionError, RuleError
from domain.events import JSON, Event
from domain.games import game_named
from domain.hashchain import canonical_timestamp
from domain.ledger import Transfer
from domain.shuffle import commitment, validate_client_seed

OPEN, PLAYING, BETWEEN_DEALS, CLOSED = "open", "playing", "between_deals", "closed"

TABLE_OPENED = "table_opened"
PLAYER_SEATED = "player_seated"
DEAL_STARTED = "deal_started"
DEAL_ENDED = "deal_ended"
PLAYER_READY = "player_ready"
TABLE_CLOSED = "table_closed"
PLAYER_LEFT = "player_left"
TABLE_EVENT_TYPES = frozenset(
    {TABLE_OPENED, PLAYER_SEATED, DEAL_STARTED, DEAL_ENDED, PLAYER_READY, TABLE_CLOSED, PLAYER_LEFT}
)

# The turn clock (house rules). A table opened before it existed has no `turn_seconds` option: no clock.
TURN_SECONDS = "turn_seconds"
DEFAULT_TURN_SECONDS = 60
MIN_TURN_SECONDS = 5
MAX_TURN_SECONDS = 3600
READY_FACTOR = 5  # between deals, a seat not ready within READY_FACTOR * turn_seconds is unseated
TIMED_OUT = "timed_out"  # true in the data of an action the clock took, and of an unseating for not being ready
CLOCK_ACTOR = "clock"  # the metadata actor of everything the service does by itself
ABANDONED = "abandoned"  # the reason of a table_closed event the service appends to an abandoned table


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
    clock_since: datetime | None = None  # see the module's doc; None when folded from events without times

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


@dataclass(frozen=True, slots=True)
class Expire:
    """The turn clock at `now`: the default action of the seat to act, or between deals the unseating of the seats
    not ready, once `turn_deadline` has passed (a ConflictError before)."""

    now: datetime


@dataclass(frozen=True, slots=True)
class Abandon:
    """Close a table nobody has sat at for `after` (at `now`), paying back what the game leaves on it."""

    now: datetime
    after: timedelta


Command = Sit | Act | Expire | Abandon


def open_table(table_id: str, game_name: str, seats: int, raw_options: Mapping[str, Any], first_seed: bytes) -> Event:
    game = game_named(game_name)
    if not game.min_seats <= seats <= game.max_seats:
        raise OptionError(
            f"{game.name} is played by {game.min_seats} to {game.max_seats} players, not {seats}",
            code="invalid_seats",
        )
    options = _parse_options(game.name, raw_options, seats)
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


def _parse_options(game_name: str, raw: Mapping[str, Any], seats: int) -> dict[str, JSON]:
    """The game's options and the table's own (`turn_seconds`, default DEFAULT_TURN_SECONDS)."""
    if not isinstance(raw, Mapping) or TURN_SECONDS not in raw:
        options = game_named(game_name).parse_options(raw, seats)
        options[TURN_SECONDS] = DEFAULT_TURN_SECONDS
        return options
    options = game_named(game_name).parse_options({k: v for k, v in raw.items() if k != TURN_SECONDS}, seats)
    value = raw[TURN_SECONDS]
    if (
        isinstance(value, bool)
        or not isinstance(value, int)
        or not (value == 0 or MIN_TURN_SECONDS <= value <= MAX_TURN_SECONDS)
    ):
        raise OptionError(
            f"option {TURN_SECONDS} must be 0 (no clock) or an integer from {MIN_TURN_SECONDS} to "
            f"{MAX_TURN_SECONDS}, not {value!r}"
        )
    options[TURN_SECONDS] = value
    return options


def decide(state: TableState, command: Command, seeds: Mapping[int, bytes]) -> list[Event]:
    return decide_and_evolve(state, command, seeds)[0]


def decide_and_evolve(
    state: TableState, command: Command, seeds: Mapping[int, bytes], at: datetime | None = None
) -> tuple[list[Event], TableState]:
    """`decide`, and the state those events lead to (equal to `fold(state, events)`, without folding twice).
    `at`: the time the events will be appended at; the state is then `stamped(fold(state, events), at)`."""
    if state.status == CLOSED:
        raise ConflictError(f"table {state.table_id} is closed", code="table_closed")
    if isinstance(command, Sit):
        events = _sit(state, command, seeds)
        after = fold(state, events)
    elif isinstance(command, Expire):
        events, after = _expire(state, command.now, seeds, at)
    elif isinstance(command, Abandon):
        events = [_abandon(state, command.now, command.after)]
        after = fold(state, events)
    else:
        events, after = _act(state, command.seat, command.action, seeds, at)
    return events, after if at is None else stamped(after, at)


def _sit(state: TableState, command: Sit, seeds: Mapping[int, bytes]) -> list[Event]:
    if state.seat_of(command.player_id) is not None:
        raise ConflictError(
            f"player {command.player_id} already sits at seat {state.seat_of(command.player_id)}", code="already_seated"
        )
    free = [seat for seat, occupant in enumerate(state.players) if occupant is None]
    if state.status not in (OPEN, BETWEEN_DEALS) or not free:
        raise ConflictError(f"table {state.table_id} is full", code="table_full")
    seat = free[0] if command.seat is None else command.seat
    if not 0 <= seat < state.seats:
        raise RuleError(f"seat {seat} does not exist; this table has seats 0..{state.seats - 1}", code="invalid_seat")
    if state.players[seat] is not None:
        raise ConflictError(f"seat {seat} is taken", code="seat_taken")
    client_seed = command.client_seed or ""
    validate_client_seed(client_seed)
    events = [Event(PLAYER_SEATED, {"seat": seat, "player_id": command.player_id, "client_seed": client_seed})]
    after = evolve(state, events[0])
    # Before deal 1 the last seating starts it; between deals a seating counts as ready, so it starts the next
    # deal when every other seat is ready too.
    if len(free) == 1 and (state.status == OPEN or len(after.ready) == state.seats):
        events += _start_deal(after, seeds)
    return events


def _act(
    state: TableState, seat: int, action: Mapping[str, Any], seeds: Mapping[int, bytes], at: datetime | None = None
) -> tuple[list[Event], TableState]:
    if not 0 <= seat < state.seats or state.players[seat] is None:
        raise RuleError(f"seat {seat} is not taken at table {state.table_id}", code="not_seated")
    if not isinstance(action, Mapping):
        raise RuleError(f"an action must be a JSON object, got {type(action).__name__}", code="malformed_action")
    kind = action.get("type")
    if kind == "ready":
        events = _ready(state, seat, action, seeds)
        return events, fold(state, events)
    if kind == "leave":
        if state.status == PLAYING:
            raise ConflictError(
                f"a seat cannot be left while deal {state.deal_no} is played; leave between deals (the turn clock "
                "plays for an absent seat meanwhile)",
                code="deal_in_progress",
            )
        events = [_left(state, seat, timed_out=False)]
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
    # Game events only: one run of `fold`, so one TableState at its end (with the append's time, when known).
    deal = state.deal
    for event in events:
        deal = game.evolve_deal(state, deal, event)
    after = _with_deal(state, deal, len(events), at)
    if game.is_over(deal):
        ended = _deal_ended(after, seeds)
        events.append(ended)
        after = evolve(after, ended)
    return events, after


def _left(state: TableState, seat: int, timed_out: bool) -> Event:
    data: dict[str, JSON] = {"seat": seat, "player_id": state.players[seat], "deal_no": state.deal_no}
    if timed_out:
        data[TIMED_OUT] = True
    return Event(PLAYER_LEFT, data)


def _expire(
    state: TableState, now: datetime, seeds: Mapping[int, bytes], at: datetime | None = None
) -> tuple[list[Event], TableState]:
    """The clock's move once the deadline has passed: the default action of the seat to act (its first event
    marked `timed_out`), or between deals every seat not ready unseated."""
    deadline = turn_deadline(state)
    if deadline is None:
        raise ConflictError(f"no turn clock runs at table {state.table_id} now", code="no_clock")
    if now < deadline:
        raise ConflictError(
            f"the turn clock of table {state.table_id} runs until {canonical_timestamp(deadline)}",
            code="clock_running",
        )
    if state.status == PLAYING:
        seat = to_act(state)
        assert seat is not None  # turn_deadline is None when nobody is to act
        events, after = _act(state, seat, game_named(state.game).timeout_action(state, seat), seeds, at)
        events[0] = Event(events[0].type, {**events[0].data, TIMED_OUT: True})
        return events, after
    events = [_left(state, seat, timed_out=True) for seat in seats_not_ready(state)]
    return events, fold(state, events)


def _abandon(state: TableState, now: datetime, after: timedelta) -> Event:
    since = vacant_since(state)
    if since is None:
        raise ConflictError(f"table {state.table_id} has players or is closed", code="not_abandoned")
    if now < since + after:
        raise ConflictError(
            f"table {state.table_id} has had nobody seated since {canonical_timestamp(since)}, not yet for {after}",
            code="not_abandoned",
        )
    game = game_named(state.game)
    data: dict[str, JSON] = {"deal_no": state.deal_no, "reason": ABANDONED}
    transfers = game.closing_transfers(state)
    if transfers:
        data["transfers"] = [t.to_json() for t in transfers]
        data["unit"] = game.money_unit
    return Event(TABLE_CLOSED, data)


def seats_not_ready(state: TableState) -> tuple[int, ...]:
    """The seats taken between deals whose players have not said ready."""
    return tuple(seat for seat, player in enumerate(state.players) if player is not None and seat not in state.ready)


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
    if len(state.ready) + 1 == state.seats and None not in state.players:
        events += _start_deal(evolve(state, events[0]), seeds)
    return events


def _start_deal(state: TableState, seeds: Mapping[int, bytes]) -> list[Event]:
    deal_no = state.deal_no + 1
    seed = seeds[deal_no]
    if commitment(seed) != state.next_commitment:
        raise RuntimeError(f"server seed for deal {deal_no} does not match its published commitment")
    started = Event(
        DEAL_STARTED,
        {
            "deal_no": deal_no,
            "commitment": state.next_commitment,
            "client_seeds": list(state.next_client_seeds),
            "players": list(state.players),  # who plays the deal (seats change hands between deals)
        },
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
    return deck_of(state.game, seeds[state.deal_no], state.table_id, state.deal_no, state.deal_client_seeds)


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
            clock_since=event.occurred_at,
        )
    if event.type not in TABLE_EVENT_TYPES:  # the hot path: one replace per game event
        deal = game_named(state.game).evolve_deal(state, state.deal, event)
        return _with_deal(state, deal, 1, event.occurred_at)
    version = state.version + 1  # one replace per table event, the version with the rest
    if event.type == PLAYER_SEATED:
        seat = int(data["seat"])
        players = _set(state.players, seat, str(data["player_id"]))
        seeds = _set(state.next_client_seeds, seat, str(data["client_seed"]))
        if state.status == BETWEEN_DEALS:  # sitting down between deals is being ready for the next one
            return replace(state, version=version, players=players, next_client_seeds=seeds, ready=state.ready | {seat})
        status = PLAYING if None not in players else OPEN
        return replace(state, version=version, players=players, next_client_seeds=seeds, status=status)
    if event.type == PLAYER_LEFT:
        seat = int(data["seat"])
        players = _set(state.players, seat, None)
        empty = all(player is None for player in players)
        return replace(
            state,
            version=version,
            players=players,
            ready=state.ready - {seat},
            next_client_seeds=_set(state.next_client_seeds, seat, ""),
            clock_since=event.occurred_at if empty else state.clock_since,
        )
    if event.type == DEAL_STARTED:
        players = tuple(data["players"]) if "players" in data else state.players  # absent before seats could change
        return replace(
            state,
            version=version,
            players=players,
            clock_since=event.occurred_at,
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
            version=version,
            status=BETWEEN_DEALS,
            deal_no=int(data["deal_no"]),
            deal_client_seeds=tuple(data["client_seeds"]),
            carry=dict(data["carry"]),
            next_commitment=str(data["next_commitment"]),
            last_result=dict(data["result"]),
            ready=frozenset(),
            clock_since=event.occurred_at,
        )
    if event.type == PLAYER_READY:
        seat = int(data["seat"])
        return replace(
            state,
            version=version,
            ready=state.ready | {seat},
            next_client_seeds=_set(state.next_client_seeds, seat, str(data["client_seed"])),
        )
    if event.type == TABLE_CLOSED:
        return replace(state, version=version, status=CLOSED)
    raise ValueError(f"{event.type} is not a table event")  # pragma: no cover - TABLE_EVENT_TYPES lists them all


def _with_deal(state: TableState, deal: Any, steps: int = 1, at: datetime | None = None) -> TableState:
    """`replace(state, version=+steps, deal=deal, clock_since=at)`, spelled out: game events are most of every
    fold. `at` is the time of the last of the `steps` game events: each starts a decision."""
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
        at,
    )


def fold(state: TableState | None, events: Iterable[Event]) -> TableState:
    """`evolve` over `events`, in order.

    A run of game events changes only the deal and the version, and the games' `evolve_deal` reads
    nothing else of the table that such a run could change, so a run makes one TableState at its end
    rather than one per event (docs/performance.md, "The read models").
    """
    deal: Any = None
    at: datetime | None = None
    run = 0  # game events folded into `deal`, not yet into `state`
    for event in events:
        if state is not None and event.type not in TABLE_EVENT_TYPES:
            if run == 0:
                deal, rules = state.deal, game_named(state.game)
            deal = rules.evolve_deal(state, deal, event)
            at = event.occurred_at
            run += 1
            continue
        if run:
            assert state is not None
            state, run = _with_deal(state, deal, run, at), 0
        state = evolve(state, event)
    if state is None:
        raise ValueError("no events to fold")
    return _with_deal(state, deal, run, at) if run else state


def stamped(state: TableState, at: datetime) -> TableState:
    """`state`, folded from events just decided (without times), as it is once they are appended at `at`:
    events that start a clock leave `clock_since` None, which is then their time. Every other event keeps it,
    so a state whose clock_since is None after such events was decided from one folded without times."""
    if state.clock_since is not None:
        return state
    # `replace(state, clock_since=at)`, spelled out as `_with_deal` is: one per action.
    return TableState(
        state.table_id,
        state.game,
        state.seats,
        state.options,
        state.status,
        state.players,
        state.version,
        state.deal_no,
        state.next_commitment,
        state.next_client_seeds,
        state.deal_client_seeds,
        state.ready,
        state.carry,
        state.deal,
        state.last_result,
        at,
    )


def _set(values: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return (*values[:index], value, *values[index + 1 :])


# Views ----------------------------------------------------------------------


def to_act(state: TableState) -> int | None:
    if state.status != PLAYING or state.deal is None:
        return None
    return game_named(state.game).to_act(state.deal)


def turn_seconds(state: TableState) -> int:
    """The table's clock in seconds; 0 (no clock) for a table opened before the clock existed."""
    value = state.options.get(TURN_SECONDS, 0)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def turn_deadline(state: TableState) -> datetime | None:
    """When the clock acts (`Expire`): while a deal is played, `turn_seconds` after the event that made it the
    turn of the seat to act; between deals, READY_FACTOR times that after the deal ended, if a seated player
    is not ready. None without a clock, with nobody to act, or when folded from events without times."""
    seconds = turn_seconds(state)
    if seconds <= 0 or state.clock_since is None:
        return None
    if state.status == PLAYING and to_act(state) is not None:
        return state.clock_since + timedelta(seconds=seconds)
    if state.status == BETWEEN_DEALS and seats_not_ready(state):
        return state.clock_since + timedelta(seconds=seconds * READY_FACTOR)
    return None


def vacant_since(state: TableState) -> datetime | None:
    """Since when nobody has sat at the table (`Abandon`); None while someone does, or once it is closed."""
    if state.status == CLOSED or any(player is not None for player in state.players):
        return None
    return state.clock_since


def legal_actions(state: TableState, seat: int) -> list[dict[str, JSON]]:
    if state.status == PLAYING:
        if to_act(state) != seat:
            return []
        return game_named(state.game).legal_actions(state, seat)
    if not 0 <= seat < state.seats or state.players[seat] is None:
        return []
    if state.status == BETWEEN_DEALS and seat not in state.ready:
        return [{"type": "ready"}, {"type": "close"}, {"type": "leave"}]
    if state.status in (OPEN, BETWEEN_DEALS):
        return [{"type": "leave"}]
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
        "turn_deadline": _timestamp(turn_deadline(state)),
    }
    if state.deal is not None:
        view.update(game_named(state.game).public_state(state))
    if state.last_result is not None:
        view["last_result"] = dict(state.last_result)
    return view


def _timestamp(moment: datetime | None) -> str | None:
    return None if moment is None else canonical_timestamp(moment)


def seat_view(state: TableState, seat: int, public: Mapping[str, JSON] | None = None) -> dict[str, JSON]:
    """What `seat` sees: the public view with its hand and legal actions. `public` is the state's
    `public_view` when the caller has made it already (copied, not changed), as for every seat of a table."""
    view = public_view(state) if public is None else dict(public)
    view.update(seat_private(state, seat))
    return view


def seat_private(state: TableState, seat: int) -> dict[str, JSON]:
    """What `seat_view` adds to the public view (its keys replace any of the same name)."""
    return {
        "seat": seat,
        "hand": game_named(state.game).hand(state.deal, seat) if state.deal is not None else [],
        "legal_actions": legal_actions(state, seat),
    }


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
