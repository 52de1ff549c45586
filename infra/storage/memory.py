"""The application's storage in memory, under the same contracts as PostgreSQL's (tests/integration/
test_storage_contract.py), so the application service runs with no server (tests/app/).

Players, seeds and signing keys are dicts under one lock; the events are an `InMemoryEventStore`. There are no
projections: the projected views are never there (the application folds the state instead), and the lobby
and the clock's sweep read every table's state folded from the store, always current.
"""

from __future__ import annotations

import contextlib
import hmac
import secrets
import threading
from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from domain import table as tables
from domain.table import TableState
from infra.event_store import IdempotencyRecord, InMemoryEventStore, NewEvent, PendingAppend, RecordedEvent
from infra.players import Player, new_player, token_hash, token_player_id
from infra.receipts import ALGORITHM
from infra.signing import ReceiptSigner, UnregisteredSigningKey, utc_timestamp
from infra.sql.table_views import Projected
from infra.table_loader import bounded_table_events, fold_recorded

SEED_BYTES = 32


@dataclass(frozen=True, slots=True)
class _Table:
    created_seq: int  # the global position of its opening, in creation order as table_views' sequence
    state: TableState


class InMemoryStorage:
    """A `Storage` whose one session is itself: nothing is held per connection."""

    def __init__(self, store: InMemoryEventStore | None = None) -> None:
        self._store = store if store is not None else InMemoryEventStore()
        self._lock = threading.Lock()
        self._players: dict[str, tuple[Player, str]] = {}  # id -> (player, token hash)
        self._seeds: dict[tuple[str, int], bytes] = {}
        self._keys: dict[str, tuple[str, datetime]] = {}  # key id -> (public key, listed at)

    @property
    def store(self) -> InMemoryEventStore:
        return self._store

    def session(self) -> AbstractContextManager[InMemoryStorage]:
        return contextlib.nullcontext(self)

    def transaction(self) -> AbstractContextManager[object]:
        return contextlib.nullcontext()

    # TableEvents
    def events_after(self, table_id: str, version: int, limit: int) -> list[RecordedEvent]:
        return self._store.read_stream(table_id, from_version=version + 1, limit=limit)

    def table_events(self, table_id: str, up_to_version: int | None = None) -> list[RecordedEvent]:
        return bounded_table_events(self._store.read_stream(table_id, to_version=up_to_version))

    # Seeds
    def seeds_for(self, table_id: str, deal_numbers: Iterable[int]) -> dict[int, bytes]:
        wanted = sorted({n for n in deal_numbers if n >= 1})
        with self._lock:
            return {n: self._seeds.setdefault((table_id, n), secrets.token_bytes(SEED_BYTES)) for n in wanted}

    # SigningKeys
    def register_first_key(self, signer: ReceiptSigner) -> None:
        """What the owner's `cardledger migrate` does for a database: this store has no owner apart from its
        maker (`services.bootstrap.in_memory_application`)."""
        with self._lock:
            self._keys.setdefault(signer.key_id, (signer.public_key, datetime.now(UTC)))

    def require_signing_key(self, signer: ReceiptSigner) -> None:
        with self._lock:
            if signer.key_id not in self._keys:
                raise UnregisteredSigningKey(f"the receipt signing key {signer.key_id} is not registered")

    def signing_keys(self) -> list[dict[str, Any]]:
        with self._lock:
            listed = sorted(self._keys.items(), key=lambda item: (item[1][1], item[0]))
        return [
            {
                "key_id": key_id,
                "algorithm": ALGORITHM,
                "public_key": public_key,
                "created_at": utc_timestamp(at),
                "endorsed_by": None,
                "endorsement": None,
            }
            for key_id, (public_key, at) in listed
        ]

    # Players
    def register_player(self, name: str) -> tuple[Player, str]:
        player, token = new_player(name)
        with self._lock:
            self._players[player.id] = (player, token_hash(token))
        return player, token

    def player_for_token(self, token: str) -> Player | None:
        player_id = token_player_id(token)
        if player_id is None:
            return None
        with self._lock:
            found = self._players.get(player_id)
        if found is None or not hmac.compare_digest(found[1], token_hash(token)):
            return None
        return found[0]

    def players_by_id(self, ids: list[str]) -> dict[str, Player]:
        with self._lock:
            return {p: self._players[p][0] for p in ids if p in self._players}

    # GuardedAppend
    def start_stream(self, stream_id: str, events: Sequence[NewEvent]) -> list[RecordedEvent]:
        return self._store.append(stream_id, 0, events)

    def append_prepared(
        self, pending: PendingAppend, idempotency: IdempotencyRecord | None = None
    ) -> list[RecordedEvent]:
        return self._store.append_prepared(pending, idempotency)

    # ReadModels: nothing is projected in memory; the lobby and the sweep fold every table
    def projected_table_view(self, table_id: str) -> Projected | None:
        return None

    def projected_seat_view(self, table_id: str, player_id: str) -> Projected | None:
        return None

    def lobby_rows(self, status: str | None, game: str | None, after: int, limit: int) -> list[dict[str, Any]]:
        chosen = [
            table
            for table in self._tables()
            if table.created_seq > after
            and (status is None or table.state.status == status)
            and (game is None or table.state.game == game)
        ]
        return [{"created_seq": t.created_seq, "view": tables.public_view(t.state)} for t in chosen[:limit]]

    def tables_with_turn_due(self, now: datetime, limit: int) -> list[str]:
        due = [(deadline, t.state.table_id) for t in self._tables() if (deadline := tables.turn_deadline(t.state))]
        return [table_id for deadline, table_id in sorted(due) if deadline <= now][:limit]

    def tables_vacant_since(self, since: datetime, limit: int) -> list[str]:
        vacant = [(at, t.state.table_id) for t in self._tables() if (at := tables.vacant_since(t.state))]
        return [table_id for at, table_id in sorted(vacant) if at <= since][:limit]

    def _tables(self) -> list[_Table]:
        """Every table's state now, in creation order."""
        streams: dict[str, list[RecordedEvent]] = {}
        for batch in self._store.iterate_log():
            for event in batch:
                streams.setdefault(event.stream_id, []).append(event)
        found = []
        for events in streams.values():
            state = fold_recorded(sorted(events, key=lambda e: e.version))
            if state is not None:
                found.append(_Table(events[0].global_position, state))
        return sorted(found, key=lambda table: table.created_seq)
