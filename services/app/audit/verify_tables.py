"""`verify_tables`: every deal of one table or of all tables, for `cardledger verify [--table ID] [--all]`.

Each table's stream is read once, in batches, walking the hash chain; each
finished deal gets the full check of `services.app.audit.verify` (commitment,
deck, replay), a running deal its chain. Failures name the table, the deal
(None for events outside any deal, such as seatings, and for the stream head),
the event version and the reason.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import IO, Any

from psycopg_pool import ConnectionPool

from domain.events import JSON
from domain.table import DEAL_ENDED, DEAL_STARTED
from infra.db import Conn
from infra.event_store import RecordedEvent
from infra.sql.deal_events import table_stream_ids
from infra.sql.deal_seeds import stored_seeds
from services.app.audit.verify import CHAIN, ChainWalker, DealVerification, check_with_state, iter_stream


@dataclass(frozen=True, slots=True)
class VerifyFailure:
    table_id: str
    deal_no: int | None  # None: an event outside any deal (opening, seating) or the stream head
    version: int | None
    reason: str

    def to_json(self) -> dict[str, JSON]:
        return {"table_id": self.table_id, "deal_no": self.deal_no, "version": self.version, "reason": self.reason}


@dataclass(slots=True)
class VerifySummary:
    tables: int = 0
    deals: int = 0  # deals checked (ended ones fully, a running one for its chain)
    failures: list[VerifyFailure] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures

    def to_json(self) -> dict[str, JSON]:
        return {
            "tables": self.tables,
            "deals": self.deals,
            "ok": self.ok,
            "failures": [f.to_json() for f in self.failures],
        }

    def __str__(self) -> str:
        return self.render()

    def render(self) -> str:
        """A few lines for a terminal."""
        lines = [f"verified {self.tables} table(s), {self.deals} deal(s): {len(self.failures)} failure(s)"]
        lines += [
            f"FAIL table {f.table_id} deal {f.deal_no if f.deal_no is not None else '-'} "
            f"version {f.version if f.version is not None else '-'}: {f.reason}"
            for f in self.failures
        ]
        return "\n".join(lines)


def verify_table(conn: Conn, table_id: str) -> tuple[int, list[VerifyFailure]]:
    """Every deal of one table, in one pass over its stream. Returns (deals checked, failures)."""
    walker = ChainWalker(table_id)
    seeds = stored_seeds(conn, table_id)
    failures: list[VerifyFailure] = []
    deals = 0
    current: list[RecordedEvent] = []
    deal_no: int | None = None
    chain_seen = 0

    def chain_failures(owner: int | None) -> None:
        nonlocal chain_seen
        for problem in walker.problems[chain_seen:]:
            failures.append(VerifyFailure(table_id, owner, problem.version, f"{CHAIN}: {problem.reason}"))
        chain_seen = len(walker.problems)

    for event in iter_stream(conn, table_id):
        walker.feed(event)
        if event.type == DEAL_STARTED:
            deal_no, current = event.deal_no, []
        chain_failures(deal_no)
        if deal_no is None:
            continue
        current.append(event)
        if event.type == DEAL_ENDED:
            deals += 1
            verdict = DealVerification(table_id, deal_no, ended=True)
            check_with_state(conn, verdict, current, seeds)
            failures += [
                VerifyFailure(table_id, deal_no, p.version, f"{p.check}: {p.reason}") for p in verdict.problems
            ]
            deal_no, current = None, []
    if deal_no is not None:
        deals += 1  # the running deal: its chain was checked above
    walker.check_head(conn)
    chain_failures(deal_no)
    if not walker.last_version:
        failures.append(VerifyFailure(table_id, None, None, f"table {table_id} has no events"))
    return deals, failures


def verify_tables(pool: ConnectionPool[Any], table_id: str | None, progress: bool) -> VerifySummary:
    """Re-check every deal of one table (`table_id`) or of all tables (None): seed, deck, chain, replay.

    For the CLI `cardledger verify [--table ID] [--all]`: print `summary.render()` (or
    `json.dumps(summary.to_json())`) and exit non-zero when `not summary.ok`. With `progress`,
    a progress bar is drawn on stderr. An unknown `table_id` is reported as a failure.
    """
    summary = VerifySummary()
    with pool.connection() as conn:
        ids = [table_id] if table_id is not None else table_stream_ids(conn)
    bar = _ProgressBar(len(ids), sys.stderr) if progress else None
    for tid in ids:
        with pool.connection() as conn:
            deals, failures = verify_table(conn, tid)
        summary.tables += 1
        summary.deals += deals
        summary.failures += failures
        if bar is not None:
            bar.step(summary)
    if bar is not None:
        bar.done()
    return summary


class _ProgressBar:
    WIDTH = 30

    def __init__(self, total: int, out: IO[str]) -> None:
        self.total = max(total, 1)
        self.out = out
        self.count = 0

    def step(self, summary: VerifySummary) -> None:
        self.count += 1
        filled = self.WIDTH * self.count // self.total
        self.out.write(
            f"\rverify [{'#' * filled}{'.' * (self.WIDTH - filled)}] {self.count}/{self.total} tables, "
            f"{summary.deals} deals, {len(summary.failures)} failures"
        )
        self.out.flush()

    def done(self) -> None:
        self.out.write("\n")
        self.out.flush()
