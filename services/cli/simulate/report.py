"""Counting what a simulation did, the live progress bar, and the closing table."""

from __future__ import annotations

import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, TextIO


def percentile(values: list[float], q: float) -> float | None:
    """The q-quantile (0..1) by nearest rank; None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


@dataclass
class TableResult:
    index: int
    table_id: str | None = None
    deals_completed: int = 0
    actions: int = 0
    version: int = 0
    status: str | None = None
    failed: bool = False
    error: str | None = None
    verified: bool | None = None
    timed_out: int = 0  # actions the service's turn clock took at this table
    receipts: list[dict[str, Any]] = field(default_factory=list)  # every receipt its writes answered with

    def to_json(self) -> dict[str, Any]:
        return {name: value for name, value in self.__dict__.items() if name != "receipts"} | {
            "receipts": len(self.receipts)
        }


@dataclass
class Stats:
    """Shared by every player thread; every method takes the lock."""

    deals_requested: int
    started: float = field(default_factory=time.monotonic)
    finished: float | None = None
    actions: int = 0
    requests: int = 0
    deals_completed: int = 0
    deals_failed: int = 0
    timed_out_actions: int = 0
    tables_started: int = 0  # tables opened and seated
    latencies_ms: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    retried: Counter[str] = field(default_factory=Counter)
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def request(self) -> None:
        with self.lock:
            self.requests += 1

    def table_started(self) -> None:
        with self.lock:
            self.tables_started += 1

    def action(self, seconds: float) -> None:
        with self.lock:
            self.actions += 1
            self.latencies_ms.append(seconds * 1000)

    def error(self, code: str, retried: bool = False) -> None:
        with self.lock:
            self.errors[code] += 1
            if retried:
                self.retried[code] += 1

    def timed_out(self, count: int) -> None:
        with self.lock:
            self.timed_out_actions += count

    def deal(self, ok: bool) -> None:
        with self.lock:
            if ok:
                self.deals_completed += 1
            else:
                self.deals_failed += 1

    def elapsed(self) -> float:
        return (self.finished or time.monotonic()) - self.started

    def summary(self) -> dict[str, Any]:
        with self.lock:
            elapsed = self.elapsed()
            latencies = list(self.latencies_ms)
            return {
                "deals_requested": self.deals_requested,
                "deals_completed": self.deals_completed,
                "deals_failed": self.deals_failed,
                "actions": self.actions,
                "timed_out_actions": self.timed_out_actions,
                "requests": self.requests,
                "elapsed_s": elapsed,
                "actions_per_s": self.actions / elapsed if elapsed > 0 else 0.0,
                "requests_per_s": self.requests / elapsed if elapsed > 0 else 0.0,
                "latency_ms": {
                    "p50": percentile(latencies, 0.50),
                    "p95": percentile(latencies, 0.95),
                    "p99": percentile(latencies, 0.99),
                    "max": max(latencies) if latencies else None,
                },
                "errors": dict(self.errors),
                "retried": dict(self.retried),
            }


class ProgressBar:
    """A one-line bar on a terminal (redrawn every `interval`), or a plain line every 10 s on anything else."""

    def __init__(
        self,
        stats: Stats,
        out: TextIO | None = None,
        width: int = 30,
        interval: float = 0.25,
        duration: float | None = None,
    ) -> None:
        self.stats, self.width, self.duration = stats, width, duration
        self.out = out if out is not None else sys.stderr
        self.tty = self.out.isatty()
        self.interval = interval if self.tty else 10.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="simulate-progress", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self.draw(final=True)

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self.draw()

    def line(self) -> str:
        s = self.stats
        with s.lock:
            done, failed, total, actions, errors = (
                s.deals_completed,
                s.deals_failed,
                s.deals_requested,
                s.actions,
                sum(s.errors.values()),
            )
        elapsed = s.elapsed()
        fraction = min(1.0, (done + failed) / total) if total else 1.0
        if self.duration:  # a time-bounded run ends at its duration, long before its deals would
            fraction = max(fraction, min(1.0, elapsed / self.duration))
        filled = int(self.width * fraction)
        bar = "#" * filled + "-" * (self.width - filled)
        rate = actions / elapsed if elapsed > 0 else 0.0
        failures = f", {failed} failed" if failed else ""
        return (
            f"[{bar}] {done}/{total} deals{failures}  {actions} actions  {rate:,.1f} actions/s  "
            f"{errors} errors  {elapsed:,.0f} s"
        )

    def draw(self, final: bool = False) -> None:
        text = self.line()
        if self.tty:
            self.out.write("\r\x1b[2K" + text + ("\n" if final else ""))
        else:
            self.out.write(text + "\n")
        self.out.flush()


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:,.1f}"


def closing_table(title: str, summary: dict[str, Any], tables: list[TableResult]) -> str:
    latency = summary["latency_ms"]
    rows = [
        ("deals completed", f"{summary['deals_completed']} / {summary['deals_requested']}"),
        ("deals failed", str(summary["deals_failed"])),
        ("actions", str(summary["actions"])),
        ("timed-out actions (the turn clock)", str(summary.get("timed_out_actions", 0))),
        ("HTTP requests (all)", str(summary["requests"])),
        ("elapsed", f"{summary['elapsed_s']:,.1f} s"),
        ("actions/s", f"{summary['actions_per_s']:,.1f}"),
        ("requests/s", f"{summary['requests_per_s']:,.1f}"),
        ("action POST latency p50", f"{_ms(latency['p50'])} ms"),
        ("action POST latency p95", f"{_ms(latency['p95'])} ms"),
        ("action POST latency p99", f"{_ms(latency['p99'])} ms"),
        ("action POST latency max", f"{_ms(latency['max'])} ms"),
    ]
    errors: dict[str, int] = summary["errors"]
    retried: dict[str, int] = summary["retried"]
    if errors:
        for code, count in sorted(errors.items(), key=lambda item: (-item[1], item[0])):
            note = f" ({retried[code]} retried)" if retried.get(code) else ""
            rows.append((f"errors: {code}", f"{count}{note}"))
    else:
        rows.append(("errors", "none"))
    verified = [t for t in tables if t.verified is not None]
    if verified:
        rows.append(("tables verified (auditor)", f"{sum(bool(t.verified) for t in verified)} / {len(verified)}"))
    width = max(len(name) for name, _ in rows)
    lines = [title, "-" * len(title)]
    lines += [f"{name:<{width}}  {value}" for name, value in rows]
    for table in tables:
        if table.failed:
            lines.append(f"FAILED table #{table.index} {table.table_id or '(not created)'}: {table.error}")
    return "\n".join(lines)
