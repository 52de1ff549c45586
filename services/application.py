"""The application service: every write and read of the API goes through here.

A write loads the table's state (bounded cost, `infra.table_loader`), asks the
pure domain to decide, and appends the events with the expected version and
the idempotency record in one transaction. Reads come from the projections;
when a projection is behind the table's stream (or the version a caller asks
for) by more than a short wait, the state is folded from the store instead
(bounded cost): a read is never older than the last committed write.
"""

from __future__ import annotations

import hashlib
import hmac
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from psycopg_pool import ConnectionPool

from domain import table as tables
from domain.errors import ConflictError, DomainError, NotYourTurn
from domain.events import JSON, Event
from domain.hashchain import canonical_json
from domain.redaction import AUDITOR, PUBLIC, Viewer, redact_data
from domain.table import TableState
from infra import players as player_store
from infra.errors import IdempotencyKeyTaken, VersionConflict
from infra.event_store import EventStore, IdempotencyRecord, NewEvent, RecordedEvent
from infra.seeds import seeds_for
from infra.table_loader import fold_recorded, load_table_events
from services.errors import Conflict, Forbidden, NotFound, PreconditionFailed, ServiceError, Unprocessable
from services.logs import current_request_id
from services.metrics import count_appended

MAX_WRITE_ATTEMPTS = 3
PROJECTION_WAIT_S = 0.05  # how long a read waits for a projection that is behind, before folding
PROJECTION_POLL_S = 0.01


@dataclass(frozen=True, slots=True)
class Caller:
    player_id: str | None  # None for the auditor
    name: str

    @property
    def is_auditor(self) -> bool:
        return self.player_id is None


AUDITOR_CALLER = Caller(None, "auditor")


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


def event_json(event: RecordedEvent, viewer: Viewer, deal_over: bool) -> dict[str, JSON]:
    """An event as API.md shows it, redacted for `viewer`."""
    return {
        "position": event.version,
        "global_position": event.global_position,
        "type": event.type,
        "deal_no": event.deal_no,
        "occurred_at": event.occurred_at.isoformat(),
        "data": redact_data(event.data, viewer, deal_over),
        "prev_hash": event.prev_hash,
        "hash": event.hash,
    }


def request_fingerprint(parts: Mapping[str, JSON]) -> str:
    return hashlib.sha256(canonical_json(dict(parts))).hexdigest()


