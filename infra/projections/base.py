"""A projection: a name, the tables of its read model (with their canonical dump order) and its apply step."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from infra.db import Conn
from infra.event_store import RecordedEvent
from infra.projections.heads import ProjectionCaches

Apply = Callable[[Conn, list[RecordedEvent], ProjectionCaches], None]


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
