"""A signed receipt survives the loss of the PostgreSQL primary and of the Redis primary.

Bots play at 8 tables through two API instances, keeping every receipt. Part way through, the PostgreSQL
primary's machine is lost (Patroni and the postmaster SIGKILLed), later the Redis primary; then the old
PostgreSQL node comes back and must rejoin as a standby (pg_rewind). At the end every receipt must be in the log
at its version with its hash, no action applied twice, every deal verify, every projection equal its rebuild.

`make test-ha` runs it and prints what it measured. CARDLEDGER_HA_STANDBY=async runs the same with an
asynchronous standby, by hand, to see what synchronous mode buys (docs/operations.md, "High availability").
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg.rows import dict_row

from infra.projections import NAMES
from infra.projections.checkpoint import checkpoint_name
from infra.receipts import OK, Receipt, parse_receipts
from services.app.audit.receipts import check_table_receipts
from services.cli.simulate.report import Stats
from services.cli.simulate.runner import SimulationResult, simulate
from services.projector.rebuild import rebuild
from tests.ha.cluster import BOT_TABLES, INSTALL_HINT, Folder, bots, missing_engines, running_shape, wait_for

pytestmark = pytest.mark.slow

SYNCHRONOUS = os.environ.get("CARDLEDGER_HA_STANDBY", "sync") != "async"
TABLES = BOT_TABLES
PLAY_SECONDS = 120.0  # no deal starts after this; the schedule of kills fits well inside it
ACTIONS_BETWEEN_STEPS = 40  # acknowledged actions seen between one fault and the next


class TimedStats(Stats):
    """The simulation's counters, plus when each acknowledged action was sent and answered."""

    def __init__(self, deals_requested: int) -> None:
        super().__init__(deals_requested=deals_requested)
        self.acknowledged: list[tuple[float, float]] = []

    def action(self, seconds: float) -> None:
        super().action(seconds)
        now = time.monotonic()
        self.acknowledged.append((now - seconds, now))

    def recovery_after(self, fault_at: float) -> float | None:
        """Seconds from `fault_at` to the end of the outage the bots saw: the first acknowledgement after the
        longest pause between acknowledgements that began before, or up to 5 s after, the fault (commits already
        on their way may still be acknowledged just after it). None when no action was acknowledged after it."""
        answers = sorted(answered for _, answered in list(self.acknowledged))
        after = [answered for answered in answers if answered >= fault_at]
        if not after:
            return None
        previous = max((answered for answered in answers if answered < fault_at), default=fault_at)
        longest, end = after[0] - previous, after[0]
        for before, answered in zip([previous, *after], after, strict=False):
            if before > fault_at + 5:
                break
            if answered - before > longest:
                longest, end = answered - before, answered
        return end - fault_at

    def wait_for_actions(self, more: int, timeout: float = 180) -> None:
        target = len(self.acknowledged) + more
        wait_for(lambda: len(self.acknowledged) >= target, timeout, f"{more} more acknowledged actions")


@dataclass
class Findings:
    receipts_checked: int = 0
    receipts_lost: list[dict[str, Any]] = field(default_factory=list)
    applied_twice: list[str] = field(default_factory=list)
    recovery_s: dict[str, float | None] = field(default_factory=dict)
    refused: Counter[str] = field(default_factory=Counter)


@pytest.fixture
def folder(request: pytest.FixtureRequest) -> Iterator[Folder]:
    """The shape's folder; kept, with every engine's log, when the test fails (or CARDLEDGER_HA_KEEP=1)."""
    missing = missing_engines()
    if missing:
        pytest.skip(f"the high-availability engines are missing ({', '.join(missing)}): {INSTALL_HINT}")
    path = Path(tempfile.mkdtemp(prefix="cardledger-ha-"))
    failed_before = request.session.testsfailed
    yield Folder(path)
    if request.session.testsfailed == failed_before and not os.environ.get("CARDLEDGER_HA_KEEP"):
        shutil.rmtree(path, ignore_errors=True)
    else:
        print(f"\nthe engines' logs are kept in {path}")


