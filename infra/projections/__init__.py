"""Read models built from the global log: table views (with each seat's own part of its view), tricks per hand,
the ledger, settlements per player and table, and settlements per deal and account (the settlement report's).

`catch_up(conn, name)` applies the log after the projection's checkpoint, in
batches, exactly once (see `infra.projections.runner`); `digest(conn, name)`
hashes a model's canonical dump, so a rebuild can be compared with the live one.
"""

from infra.projections.base import ModelTable, Projection
from infra.projections.checkpoint import checkpoint_name
from infra.projections.heads import ProjectionCaches
from infra.projections.runner import (
    BATCH_SIZE,
    NAMES,
    PROJECTIONS,
    Checkpoints,
    catch_up,
    catch_up_all,
    digest,
    projection_named,
)

__all__ = [
    "BATCH_SIZE",
    "NAMES",
    "PROJECTIONS",
    "Checkpoints",
    "ModelTable",
    "Projection",
    "ProjectionCaches",
    "catch_up",
    "catch_up_all",
    "checkpoint_name",
    "digest",
    "projection_named",
]
