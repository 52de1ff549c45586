"""A projection: a name, the tables of its read model (with their canonical dump order) and its apply step."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from infra.db import Conn
from infra.event_store import RecordedEvent
from infra.projections.heads import ProjectionCaches

Apply = Callable[[Conn, list[RecordedEvent], ProjectionCaches], None]
Rows = Callable[[Conn, list[RecordedEvent], ProjectionCaches], str | None]
Idle = Callable[[list[RecordedEvent]], bool]


@dataclass(frozen=True)
class Upsert:
    """A projection whose whole write for a batch is one statement taking the batch's rows as one jsonb array:
    `rows` makes the array's text (None when the batch has none), `statement` is the INSERT with `{rows}` where
    its jsonb goes, and each of `also` another INSERT or UPDATE (of another table) taking the same rows, in
    the same statement. The round's one statement (`infra.projections.round_statement`) takes it in."""

    rows: Rows
    statement: str
    also: tuple[str, ...] = ()  # more statements taking the same rows, run beside `statement` (writable CTEs)

    def alone(self) -> str:
        """The write as one statement with the rows as its one parameter."""
        if not self.also:
            return self.statement.replace("{rows}", "%s::jsonb")
        taken = "(SELECT rows FROM batch)"
        also = [f"also_{index} AS ({other.replace('{rows}', taken)})" for index, other in enumerate(self.also)]
        return f"WITH batch AS (SELECT %s::jsonb AS rows), {', '.join(also)}\n{self.statement.replace('{rows}', taken)}"


@dataclass(frozen=True)
class ModelTable:
    """A table of a read model; `columns` and `order_by` make its canonical dump (for digests)."""

    name: str
    columns: str
    order_by: str


@dataclass(frozen=True)
class Projection:
    name: str
    tables: tuple[ModelTable, ...]
    apply: Apply  # applies one batch of the log inside the caller's transaction, with the caller's caches
    upsert: Upsert | None = None  # `apply` as rows and one statement, when it is no more than that
    idle_for: Idle | None = None  # whether `apply` writes nothing for a batch (None: it may write for any)
