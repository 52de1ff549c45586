"""`CardLedger`: the one application service the API, the clock and the CLI call for tables and players.

It wires the parts (identity, the table commands of `commands`, the table queries of `queries`) over one
storage (`infra.storage`: PostgreSQL's in production, or the in-memory one in tests), one folded-state cache,
one player cache and one record of withheld hashes, and offers their operations.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.events import JSON
from domain.table import TableState
from infra.config import CacheSizes
from infra.signing import ReceiptSigner
from services.app.answers import WithheldHashes
from services.app.caches import KnownPlayers
from services.app.callers import Caller
from services.app.commands import TableCommands
from services.app.folded_states import FoldedStates
from services.app.identity import Identity
from services.app.ports import Storage
from services.app.queries import TableQueries
from services.app.view_reads import SeatViewReads, TableViewReads


class CardLedger:
    def __init__(
        self,
        storage: Storage,
        auditor_token: str | None,
        signer: ReceiptSigner | None = None,
        states: FoldedStates | None = None,
        caches: CacheSizes | None = None,
    ) -> None:
        """`caches` bounds every cache this service keeps (`states`, when given, is sized by its maker)."""
        caches = caches if caches is not None else CacheSizes()
        self.storage = storage
        self.store = storage.store
        # Signs the receipt of every write (infra/signing.py); bootstrap passes the configured key.
        self.signer = signer if signer is not None else ReceiptSigner.ephemeral()
        self.states = states if states is not None else FoldedStates(caches.tables)
        self.withheld = WithheldHashes(self.store, caches.deals)
        self.players = players = KnownPlayers(caches.players)
        self.identity = Identity(storage, auditor_token, players)
        self.commands = TableCommands(storage, self.signer, self.states, self.withheld, caches.seeds, caches.tables)
        self.queries = TableQueries(storage, self.states, self.withheld, players)
        self.seeds = self.commands.seeds

    def forget_what_it_read(self) -> None:
        """Drop every cache of what the database said (states, seeds, players, withheld deals): called when the
        database server was lost, since the server that takes over may hold less than the one that told us
        (docs/operations.md, "High availability"), and deciding on a state it no longer has breaks the table."""
        self.states.clear()
        self.commands.forget_what_it_read()
        self.withheld.clear()
        self.players.clear()

    # Commands
    def open_table(self, caller: Caller, game: str, seats: int, options: Mapping[str, Any]) -> dict[str, JSON]:
        table_id, receipt = self.commands.open_table(caller, game, seats, options)
        return {**self.queries.table_view(table_id), "receipt": receipt}

    def sit(
        self,
        caller: Caller,
        table_id: str,
        seat: int | None,
        client_seed: str | None,
        with_view: bool = False,
    ) -> dict[str, JSON]:
        """Sit down; `with_view` adds the caller's seat view after the write (`view`), from the state it folded."""
        answer, state = self.commands.sit(caller, table_id, seat, client_seed)
        return self._with_view(answer, caller, table_id, state) if with_view else answer

    def act(
        self,
        caller: Caller,
        table_id: str,
        action: Mapping[str, Any],
        idempotency_key: str,
        if_match: int | None,
        with_view: bool = False,
    ) -> dict[str, JSON]:
        """Act; `with_view` adds the caller's seat view (`view`): at the write's version, from the state it
        folded, or for a replayed answer the view now (a replay knows no state of the first answer's moment).
        No `view` when the caller has no seat after the write (it left)."""
        answer, state = self.commands.act(caller, table_id, action, idempotency_key, if_match)
        return self._with_view(answer, caller, table_id, state) if with_view else answer

    def _with_view(
        self, answer: dict[str, JSON], caller: Caller, table_id: str, state: TableState | None
    ) -> dict[str, JSON]:
        view = self.queries.seat_view_at(caller, table_id, state)
        return answer if view is None else {**answer, "view": view}

    def seat_view_reads(self, caller: Caller, table_id: str) -> SeatViewReads:
        """The caller's seat view now, and the state this process keeps of the table (a long-poll's reads)."""
        return SeatViewReads(self.queries, caller, table_id)

    def table_view_reads(self, table_id: str) -> TableViewReads:
        """The public table state now, and the state this process keeps of the table (a long-poll's reads)."""
        return TableViewReads(self.queries, table_id)