def test_no_acknowledged_action_is_lost_when_each_primary_dies(folder: Folder) -> None:
    with running_shape(folder, synchronous=SYNCHRONOUS) as shape:
        postgres, redis_shape, stack = shape.postgres, shape.redis, shape.stack
        stats = TimedStats(deals_requested=TABLES * 10_000)
        config = bots(
            stack,
            PLAY_SECONDS,
            turn_seconds=120,  # the bots play every turn; the clock must not race them after an outage
            receipts_path=folder.path / "receipts.json",
        )
        outcome: list[SimulationResult] = []
        playing = threading.Thread(target=lambda: outcome.append(simulate(config, stats=stats)), name="ha-bots")
        playing.start()
        findings = Findings()

        stats.wait_for_actions(ACTIONS_BETWEEN_STEPS)
        old_primary = postgres.primary()
        killed_at = time.monotonic()
        old_primary.kill()
        new_primary = postgres.primary()
        assert new_primary is not old_primary
        stats.wait_for_actions(ACTIONS_BETWEEN_STEPS)
        findings.recovery_s["postgresql primary"] = stats.recovery_after(killed_at)

        redis_primary = redis_shape.primary_port()
        assert redis_primary is not None
        killed_at = time.monotonic()
        redis_shape.kill(redis_primary)
        wait_for(lambda: redis_shape.primary_port() not in (None, redis_primary), 60, "the Sentinels' failover")
        stats.wait_for_actions(ACTIONS_BETWEEN_STEPS)
        findings.recovery_s["redis primary"] = stats.recovery_after(killed_at)

        old_primary.start()  # the lost machine is back: Patroni rewinds it and it follows the new primary
        postgres.wait_in_sync(timeout=180)
        members = {m["name"]: m for m in postgres.members()}
        assert members[old_primary.name]["role"] != "leader"
        assert members[old_primary.name]["timeline"] == members[new_primary.name]["timeline"]
        stats.wait_for_actions(ACTIONS_BETWEEN_STEPS)

        playing.join(timeout=PLAY_SECONDS + 300)
        assert not playing.is_alive(), "the bots did not finish"
        (result,) = outcome
        findings.refused = Counter(stats.errors)
        failed = {t.table_id: t.error for t in result.tables if t.failed}
        assert stack.exited() == {}, f"a cardledger process exited: {stack.exited()}"

        owner = postgres.url("postgres")
        check_receipts(owner, result, findings)
        report(findings, stats, result)
        assert not failed, f"tables failed: {failed}"
        if SYNCHRONOUS:
            assert findings.receipts_lost == [], findings.receipts_lost[:5]
        assert findings.applied_twice == [], findings.applied_twice
        assert findings.receipts_checked >= ACTIONS_BETWEEN_STEPS * 4

        verified = stack.command("verify", "--all")
        assert verified.returncode == 0, verified.stdout[-2000:] + verified.stderr
        wait_for(lambda: projections_caught_up(owner), 120, "the projections to reach the end of the log")
        reports = rebuild(owner, None, progress=False)
        assert all(r.equal for r in reports), [r.summary() for r in reports]


def check_receipts(owner_url: str, result: SimulationResult, findings: Findings) -> None:
    """Each receipt the bots hold against the log (through the owner's connection to the primary of now), and
    each table's idempotency records against the actions its bots saw acknowledged."""
    by_table: dict[str, list[Receipt]] = defaultdict(list)
    for receipt in parse_receipts([raw for table in result.tables for raw in table.receipts]):
        by_table[receipt.table_id].append(receipt)
    with psycopg.connect(owner_url, autocommit=True, row_factory=dict_row) as conn:
        for table in result.tables:
            receipts = by_table.get(str(table.table_id), [])
            if not receipts:
                continue
            _, checks = check_table_receipts(conn, str(table.table_id), receipts)
            findings.receipts_checked += len(checks)
            findings.receipts_lost += [check.to_json() for check in checks if check.verdict != OK]
            versions = [receipt.version for receipt in receipts]
            if len(set(versions)) != len(versions):
                findings.applied_twice.append(f"table {table.table_id}: two receipts for one version")
            row = conn.execute(
                "SELECT count(*) AS n FROM idempotency_keys WHERE stream_id = %s", (table.table_id,)
            ).fetchone()
            recorded = int(row["n"]) if row else 0
            if not table.failed and recorded != table.actions:
                findings.applied_twice.append(
                    f"table {table.table_id}: {recorded} keyed writes recorded, {table.actions} acknowledged"
                )


def projections_caught_up(owner_url: str) -> bool:
    with psycopg.connect(owner_url, autocommit=True) as conn:
        head = conn.execute("SELECT coalesce(max(global_position), 0) FROM events").fetchone()
        names = [checkpoint_name(name) for name in NAMES]
        rows = conn.execute("SELECT global_position FROM log_positions WHERE name = ANY(%s)", (names,)).fetchall()
    return head is not None and len(rows) == len(names) and all(row[0] >= head[0] for row in rows)


def report(findings: Findings, stats: TimedStats, result: SimulationResult) -> None:
    mode = "synchronous" if SYNCHRONOUS else "asynchronous"
    lines = [
        f"high availability, {mode} standby: {len(stats.acknowledged)} actions acknowledged at {TABLES} tables",
        f"  receipts checked: {findings.receipts_checked}",
        f"  receipts lost:    {len(findings.receipts_lost)}",
        f"  applied twice:    {len(findings.applied_twice)}",
    ]
    for fault, seconds in findings.recovery_s.items():
        shown = "no action after it" if seconds is None else f"{seconds:.1f} s"
        lines.append(f"  recovery after killing the {fault}: {shown}")
    refused = ", ".join(f"{code} {n}" for code, n in findings.refused.most_common()) or "none"
    lines.append(f"  refused and retried: {refused}")
    lines.append(f"  deals completed: {result.summary['deals_completed']}, failed: {result.summary['deals_failed']}")
    print("\n" + "\n".join(lines))
