"""PostgreSQL's own work for a window of a bench, counted: the CPU seconds of some backends (/proc: in user mode
and in the kernel's, apart), and the WAL
of the window's database (pg_walinspect) by relation, with the heap rows it inserted and updated.

`bench.action_cost --database` uses it around its posted actions, on the API's pooled connections: the write
path's cost in the database, without the relay's or the projections' (they do not run there).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg

from bench.scaling import CLK_TCK, hold_wal

# Heap records that write a row: an insert (one per row, or a multi-insert of several) or a new row version.
_ROW_RECORDS = {"INSERT": "inserted", "INSERT+INIT": "inserted", "UPDATE": "updated", "HOT_UPDATE": "updated"}


@dataclass
class DatabaseCost:
    cpu_seconds: float
    wal_bytes: int
    fpi_bytes: int
    by_relation: Counter[str] = field(default_factory=Counter)  # WAL bytes by the relation a record touches first
    rows: Counter[str] = field(default_factory=Counter)  # "relation inserted" / "relation updated" -> rows
    kernel_seconds: float = 0.0  # the part of cpu_seconds spent in the kernel (stime): syscalls, the WAL's flushes

    def report(self, actions: int) -> list[str]:
        cpu, wal, fpi = self.cpu_seconds / actions, self.wal_bytes / actions, self.fpi_bytes / actions
        lines = [
            f"  PostgreSQL CPU seconds of the pooled backends per action (timed, noisy): {cpu:.6f}",
            f"    of which in the kernel (stime): {self.kernel_seconds / actions:.6f}",
            f"  WAL bytes per action: {wal:,.0f} (full-page images {fpi:,.0f})",
        ]
        lines += [f"    {relation}: {n / actions:,.0f}" for relation, n in self.by_relation.most_common()]
        lines.append(f"  heap rows written per action: {sum(self.rows.values()) / actions:.2f}")
        lines += [f"    {what}: {n / actions:.2f}" for what, n in sorted(self.rows.items())]
        return lines


class Window:
    """Open with `start`, close with `stop`: the cost of what `pids` (backends of `database_url`) did between."""

    def __init__(self, database_url: str, pids: list[int]) -> None:
        self.pids = pids
        self.conn: psycopg.Connection[Any] = psycopg.connect(database_url, autocommit=True)
        self.conn.execute("CREATE EXTENSION IF NOT EXISTS pg_walinspect")
        hold_wal(self.conn)
        self._cpu = (0.0, 0.0)
        self._lsn = ""

    def _cpu_now(self) -> tuple[float, float]:
        """(utime + stime, stime) of the backends, in seconds."""
        total = kernel = 0
        for pid in self.pids:
            try:
                text = Path(f"/proc/{pid}/stat").read_text()
            except OSError:
                continue  # gone
            fields = text[text.rindex(")") + 2 :].split()  # the command name may hold spaces
            total += int(fields[11]) + int(fields[12])
            kernel += int(fields[12])
        return total / CLK_TCK, kernel / CLK_TCK

    def _lsn_now(self) -> str:
        row = self.conn.execute("SELECT pg_current_wal_lsn()::text").fetchone()
        assert row is not None
        return str(row[0])

    def start(self) -> None:
        self._lsn = self._lsn_now()
        self._cpu = self._cpu_now()

    def stop(self) -> DatabaseCost:
        (total, kernel), (total_before, kernel_before) = self._cpu_now(), self._cpu
        end = self._lsn_now()
        oid = self.conn.execute("SELECT oid FROM pg_database WHERE datname = current_database()").fetchone()
        assert oid is not None
        records = self.conn.execute(
            """SELECT r.record_type, r.record_length, r.fpi_length,
                      coalesce(c.relname, substring(r.block_ref FROM %(first)s)) AS relation
               FROM pg_get_wal_records_info(%(start)s::pg_lsn, %(end)s::pg_lsn) AS r
               LEFT JOIN pg_class AS c ON c.relfilenode = substring(r.block_ref FROM %(first)s)::oid
               WHERE r.block_ref LIKE %(pattern)s""",
            {
                "start": self._lsn,
                "end": end,
                "pattern": f"%rel %/{oid[0]}/%",
                "first": f"rel [0-9]+/{oid[0]}/([0-9]+)",
            },
        ).fetchall()
        cost = DatabaseCost(total - total_before, 0, 0, kernel_seconds=kernel - kernel_before)
        for record_type, length, fpi, relation in records:
            cost.wal_bytes += length
            cost.fpi_bytes += fpi
            cost.by_relation[relation] += length
            written = _ROW_RECORDS.get(record_type)
            if written is not None:
                cost.rows[f"{relation} {written}"] += 1
        self.conn.close()
        return cost
