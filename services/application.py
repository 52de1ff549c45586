"""The application service: every write and read of the API goes through here.

A write takes the table's committed state (`infra.table_states`: this process's
cached state brought up to date by one indexed query, or a bounded load), asks
the pure domain to decide, and appends the events with the expected version,
the stream's head hash and the idempotency record in one guarded statement; a
lost race is retried from the state that won. A read of one table's state or seat
view is served the same way, so it is never older than the last committed
write and never waits for the projections; a table this process has not seen
is read from the projected view when that is current.

The turn clock (`services.clock`) writes through the same guarded append as a
player (`clock_tick`): at the version it read, as the actor "clock", so a late
player and the clock never both act on one turn.
"""

from __future__ import annotations

import hashlib
import hmac
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from psycopg_pool import ConnectionPool

from domain import table as tables
from domain.errors import ConflictError, DomainError, NotYourTurn
from domain.events import JSON, Event
from domain.hashchain import canonical_json, canonical_timestamp
from domain.redaction import AUDITOR, PUBLIC, Viewer, redact_data
from domain.table import TableState
from infra import players as player_store
from infra.errors import IdempotencyKeyTaken, VersionConflict
from infra.event_store import EventStore, IdempotencyRecord, NewEvent, RecordedEvent
from infra.lru import Lru
from infra.players import KnownPlayers
from infra.seeds import KnownSeeds, seeds_for
from infra.signing import ReceiptSigner, register_public_key
from infra.table_states import KnownTable, TableStates
from services.errors import Conflict, Forbidden, NotFound, PreconditionFailed, ServiceError, Unprocessable
from services.logs import current_request_id
from services.metrics import APPEND_CONFLICTS, count_appended

MAX_WRITE_ATTEMPTS = 3


@dataclass(frozen=True, slots=True)
class Caller:
    player_id: str | None  # None for the auditor
    name: str

    @property
    def is_auditor(self) -> bool:
        return self.player_id is None


AUDITOR_CALLER = Caller(None, "auditor")
CLOCK_CALLER = Caller(None, tables.CLOCK_ACTOR)  # the service acting by itself; never an API caller


@dataclass(frozen=True, slots=True)
class ClockWrite:
    """What the clock appended at a table: `kind` is "timed_out" (the default action of the seat to act),
    "unseated" (seats not ready between deals) or "closed" (an abandoned table)."""

    table_id: str
    kind: str
    expected_version: int  # the version the clock read: it started the turn (or the wait) that ran out
    version: int  # after the append
    seats: tuple[int, ...]  # the seats it acted for


def domain_error(error: DomainError) -> ServiceError:
    """The service error (and so the HTTP status) for a rule or option error."""
    if isinstance(error, NotYourTurn | ConflictError):
        return Conflict(error.message, error.code)
    return Unprocessable(error.message, error.code)


def deal_is_over(state: TableState, deal_no: int) -> bool:
    return deal_no < state.deal_no or (deal_no == state.deal_no and state.status != tables.PLAYING)


def viewer_for(state: TableState, caller: Caller) -> Viewer:
    if caller.is_auditor:
        return AUDITOR
    seat = state.seat_of(caller.player_id or "")
    return PUBLIC if seat is None else seat


def event_json(event: RecordedEvent, viewer: Viewer, deal_over: bool, hashes_withheld: bool = False) -> dict[str, JSON]:
    """An event as API.md shows it, redacted for `viewer`: with everything its hash covers but a private block
    the viewer may not see (`occurred_at` is the exact text hashed), so anyone can recompute the chain.

    `hashes_withheld`: the event belongs to a running deal that holds a private block hashed whole (hash version
    1, written before migration 006). Every hash after such a block chains from it, so a few thousand guesses
    would give its cards back from any of them: `hash` and `prev_hash` are null until the deal ends."""
    return {
        "position": event.version,
        "global_position": event.global_position,
        "type": event.type,
        "deal_no": event.deal_no,
        "occurred_at": canonical_timestamp(event.occurred_at),
        "data": redact_data(event.data, viewer, deal_over),
        "metadata": dict(event.metadata),
        "schema_version": event.schema_version,
        "hash_version": event.hash_version,
        "prev_hash": None if hashes_withheld else event.prev_hash,
        "hash": None if hashes_withheld else event.hash,
    }


