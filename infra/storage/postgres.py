"""The application's storage on PostgreSQL, the production store: each port method is one of the SQL functions
of infra/ (players, seeds, signing keys, the table loader, the read models, the event store's guarded append)
run on the session's pooled connection."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from types import TracebackType
from typing import Any

from psycopg_pool import ConnectionPool

from infra import players as player_rows
from infra import seeds as seed_rows
from infra import signing
from infra.db import Conn
from infra.event_store import EventStore, IdempotencyRecord, NewEvent, PendingAppend, RecordedEvent
from infra.players import Player
from infra.signing import ReceiptSigner
from infra.sql import table_views
from infra.sql.table_views import Projected
from infra.table_loader import TableEventRows


class PostgresSession(TableEventRows):
    """Every port on one connection (autocommit: a call is one statement, unless `transaction()` is open)."""

    __slots__ = ("store",)

    def __init__(self, conn: Conn, store: EventStore) -> None:
        self.conn = conn
        self.store = store

    def transaction(self) -> AbstractContextManager[object]:
        return self.conn.transaction()

    def seeds_for(self, table_id: str, deal_numbers: Iterable[int]) -> dict[int, bytes]:
        return seed_rows.seeds_for(self.conn, table_id, deal_numbers)

    def require_signing_key(self, signer: ReceiptSigner) -> None:
        signing.require_registered(self.conn, signer)

    def signing_keys(self) -> list[dict[str, Any]]:
        return signing.public_keys(self.conn)

    def register_player(self, name: str) -> tuple[Player, str]:
        return player_rows.register(self.conn, name)

    def player_for_token(self, token: str) -> Player | None:
        return player_rows.player_for_token(self.conn, token)

    def players_by_id(self, ids: list[str]) -> dict[str, Player]:
        return player_rows.players_by_id(self.conn, ids)

    def start_stream(self, stream_id: str, events: Sequence[NewEvent]) -> list[RecordedEvent]:
        return self.store.append_in(self.conn, stream_id, 0, events)

    def append_prepared(
        self, pending: PendingAppend, idempotency: IdempotencyRecord | None = None
    ) -> list[RecordedEvent]:
        return self.store.append_prepared(self.conn, pending, idempotency)

    def projected_table_view(self, table_id: str) -> Projected | None:
        return table_views.projected_table_view(self.conn, table_id)

    def projected_seat_view(self, table_id: str, player_id: str) -> Projected | None:
        return table_views.projected_seat_view(self.conn, table_id, player_id)

    def lobby_rows(self, status: str | None, game: str | None, after: int, limit: int) -> list[dict[str, Any]]:
        return table_views.lobby_rows(self.conn, status, game, after, limit)

    def tables_with_turn_due(self, now: datetime, limit: int) -> list[str]:
        return table_views.tables_with_turn_due(self.conn, now, limit)

    def tables_vacant_since(self, since: datetime, limit: int) -> list[str]:
        return table_views.tables_vacant_since(self.conn, since, limit)


class _Checkout:
    """A pooled connection for the length of a `with`, as `pool.connection()` gives it, seen as a session."""

    __slots__ = ("_pool", "_store", "_using")

    def __init__(self, pool: ConnectionPool[Conn], store: EventStore) -> None:
        self._pool, self._store = pool, store

    def __enter__(self) -> PostgresSession:
        self._using = self._pool.connection()
        return PostgresSession(self._using.__enter__(), self._store)

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> bool | None:
        return self._using.__exit__(kind, error, traceback)


class PostgresStorage:
    def __init__(self, pool: ConnectionPool[Conn], store: EventStore | None = None) -> None:
        self.pool = pool
        self._store = store if store is not None else EventStore(pool)

    @property
    def store(self) -> EventStore:
        return self._store

    def session(self) -> _Checkout:
        return _Checkout(self.pool, self._store)
