"""Projection workers (RQ + polling fallback), their job functions, and rebuilds from the log."""

from services.projector.rebuild import RebuildReport, catch_up, digest, rebuild
from services.projector.worker import run_worker

__all__ = ["RebuildReport", "catch_up", "digest", "rebuild", "run_worker"]
