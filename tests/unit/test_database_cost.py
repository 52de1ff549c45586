"""bench.database_cost reads the backends' CPU from /proc, the kernel's part apart."""

from __future__ import annotations

import os

from bench.database_cost import DatabaseCost, Window


def test_the_cpu_of_processes_is_read_with_its_kernel_part_and_gone_ones_are_skipped() -> None:
    window = Window.__new__(Window)  # no database: only the /proc reading
    window.pids = [os.getpid(), 2**22 + 1]  # this process, and a pid above Linux's limit (no such process)
    before = window._cpu_now()
    sum(n * n for n in range(2_000_000))  # some CPU in user mode
    os.stat(".")
    total, kernel = window._cpu_now()
    assert total > before[0]
    assert 0 <= kernel <= total


def test_the_report_gives_the_kernel_part_per_action() -> None:
    lines = DatabaseCost(0.003, 3_000, 0, kernel_seconds=0.0012).report(actions=3)
    assert "  PostgreSQL CPU seconds of the pooled backends per action (timed, noisy): 0.001000" in lines
    assert "    of which in the kernel (stime): 0.000400" in lines
