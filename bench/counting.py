"""Counting instead of timing: callgrind instructions, CPU seconds per process (/proc), the stack's processes by
kind, PostgreSQL backends, Redis commands sent (SQL round trips: `tests.round_trips`), the WAL held for reading."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import threading
from collections import Counter
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Any

from bench.harness import ROOT
from infra.db import application_name

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")

# Callgrind -----------------------------------------------------------------------------------------------------------


def totals(path: Path) -> int:
    """The total instructions of one callgrind output file."""
    for line in path.read_text(errors="replace").splitlines():
        if line.startswith("totals:") or line.startswith("summary:"):
            return int(line.split()[1])
    raise ValueError(f"no totals in {path}")


def callgrind(command: list[str], cwd: Path = ROOT) -> tuple[int, str]:
    """callgrind's total for `command` (every thread and child process), run with PYTHONHASHSEED=0 (the same
    dict and set orders in every run), and its stdout."""
    with tempfile.TemporaryDirectory(prefix="cardledger-callgrind-") as scratch:
        out = Path(scratch) / "callgrind.out"
        full = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *command]
        env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONPATH": str(cwd)}
        done = subprocess.run(full, cwd=cwd, env=env, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(full)} exited with {done.returncode}: {done.stderr[-2000:]}")
        return sum(totals(path) for path in Path(scratch).glob("callgrind.out*")), done.stdout


def module_instructions(module: str, args: list[str]) -> int:
    """callgrind's total for `python -m module args...`, from the project's root."""
    return callgrind([sys.executable, "-m", module, *args])[0]


# Processes and their CPU ---------------------------------------------------------------------------------------------


def proc_file(pid: int | str, name: str) -> str:
    """The text of /proc/PID/NAME, or "" when the process is gone."""
    try:
        return Path(f"/proc/{pid}/{name}").read_bytes().decode(errors="replace")
    except OSError:
        return ""


def _stat(pid: int) -> list[str] | None:
    text = proc_file(pid, "stat")
    return text[text.rindex(")") + 2 :].split() if text else None  # after "pid (comm) ": state, ppid, ...


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU seconds of `pid` so far, or None when it is gone."""
    fields = _stat(pid)
    return None if fields is None else (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def command_line(pid: int) -> str:
    return proc_file(pid, "cmdline").replace("\0", " ").strip()


def descendants(root: int) -> list[int]:
    """`root` and every process below it."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (fields := _stat(int(entry.name))) is not None:
            children.setdefault(int(fields[1]), []).append(int(entry.name))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo += children.get(pid, [])
    return found


API_WORKER, PROJECTION_WORKER, RELAY, GUNICORN_MASTER, SUPERVISOR = KINDS = (
    "API worker (gunicorn)",
    "projection worker",
    "relay",
    "gunicorn master",
    "supervisor (cardledger up)",
)


def stack_kinds(root: int) -> dict[int, str]:
    """The kind of every process of a `cardledger up` stack whose supervisor is `root` (KINDS)."""
    kinds = {}
    for pid in descendants(root):
        command, fields = command_line(pid), _stat(pid)
        if "gunicorn" in command:
            kinds[pid] = GUNICORN_MASTER if fields is not None and int(fields[1]) == root else API_WORKER
        elif command.endswith(" worker"):
            kinds[pid] = PROJECTION_WORKER
        elif command.endswith(" relay"):
            kinds[pid] = RELAY
        else:
            kinds[pid] = SUPERVISOR
    return kinds


def stack_cpu_seconds(root: int) -> dict[str, float]:
    """CPU seconds so far of a stack's processes, by kind."""
    spent: dict[str, float] = {}
    for pid, kind in stack_kinds(root).items():
        spent[kind] = spent.get(kind, 0.0) + (cpu_seconds(pid) or 0.0)
    return spent


BACKEND_OWNER = {
    application_name("api"): "api",
    application_name("relay"): "relay",
    application_name("projector"): "worker",
}


def backends(conn: Any) -> dict[int, str]:
    """The backends of `conn`'s database (other than its own) with their application_name, when they are processes
    of this machine (a server in a container or elsewhere reports pids that are not ours)."""
    from psycopg.rows import tuple_row

    found = conn.cursor(row_factory=tuple_row).execute(
        "SELECT pid, application_name FROM pg_stat_activity WHERE datname = current_database()"
        " AND pid <> pg_backend_pid()"
    )
    return {int(pid): str(name) for pid, name in found if proc_file(int(pid), "comm").strip() == "postgres"}


class CpuMeter:
    """CPU seconds by label over a window. `processes()` names the processes to count ({pid: label}); they are read
    at `start`, at each `sample` (every `every` seconds on a thread of its own, when given) and at `stop`, each
    pid's last reading kept: a process that dies within the window counts up to its last reading, one that
    appears within it counts from zero."""

    def __init__(self, processes: Callable[[], dict[int, Hashable]], every: float | None = None) -> None:
        self.processes, self.every = processes, every
        self.first: dict[int, float] = {}
        self.last: dict[int, tuple[Hashable, float]] = {}
        self.stopping = threading.Event()
        self.thread: threading.Thread | None = None

    def sample(self, first: bool = False) -> None:
        for pid, label in self.processes().items():
            seconds = cpu_seconds(pid)
            if seconds is not None:
                self.first.setdefault(pid, seconds if first else 0.0)
                self.last[pid] = (label, seconds)

    def start(self) -> CpuMeter:
        self.sample(first=True)
        if self.every is not None:
            self.thread = threading.Thread(target=self._sampling, args=(self.every,), daemon=True)
            self.thread.start()
        return self

    def _sampling(self, every: float) -> None:
        while not self.stopping.wait(every):
            self.sample()

    def stop(self) -> dict[Hashable, float]:
        self.stopping.set()
        if self.thread is not None:
            self.thread.join()
        self.sample()
        used: dict[Hashable, float] = {}
        for pid, (label, seconds) in self.last.items():
            used[label] = used.get(label, 0.0) + seconds - self.first[pid]
        return used


# SQL statements and the WAL ------------------------------------------------------------------------------------------


def counting_redis(commands: Counter[str], redis_url: str) -> Any:
    """A Redis client like the services' whose every command sent (one at a time or in a pipeline) is counted
    in `commands` by name (SQL round trips: `tests.round_trips`)."""
    import redis

    from tests.redis_commands import command_names

    class CountingConnection(redis.Connection):
        def send_packed_command(self, command: Any, check_health: bool = True) -> None:  # every command sent
            commands.update(command_names(command))
            super().send_packed_command(command, check_health)

    return redis.Redis.from_url(
        redis_url,
        socket_timeout=10,
        socket_connect_timeout=5,
        health_check_interval=30,
        connection_class=CountingConnection,
    )


def hold_wal(conn: Any, name: str) -> None:
    """Keep the WAL from now on until `conn` closes (a temporary physical replication slot): the server is shared,
    and a checkpoint would otherwise recycle the segments before a window's records are read."""
    import psycopg

    try:
        conn.execute("SELECT pg_create_physical_replication_slot(%s, true, true)", (f"{name}_{os.getpid()}",))
    except psycopg.Error as error:  # not a superuser, or no slots: the WAL may still be there at the end
        print(f"  no replication slot to hold the WAL ({error.diag.message_primary})", file=sys.stderr)