def _receipt_unless_withheld(response: Mapping[str, Any], receipt: dict[str, JSON] | None) -> dict[str, JSON] | None:
    """The write's receipt; None when the answer withholds its last event's hash (a running deal begun before
    hash version 2, see `event_json`): the receipt holds that hash, and its signature would test guesses of it."""
    events = response["events"]
    return receipt if events and events[-1]["hash"] is not None else None


def request_fingerprint(parts: Mapping[str, JSON]) -> str:
    return hashlib.sha256(canonical_json(dict(parts))).hexdigest()


class CardLedger:
    def __init__(
        self,
        pool: ConnectionPool[Any],
        store: EventStore,
        auditor_token: str | None,
        signer: ReceiptSigner | None = None,
    ) -> None:
        self.pool = pool
        self.store = store
        self.auditor_token = auditor_token
        # Signs the receipt of every write (infra/signing.py); bootstrap passes the configured key.
        self.signer = signer if signer is not None else ReceiptSigner.ephemeral()
        self._key_listed = False
        self.states = TableStates()
        self.seeds = KnownSeeds()
        self.players = KnownPlayers()
        self._v1_private_deals: Lru[tuple[str, int], bool] = Lru(10_000)

    # Identity ---------------------------------------------------------------

    def register_player(self, name: str) -> dict[str, JSON]:
        with self.pool.connection() as conn:
            player, token = player_store.register(conn, name)
        self.players.remember_token(player, token)
        return {"id": player.id, "name": player.name, "token": token}

    def authenticate(self, token: str) -> Caller | None:
        if self.auditor_token and hmac.compare_digest(token.encode(), self.auditor_token.encode()):
            return AUDITOR_CALLER
        player = self.players.for_token(token)
        if player is None:
            with self.pool.connection() as conn:
                player = player_store.player_for_token(conn, token)
            if player is None:
                return None
            self.players.remember_token(player, token)
        return Caller(player.id, player.name)

    # Writes -----------------------------------------------------------------

    def open_table(self, caller: Caller, game: str, seats: int, options: Mapping[str, Any]) -> dict[str, JSON]:
        self._require_player(caller, "open a table")
        table_id = str(uuid.uuid4())
        with self.pool.connection() as conn, conn.transaction():
            seed = seeds_for(conn, table_id, [1])[1]
            try:
                opened = tables.open_table(table_id, game, seats, options, seed)
            except DomainError as error:
                raise domain_error(error) from error
            self._list_key_once(conn)
            recorded = self.store.append_in(conn, table_id, 0, [self._new_event(opened, 0, caller)])
        count_appended([opened.type])
        receipt = self.signer.sign(table_id, recorded[-1].version, recorded[-1].hash)
        return {**self.table_view(caller, table_id), "receipt": receipt}

    def sit(self, caller: Caller, table_id: str, seat: int | None, client_seed: str | None) -> dict[str, JSON]:
        player_id = self._require_player(caller, "sit at a table")
        command = tables.Sit(player_id, seat, client_seed)
        state, response = self._write(caller, table_id, lambda state: command, expected_version=None)
        return {"seat": state.seat_of(player_id), "version": state.version, "receipt": response["receipt"]}

    def act(
        self,
        caller: Caller,
        table_id: str,
        action: Mapping[str, Any],
        idempotency_key: str,
        if_match: int | None,
    ) -> dict[str, JSON]:
        player_id = self._require_player(caller, "act at a table")
        fingerprint = request_fingerprint({"table_id": table_id, "action": dict(action)})

        def command(state: TableState) -> tables.Command:
            seat = state.seat_of(player_id)
            if seat is None:
                raise Forbidden(f"player {player_id} has no seat at table {table_id}", "not_seated")
            return tables.Act(seat, action)

        try:
            _, response = self._write(
                caller,
                table_id,
                command,
                expected_version=if_match,
                idempotency=(player_id, idempotency_key, fingerprint),
            )
        except (ServiceError, IdempotencyKeyTaken):
            # A retry of an action that was applied fails its write (the table moved on, or the key is
            # taken); only then is the key looked up, so a first attempt costs no extra query.
            replay = self._replay(table_id, player_id, idempotency_key, fingerprint)
            if replay is None:
                raise
            return replay
        return response

    def _replay(self, table_id: str, player_id: str, key: str, fingerprint: str) -> dict[str, JSON] | None:
        """The first response to (`player_id`, `key`), or None when the key is new.

        The stored response was written in the statement that appended its
        events, before the database numbered them, so the global positions are
        filled in here (the fingerprint covers the table, so these are its events).
        """
        stored = self.store.find_idempotency(player_id, key)
        if stored is None:
            return None
        if stored.request_hash != fingerprint:
            raise Unprocessable(
                f"Idempotency-Key {key!r} was already used with a different request", "idempotency_key_reused"
            )
        response = dict(stored.response)
        shown = [dict(event) for event in response.get("events") or [] if isinstance(event, Mapping)]
        positions = self.store.global_positions(table_id, [int(event["position"]) for event in shown])
        for event in shown:
            event["global_position"] = positions.get(int(event["position"]))
        response["events"] = shown
        return response

    def _write(
        self,
        caller: Caller,
        table_id: str,
        command_for: Callable[[TableState], tables.Command],
        expected_version: int | None,
        idempotency: tuple[str, str, str] | None = None,
        signed: bool = True,
    ) -> tuple[TableState, dict[str, JSON]]:
        """Load, decide, append; retried on a lost race unless the caller pinned a version (If-Match).

        Returns the state after the write and the response the caller sees. `signed=False` (the clock's writes,
        which answer nobody) makes no receipt: `receipt` is None.
        """
        for attempt in range(MAX_WRITE_ATTEMPTS):
            try:
                # No transaction: the append below is one guarded statement (events and idempotency record
                # together), and a seed made before it is only stored, not yet published.
                with self.pool.connection() as conn:
                    known = self.states.current(conn, table_id)
                    if known is None:
                        raise NotFound(f"table {table_id} does not exist", "table_not_found")
                    state = known.state
                    if expected_version is not None and expected_version != state.version:
                        raise PreconditionFailed(
                            f"If-Match names version {expected_version} but table {table_id} is at {state.version}"
                        )
                    command = command_for(state)
                    seeds = self.seeds.seeds_for(conn, table_id, [state.deal_no, state.deal_no + 1])
                    try:
                        events, after = tables.decide_and_evolve(state, command, seeds)
                    except DomainError as error:
                        raise domain_error(error) from error
                    new_events = self._annotate(state, events, caller)
                    pending = self.store.prepare(table_id, state.version, new_events, known.last_hash)
                    # The clock of the new state runs from the append's time (events decided have none).
                    after = tables.stamped(after, pending.occurred_at)
                    # Signed before the append so the idempotency record keeps this very receipt for replays.
                    receipt: dict[str, JSON] | None = None
                    if signed:
                        receipt = self.signer.sign(table_id, state.version + len(new_events), pending.hashes[-1])
                        self._list_key_once(conn)
                    record = None
                    if idempotency is not None:
                        player_id, key, fingerprint = idempotency
                        unnumbered = self._response(after, pending.events, caller)
                        for shown in unnumbered["events"]:
                            shown["global_position"] = None
                        unnumbered["receipt"] = _receipt_unless_withheld(unnumbered, receipt)
                        record = IdempotencyRecord(player_id, key, fingerprint, unnumbered)
                    recorded = self.store.append_prepared(conn, pending, record)
                    response = self._response(after, recorded, caller)
                    response["receipt"] = _receipt_unless_withheld(response, receipt)
                # Committed: only now may this process trust the new state and the seeds.
                self.states.remember(table_id, KnownTable(after, recorded[-1].hash))
                self.seeds.remember(table_id, seeds)
                count_appended(event.type for event in recorded)
                return after, response
            except VersionConflict as conflict:
                APPEND_CONFLICTS.inc()
                if expected_version is not None:
                    raise PreconditionFailed(
                        f"table {table_id} moved on from version {expected_version} while this action was decided"
                    ) from conflict
                if attempt == MAX_WRITE_ATTEMPTS - 1:
                    raise Conflict(str(conflict), "version_conflict") from conflict
        raise AssertionError("unreachable")

    def _annotate(self, state: TableState, events: Sequence[Event], caller: Caller) -> list[NewEvent]:
        """Store-ready events, each tagged with its deal number (a deal's events from its `deal_started` on)."""
        deal_no = state.deal_no
        new: list[NewEvent] = []
        for event in events:
            if event.type == tables.DEAL_STARTED:
                deal_no = int(event.data["deal_no"])
            new.append(self._new_event(event, deal_no, caller))
        return new

    def _new_event(self, event: Event, deal_no: int, caller: Caller) -> NewEvent:
        metadata: dict[str, JSON] = {"actor": caller.player_id or caller.name}
        request_id = current_request_id()
        if request_id is not None:
            metadata["request_id"] = request_id
        return NewEvent(event.type, event.data, deal_no, metadata)

    def _response(self, state: TableState, recorded: list[RecordedEvent], caller: Caller) -> dict[str, JSON]:
        viewer = viewer_for(state, caller)
        withheld = self.deal_with_hashes_withheld(recorded[0].stream_id, state, viewer) if recorded else None
        return {
            "version": state.version,
            "events": [event_json(e, viewer, deal_is_over(state, e.deal_no), e.deal_no == withheld) for e in recorded],
        }

    def list_signing_key(self) -> None:
        """List the signer's public key in signing_keys now (idempotent); the API does it at start."""
        with self.pool.connection() as conn:
            register_public_key(conn, self.signer)
        self._key_listed = True

    def _list_key_once(self, conn: Any) -> None:
        """List the key before this process's first receipt, if the start could not (migrations were pending)."""
        if not self._key_listed:
            register_public_key(conn, self.signer)
            self._key_listed = True

    # The clock -------------------------------------------------------------

    def clock_tick(
        self, table_id: str, now: datetime, abandon_after: timedelta, pause: Callable[[], None] | None = None
    ) -> ClockWrite | None:
        """The clock at `table_id` at `now`: when the turn deadline has passed, the default action of the seat to
        act (or between deals, the unseating of the seats not ready); when nobody has sat at the table for
        `abandon_after`, its closing. None when nothing is due.

        The write is the same guarded append as a player's, expecting the version read here (the version whose
        event started the clock that ran out): a player who acted meanwhile wins, and the clock does nothing
        (None); a second clock for the same turn finds the turn taken. `pause` (fault injection) runs between
        the decision and the append."""
        with self.pool.connection() as conn:
            known = self.states.current(conn, table_id)
        if known is None:
            return None
        state = known.state
        deadline, vacant = tables.turn_deadline(state), tables.vacant_since(state)
        command: tables.Command
        if deadline is not None and now >= deadline:
            command = tables.Expire(now)
            kind = "timed_out" if state.status == tables.PLAYING else "unseated"
            seats = (tables.to_act(state),) if state.status == tables.PLAYING else tables.seats_not_ready(state)
        elif vacant is not None and now >= vacant + abandon_after:
            command, kind, seats = tables.Abandon(now, abandon_after), "closed", ()
        else:
            return None
        if pause is not None:
            pause()
        try:
            after, _ = self._write(
                CLOCK_CALLER, table_id, lambda _state: command, expected_version=state.version, signed=False
            )
        except (PreconditionFailed, Conflict):
            return None  # the table moved on (a player acted, or another clock did): nothing is due here now
        return ClockWrite(table_id, kind, state.version, after.version, tuple(s for s in seats if s is not None))

    @staticmethod
    def _require_player(caller: Caller, what: str) -> str:
        if caller.player_id is None:
            raise Forbidden(f"the auditor may read everything but cannot {what}", "auditor_cannot_act")
        return caller.player_id

    # Reads ------------------------------------------------------------------

    def load_state(self, table_id: str) -> TableState:
        """The table's committed state now."""
        with self.pool.connection() as conn:
            known = self.states.current(conn, table_id)
        if known is None:
            raise NotFound(f"table {table_id} does not exist", "table_not_found")
        return known.state

    def table_view(self, caller: Caller, table_id: str, min_version: int | None = None) -> dict[str, JSON]:
        """The public table state, never older than the last committed write, so `min_version` (the API's
        read-your-writes parameter) holds whenever the table has reached it."""
        view = self._projected_view(
            table_id,
            """SELECT v.version, v.view, s.version AS head FROM table_views v
               JOIN streams s ON s.stream_id = v.table_id WHERE v.table_id = %s""",
            (table_id,),
        )
        return self._with_names(view if view is not None else tables.public_view(self.load_state(table_id)))

    def seat_view(self, caller: Caller, table_id: str, min_version: int | None = None) -> dict[str, JSON]:
        if caller.player_id is None:
            raise Forbidden("the auditor has no seat; read the public table state instead", "no_seat")
        view = self._projected_view(
            table_id,
            """SELECT v.version, v.view, s.version AS head FROM seat_views v
               JOIN streams s ON s.stream_id = v.table_id WHERE v.table_id = %s AND v.player_id = %s""",
            (table_id, caller.player_id),
        )
        if view is not None:
            return self._with_names(view)
        state = self.load_state(table_id)
        seat = state.seat_of(caller.player_id)
        if seat is None:
            raise Forbidden(f"player {caller.player_id} has no seat at table {table_id}", "no_seat")
        return self._with_names(tables.seat_view(state, seat))

    def _projected_view(self, table_id: str, sql: str, params: tuple[Any, ...]) -> dict[str, JSON] | None:
        """The projected view when this process keeps no state of the table and the projection has reached
        the stream's head (`head` in the row); else None, and the caller folds the state on.

        A table this process has written or read is cheaper to fold on (one query for the events after
        the cached version) than to wait for a projection that is usually a few milliseconds behind.
        """
        if self.states.is_known(table_id):
            return None
        with self.pool.connection() as conn:
            row = conn.execute(sql, params).fetchone()
        if row is None or int(row["version"]) < int(row["head"]):
            return None
        return dict(row["view"])

    def _with_names(self, view: Mapping[str, JSON]) -> dict[str, JSON]:
        shaped = dict(view)
        ids = [p for p in view.get("players", []) if p]
        if ids:
            known = self.players.known(ids)
            missing = [p for p in ids if p not in known]
            if missing:
                with self.pool.connection() as conn:
                    found = player_store.players_by_id(conn, missing)
                for player in found.values():
                    self.players.remember(player)
                known |= found
            shaped["players"] = [
                None if p is None else {"id": p, "name": known[p].name if p in known else None}
                for p in view.get("players", [])
            ]
        return shaped

    def events(self, caller: Caller, table_id: str, after: int, limit: int) -> dict[str, JSON]:
        state = self.load_state(table_id)
        viewer = viewer_for(state, caller)
        recorded = self.store.read_stream(table_id, from_version=after + 1, limit=limit)
        withheld = self.deal_with_hashes_withheld(table_id, state, viewer)
        return {
            "events": [event_json(e, viewer, deal_is_over(state, e.deal_no), e.deal_no == withheld) for e in recorded],
            "next_after": recorded[-1].version if recorded else after,
        }

    def deal_with_hashes_withheld(self, table_id: str, state: TableState, viewer: Viewer) -> int | None:
        """The running deal whose hashes `viewer` may not see (see `event_json`), or None. The auditor sees them."""
        if viewer is AUDITOR or state.status != tables.PLAYING:
            return None
        return state.deal_no if self.deal_holds_v1_private(table_id, state.deal_no) else None

    def deal_holds_v1_private(self, table_id: str, deal_no: int) -> bool:
        """Cached: a deal's events written from now on are version 2, so the answer never changes."""
        key = (table_id, deal_no)
        held = self._v1_private_deals.get(key)
        if held is None:
            held = self.store.deal_holds_v1_private(table_id, deal_no)
            self._v1_private_deals.put(key, held)
        return held