class CardLedger:
    def __init__(self, pool: ConnectionPool[Any], store: EventStore, auditor_token: str | None) -> None:
        self.pool = pool
        self.store = store
        self.auditor_token = auditor_token

    # Identity ---------------------------------------------------------------

    def register_player(self, name: str) -> dict[str, JSON]:
        with self.pool.connection() as conn:
            player, token = player_store.register(conn, name)
        return {"id": player.id, "name": player.name, "token": token}

    def authenticate(self, token: str) -> Caller | None:
        if self.auditor_token and hmac.compare_digest(token.encode(), self.auditor_token.encode()):
            return AUDITOR_CALLER
        with self.pool.connection() as conn:
            player = player_store.player_for_token(conn, token)
        return None if player is None else Caller(player.id, player.name)

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
            self.store.append_in(conn, table_id, 0, [self._new_event(opened, 0, caller)])
        count_appended([opened.type])
        return self.table_view(caller, table_id)

    def sit(self, caller: Caller, table_id: str, seat: int | None, client_seed: str | None) -> dict[str, JSON]:
        player_id = self._require_player(caller, "sit at a table")
        command = tables.Sit(player_id, seat, client_seed)
        state, _ = self._write(caller, table_id, lambda state: command, expected_version=None)
        return {"seat": state.seat_of(player_id), "version": state.version}

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
        replay = self._replay(player_id, idempotency_key, fingerprint)
        if replay is not None:
            return replay

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
        except IdempotencyKeyTaken:
            replay = self._replay(player_id, idempotency_key, fingerprint)
            if replay is None:
                raise
            return replay
        return response

    def _replay(self, player_id: str, key: str, fingerprint: str) -> dict[str, JSON] | None:
        stored = self.store.find_idempotency(player_id, key)
        if stored is None:
            return None
        if stored.request_hash != fingerprint:
            raise Unprocessable(
                f"Idempotency-Key {key!r} was already used with a different request", "idempotency_key_reused"
            )
        return dict(stored.response)

    def _write(
        self,
        caller: Caller,
        table_id: str,
        command_for: Callable[[TableState], tables.Command],
        expected_version: int | None,
        idempotency: tuple[str, str, str] | None = None,
    ) -> tuple[TableState, dict[str, JSON]]:
        """Load, decide, append; retried on a lost race unless the caller pinned a version (If-Match).

        Returns the state after the write and the response the caller sees.
        """
        for attempt in range(MAX_WRITE_ATTEMPTS):
            try:
                with self.pool.connection() as conn, conn.transaction():
                    loaded = load_table_events(conn, table_id)
                    state = fold_recorded(loaded)
                    if state is None:
                        raise NotFound(f"table {table_id} does not exist", "table_not_found")
                    if expected_version is not None and expected_version != state.version:
                        raise PreconditionFailed(
                            f"If-Match names version {expected_version} but table {table_id} is at {state.version}"
                        )
                    command = command_for(state)
                    seeds = seeds_for(conn, table_id, [state.deal_no, state.deal_no + 1])
                    try:
                        events, after = tables.decide_and_evolve(state, command, seeds)
                    except DomainError as error:
                        raise domain_error(error) from error
                    new_events = self._annotate(state, events, caller)
                    recorded = self.store.append_in(
                        conn, table_id, state.version, new_events, head_hash=loaded[-1].hash
                    )
                    response = self._response(after, recorded, caller)
                    if idempotency is not None:
                        player_id, key, fingerprint = idempotency
                        self.store.record_idempotency(
                            conn, table_id, IdempotencyRecord(player_id, key, fingerprint, response)
                        )
                count_appended(event.type for event in recorded)  # committed
                return after, response
            except VersionConflict as conflict:
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
        metadata: dict[str, JSON] = {"actor": caller.player_id or "auditor"}
        request_id = current_request_id()
        if request_id is not None:
            metadata["request_id"] = request_id
        return NewEvent(event.type, event.data, deal_no, metadata)

    def _response(self, state: TableState, recorded: list[RecordedEvent], caller: Caller) -> dict[str, JSON]:
        viewer = viewer_for(state, caller)
        return {
            "version": state.version,
            "events": [event_json(e, viewer, deal_is_over(state, e.deal_no)) for e in recorded],
        }

    @staticmethod
    def _require_player(caller: Caller, what: str) -> str:
        if caller.player_id is None:
            raise Forbidden(f"the auditor may read everything but cannot {what}", "auditor_cannot_act")
        return caller.player_id

    # Reads ------------------------------------------------------------------

    def load_state(self, table_id: str) -> TableState:
        with self.pool.connection() as conn:
            state = fold_recorded(load_table_events(conn, table_id))
        if state is None:
            raise NotFound(f"table {table_id} does not exist", "table_not_found")
        return state

    def table_view(self, caller: Caller, table_id: str, min_version: int | None = None) -> dict[str, JSON]:
        row = self._projected(
            """SELECT v.version, v.view, s.version AS head FROM table_views v
               JOIN streams s ON s.stream_id = v.table_id WHERE v.table_id = %s""",
            (table_id,),
            min_version,
        )
        view = row["view"] if row is not None else tables.public_view(self.load_state(table_id))
        return self._with_names(view)

    def seat_view(self, caller: Caller, table_id: str, min_version: int | None = None) -> dict[str, JSON]:
        if caller.player_id is None:
            raise Forbidden("the auditor has no seat; read the public table state instead", "no_seat")
        row = self._projected(
            """SELECT v.version, v.view, s.version AS head FROM seat_views v
               JOIN streams s ON s.stream_id = v.table_id WHERE v.table_id = %s AND v.player_id = %s""",
            (table_id, caller.player_id),
            min_version,
        )
        if row is not None:
            return self._with_names(row["view"])
        state = self.load_state(table_id)
        seat = state.seat_of(caller.player_id)
        if seat is None:
            raise Forbidden(f"player {caller.player_id} has no seat at table {table_id}", "no_seat")
        return self._with_names(tables.seat_view(state, seat))

    def _projected(self, sql: str, params: tuple[Any, ...], min_version: int | None) -> dict[str, Any] | None:
        """The projected row once it is current: not behind the stream's head (`head` in the row) nor
        `min_version`. A projection is usually a few milliseconds behind a write, so the row is looked
        at again for a short while (cheaper than a fold on a busy machine); then None, and the caller
        folds the state from the store."""
        deadline = time.monotonic() + PROJECTION_WAIT_S
        while True:
            with self.pool.connection() as conn:
                row = conn.execute(sql, params).fetchone()
            if row is None:
                return None
            if int(row["version"]) >= max(int(row["head"]), min_version or 0):
                return dict(row)
            if time.monotonic() >= deadline:
                return None
            time.sleep(PROJECTION_POLL_S)

    def _with_names(self, view: Mapping[str, JSON]) -> dict[str, JSON]:
        shaped = dict(view)
        ids = [p for p in view.get("players", []) if p]
        if ids:
            with self.pool.connection() as conn:
                known = player_store.players_by_id(conn, ids)
            shaped["players"] = [
                None if p is None else {"id": p, "name": known[p].name if p in known else None}
                for p in view.get("players", [])
            ]
        return shaped

    def events(self, caller: Caller, table_id: str, after: int, limit: int) -> dict[str, JSON]:
        state = self.load_state(table_id)
        viewer = viewer_for(state, caller)
        recorded = self.store.read_stream(table_id, from_version=after + 1, limit=limit)
        return {
            "events": [event_json(e, viewer, deal_is_over(state, e.deal_no)) for e in recorded],
            "next_after": recorded[-1].version if recorded else after,
        }
