"""The writes at a table: open, sit, act (a play, or ready, close, leave between deals), and the turn clock's.

A write decides on the table's state this process keeps (`FoldedStates`) when that is likely current, with no
read: the append carries the expected version and the stream's head hash in one guarded statement, which
refuses a state the stream has moved past. A refused or erring decision on a kept state is made again on the
committed state (the kept state brought up to date by one indexed query, or a bounded load), and only that
one answers the caller; a lost race is retried from the state that won. An action's idempotency is a wrapper
around its command (`Idempotent`): it gives the record the append stores with the events, and answers a retry
with the first answer.

The turn clock (`services.clock`) writes through the same guarded append as a player (`clock_tick`): at the
version it read, as the actor "clock", so a late player and the clock never both act on one turn.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from domain import table as tables
from domain.errors import ConflictError, DomainError, NotYourTurn
from domain.events import JSON, Event
from domain.hashchain import canonical_json
from domain.table import TableState
from infra.config import CacheSizes
from infra.errors import IdempotencyKeyTaken, VersionConflict
from infra.event_store import EventStorage, IdempotencyRecord, NewEvent
from infra.lru import Lru
from infra.signing import ReceiptSigner
from infra.table_loader import KnownTable
from services.app.answers import WithheldHashes, numbered, write_answer
from services.app.caches import KnownSeeds
from services.app.callers import CLOCK_CALLER, Caller, viewer_for
from services.app.errors import Conflict, Forbidden, NotFound, PreconditionFailed, ServiceError, Unprocessable
from services.app.folded_states import FoldedStates
from services.app.metrics import APPEND_CONFLICTS, count_appended
from services.app.ports import Session, Storage, TableEvents
from services.app.replays import keeps_events_apart, positions_in, record_of, replayed
from services.logs import current_request_id

MAX_WRITE_ATTEMPTS = 3  # races lost on a state read from the store


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


def request_fingerprint(parts: Mapping[str, JSON]) -> str:
    return hashlib.sha256(canonical_json(dict(parts))).hexdigest()


class Write:
    """One command at a table: the domain command for the state it finds. Plain writes store nothing beside
    their events."""

    def __init__(self, command_for: Callable[[TableState], tables.Command]) -> None:
        self.command_for = command_for

    def record(self, answer: Mapping[str, JSON]) -> IdempotencyRecord | None:
        return None


class Idempotent(Write):
    """`write` under an idempotency key: its answer is recorded with its events, in the same statement (what the
    log does not hold of it: `services.app.replays`), so a retry gets that answer (`replay`) and appends nothing."""

    def __init__(self, write: Write, table_id: str, scope: str, key: str, fingerprint: str) -> None:
        super().__init__(write.command_for)
        self.table_id, self.scope, self.key, self.fingerprint = table_id, scope, key, fingerprint

    def record(self, answer: Mapping[str, JSON]) -> IdempotencyRecord:
        return IdempotencyRecord(self.scope, self.key, self.fingerprint, record_of(answer, self.table_id))

    def replay(self, store: EventStorage) -> dict[str, JSON] | None:
        """The first answer to this key, or None when the key is new (a different request under it: 422)."""
        stored = store.find_idempotency(self.scope, self.key)
        if stored is None:
            return None
        if stored.request_hash != self.fingerprint:
            raise Unprocessable(
                f"Idempotency-Key {self.key!r} was already used with a different request", "idempotency_key_reused"
            )
        if keeps_events_apart(stored.response):
            positions = positions_in(stored.response)
            read = store.read_stream(self.table_id, min(positions), max(positions)) if positions else []
            return replayed(stored.response, self.table_id, read)
        events = stored.response.get("events")
        shown = [int(event["position"]) for event in events or [] if isinstance(event, Mapping)]
        return numbered(stored.response, store.global_positions(self.table_id, shown))


@dataclass(frozen=True, slots=True)
class Written:
    state: TableState  # after the write
    answer: dict[str, JSON]  # as the caller sees it, numbered


class TableCommands:
    def __init__(
        self,
        storage: Storage,
        signer: ReceiptSigner,
        states: FoldedStates,
        withheld: WithheldHashes,
        seeds: int = CacheSizes().seeds,
        tables: int = CacheSizes().tables,
    ) -> None:
        self.storage = storage
        self.store = storage.store
        self.signer = signer  # signs the receipt of every write (infra/signing.py)
        self.states = states
        self.withheld = withheld
        self.seeds = KnownSeeds(seeds)
        # Tables whose stream was ahead of the state kept here when last read: read before deciding there.
        self._behind: Lru[str, bool] = Lru(tables)

    def forget_what_it_read(self) -> None:
        self.seeds.clear()
        self._behind.clear()

    def open_table(self, caller: Caller, game: str, seats: int, options: Mapping[str, Any]) -> tuple[str, JSON]:
        """Open a table; its id and the receipt of its opening."""
        self._require_player(caller, "open a table")
        table_id = str(uuid.uuid4())
        with self.storage.session() as conn, conn.transaction():
            seed = conn.seeds_for(table_id, [1])[1]
            try:
                opened = tables.open_table(table_id, game, seats, options, seed)
            except DomainError as error:
                raise domain_error(error) from error
            recorded = conn.start_stream(table_id, [_new_event(opened, 0, caller)])
        count_appended([opened.type])
        return table_id, self.signer.sign(table_id, recorded[-1].version, recorded[-1].hash)

    def sit(
        self, caller: Caller, table_id: str, seat: int | None, client_seed: str | None
    ) -> tuple[dict[str, JSON], TableState]:
        """Sit down; the answer and the table's state after it."""
        player_id = self._require_player(caller, "sit at a table")
        command = tables.Sit(player_id, seat, client_seed)
        written = self._write(caller, table_id, Write(lambda state: command), expected_version=None)
        state = written.state
        answer: dict[str, JSON] = {
            "seat": state.seat_of(player_id),
            "version": state.version,
            "receipt": written.answer["receipt"],
        }
        return answer, state

    def act(
        self,
        caller: Caller,
        table_id: str,
        action: Mapping[str, Any],
        idempotency_key: str,
        if_match: int | None,
    ) -> tuple[dict[str, JSON], TableState | None]:
        """Act; the answer and the table's state after the write, or None for a replayed answer (the write was
        made by an earlier request, and this one knows no state of that moment)."""
        player_id = self._require_player(caller, "act at a table")

        def command(state: TableState) -> tables.Command:
            seat = state.seat_of(player_id)
            if seat is None:
                raise Forbidden(f"player {player_id} has no seat at table {table_id}", "not_seated")
            return tables.Act(seat, action)

        fingerprint = request_fingerprint({"table_id": table_id, "action": dict(action)})
        write = Idempotent(Write(command), table_id, player_id, idempotency_key, fingerprint)
        try:
            written = self._write(caller, table_id, write, expected_version=if_match)
            return written.answer, written.state
        except (ServiceError, IdempotencyKeyTaken):
            # A retry of an action that was applied fails its write (the table moved on, or the key is
            # taken); only then is the key looked up, so a first attempt costs no extra query.
            replay = write.replay(self.store)
            if replay is None:
                raise
            return replay, None

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
        with self.storage.session() as conn:
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
            written = self._write(
                CLOCK_CALLER, table_id, Write(lambda _state: command), expected_version=state.version, signed=False
            )
        except (PreconditionFailed, Conflict):
            return None  # the table moved on (a player acted, or another clock did): nothing is due here now
        return ClockWrite(
            table_id, kind, state.version, written.state.version, tuple(s for s in seats if s is not None)
        )

    def _write(
        self, caller: Caller, table_id: str, write: Write, expected_version: int | None, signed: bool = True
    ) -> Written:
        """Decide and append; retried on a lost race unless the caller pinned a version (If-Match).
        `signed=False` (the clock's writes, which answer nobody) makes no receipt.

        The state this process keeps of the table is decided on without reading the store first when it is
        likely current (`_trusted`): the guarded append refuses it if the stream has moved on, and any refusal
        or error of a decision on such a state is decided again on the state read from the store, so a
        caller is only ever answered from the committed state."""
        known = self._trusted(table_id, expected_version)
        lost_races = 0
        while True:
            verified = known is None
            # No transaction: the append is one guarded statement (events and idempotency record together),
            # and a seed made before it is only stored, not yet published.
            with self.storage.session() as conn:
                if known is None:
                    known = self._read(conn, table_id)
                try:
                    return self._decide_and_append(conn, caller, table_id, write, known, expected_version, signed)
                except VersionConflict as conflict:
                    APPEND_CONFLICTS.inc()
                    if not verified:
                        known = None
                        continue
                    if expected_version is not None:
                        raise PreconditionFailed(
                            f"table {table_id} moved on from version {expected_version} while this action was decided"
                        ) from conflict
                    lost_races += 1
                    if lost_races == MAX_WRITE_ATTEMPTS:
                        raise Conflict(str(conflict), "version_conflict") from conflict
                    known = None
                except ServiceError:
                    if verified:
                        raise
                    known = None  # refused on a state the stream may have moved past: decide on the store's

    def _trusted(self, table_id: str, expected_version: int | None) -> KnownTable | None:
        """The kept state to decide on without reading the store, or None to read it first: none is kept, an
        If-Match names another version (the caller has seen a newer one), or the last time this process read the
        table the stream was ahead of the state it kept (several processes take turns there)."""
        known = self.states.newest(table_id)
        if known is None or self._behind.get(table_id):
            return None
        if expected_version is not None and expected_version != known.state.version:
            return None
        return known

    def _read(self, conn: TableEvents, table_id: str) -> KnownTable:
        """The table's committed state; notes whether the state this process kept was behind it."""
        kept = self.states.newest(table_id)
        known = self.states.current(conn, table_id)
        if known is None:
            raise NotFound(f"table {table_id} does not exist", "table_not_found")
        if kept is not None:
            self._behind.put(table_id, kept.state.version != known.state.version)
        return known

    def _decide_and_append(
        self,
        conn: Session,
        caller: Caller,
        table_id: str,
        write: Write,
        known: KnownTable,
        expected_version: int | None,
        signed: bool,
    ) -> Written:
        state = known.state
        if expected_version is not None and expected_version != state.version:
            raise PreconditionFailed(
                f"If-Match names version {expected_version} but table {table_id} is at {state.version}"
            )
        command = write.command_for(state)
        seeds, seeds_read = self.seeds.lookup(conn, table_id, (state.deal_no, state.deal_no + 1))
        # The append's time, taken first so that the state decided is folded with it (its clock runs from it).
        at = datetime.now(UTC)
        try:
            events, after = tables.decide_and_evolve(state, command, seeds, at)
        except DomainError as error:
            raise domain_error(error) from error
        pending = self.store.prepare(table_id, state.version, _annotate(state, events, caller), known.last_hash, at)
        # Signed before the append so the idempotency record keeps this very receipt for replays.
        receipt: JSON = None
        if signed:
            receipt = self.signer.sign(table_id, state.version + len(pending.new), pending.hashes[-1])
        if after.deal_no != state.deal_no:
            self.withheld.deal_begins(table_id, after.deal_no)
        viewer = viewer_for(after, caller)
        withheld = self.withheld.deal_for(table_id, after, viewer)
        answer = write_answer(after, pending, viewer, withheld, receipt)
        recorded = conn.append_prepared(pending, write.record(answer))
        # Committed: only now may this process trust the new state and the seeds.
        self.states.remember(table_id, KnownTable(after, recorded[-1].hash))
        if seeds_read:
            self.seeds.remember(table_id, seeds_read)  # those known here already are kept
        count_appended(event.type for event in recorded)
        # Numbered in place (`numbered` copies; this answer is this request's own, its record already sent). Both
        # lists follow `pending.new`.
        for shown, event in zip(answer["events"], recorded, strict=True):
            shown["global_position"] = event.global_position
        return Written(after, answer)

    def require_signing_key(self) -> None:
        """UnregisteredSigningKey unless the signer's key is registered: the API checks it before it serves."""
        with self.storage.session() as conn:
            conn.require_signing_key(self.signer)

    @staticmethod
    def _require_player(caller: Caller, what: str) -> str:
        if caller.player_id is None:
            raise Forbidden(f"the auditor may read everything but cannot {what}", "auditor_cannot_act")
        return caller.player_id


def _annotate(state: TableState, events: Sequence[Event], caller: Caller) -> list[NewEvent]:
    """Store-ready events, each tagged with its deal number (a deal's events from its `deal_started` on)."""
    deal_no = state.deal_no
    metadata = _metadata(caller)  # one dict for the append's events: nothing changes it
    new: list[NewEvent] = []
    for event in events:
        if event.type == tables.DEAL_STARTED:
            deal_no = int(event.data["deal_no"])
        new.append(NewEvent(event.type, event.data, deal_no, metadata))
    return new


def _new_event(event: Event, deal_no: int, caller: Caller) -> NewEvent:
    return NewEvent(event.type, event.data, deal_no, _metadata(caller))


def _metadata(caller: Caller) -> dict[str, JSON]:
    metadata: dict[str, JSON] = {"actor": caller.player_id or caller.name}
    request_id = current_request_id()
    if request_id is not None:
        metadata["request_id"] = request_id
    return metadata
