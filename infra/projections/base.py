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
    its jsonb goes. The round's one statement (`infra.projections.round_statement`) takes it in."""

    rows: Rows
    statement: str


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
