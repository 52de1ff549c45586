"""The ports of the application service: what it needs of storage beside the event store, as small Protocols.

The application owns them; infra implements them without importing them (the layers point one way): its
adapters meet them structurally, and mypy holds them to them where they are wired (`services.bootstrap`).

A `Session` is one unit of work on one backend connection (PostgreSQL: one pooled connection, autocommit, so
each call is one statement unless the session's `transaction()` is open). It offers every port below, so the
write path reads the stream, its seeds and appends on one connection, as it always has; a caller that needs
one port types its parameter with that Protocol alone (`FoldedStates` takes `TableEvents`, `KnownSeeds` takes
`Seeds`). A `Storage` opens sessions and holds the event store. Adapters: `infra/storage/postgres.py`
(production) and `infra/storage/memory.py` (tests with no server); tests/app/ runs the application on both,
tests/integration/test_storage_contract.py holds both to the contracts below.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Any, Protocol

from infra.event_store.contract import EventStorage
from infra.event_store.model import IdempotencyRecord, NewEvent, PendingAppend, RecordedEvent
from infra.players import Player
from infra.signing import ReceiptSigner
from infra.sql.table_views import Projected


class TableEvents(Protocol):
    """A table's events, for folding its state (`FoldedStates`)."""

    def events_after(self, table_id: str, version: int, limit: int) -> list[RecordedEvent]:
        """The table's first `limit` events after `version`, in order."""
        ...

    def table_events(self, table_id: str, up_to_version: int | None = None) -> list[RecordedEvent]:
        """The events whose fold gives the table's state at `up_to_version` (default: the latest): the events
        before its first deal, then those from the `deal_ended` before its latest deal on (bounded cost)."""
        ...


class Seeds(Protocol):
    def seeds_for(self, table_id: str, deal_numbers: Iterable[int]) -> dict[int, bytes]:
        """The server seeds of the given deals (numbers from 1), making and storing any not made yet; a seed
        another writer stored first wins. Stored before the append that publishes its commitment."""
        ...


class SigningKeys(Protocol):
    def require_signing_key(self, signer: ReceiptSigner) -> None:
        """UnregisteredSigningKey unless the signer's public key is registered (only the owner registers)."""
        ...

    def signing_keys(self) -> list[dict[str, Any]]:
        """Every listed key, oldest first, as GET /v1/keys shows them."""
        ...


class Players(Protocol):
    def register_player(self, name: str) -> tuple[Player, str]:
        """A new player and its bearer token (only a hash of the token is kept)."""
        ...

    def player_for_token(self, token: str) -> Player | None: ...

    def players_by_id(self, ids: list[str]) -> dict[str, Player]: ...


class GuardedAppend(Protocol):
    def start_stream(self, stream_id: str, events: Sequence[NewEvent]) -> list[RecordedEvent]:
        """Append the first events of a new stream; VersionConflict when it has events."""
        ...

    def append_prepared(
        self, pending: PendingAppend, idempotency: IdempotencyRecord | None = None
    ) -> list[RecordedEvent]:
        """Record `pending` (from `prepare`) and the idempotency record with it, atomically, only while the
        stream's head is where `prepare` was told it is: else VersionConflict; a key taken in its scope is
        IdempotencyKeyTaken. Either refusal writes nothing."""
        ...


class ReadModels(Protocol):
    """What the application reads of the read models. Views are None when not projected: the caller folds."""

    def projected_table_view(self, table_id: str) -> Projected | None: ...

    def projected_seat_view(self, table_id: str, player_id: str) -> Projected | None: ...

    def lobby_rows(self, status: str | None, game: str | None, after: int, limit: int) -> list[dict[str, Any]]:
        """Up to `limit` tables ({"created_seq", "view"}) after `after` in creation order, of that status and
        game (None: any)."""
        ...

    def tables_with_turn_due(self, now: datetime, limit: int) -> list[str]:
        """Tables whose turn deadline has passed at `now`, most overdue first."""
        ...

    def tables_vacant_since(self, since: datetime, limit: int) -> list[str]:
        """Tables nobody has sat at since `since` or earlier, longest vacant first."""
        ...


class Session(TableEvents, Seeds, SigningKeys, Players, GuardedAppend, ReadModels, Protocol):
    """Every port on one connection; the application names it `conn`, the connection it stands for."""

    def transaction(self) -> AbstractContextManager[object]:
        """Calls inside commit together (PostgreSQL); in memory each call is atomic by itself."""
        ...


class Storage(Protocol):
    @property
    def store(self) -> EventStorage: ...

    def session(self) -> AbstractContextManager[Session]: ...
