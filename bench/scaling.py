"""The stack as several processes on one machine, under `cardledger simulate`, with the cost of an action by
component: the measurement behind docs/scaling.md.

Run: python -m bench.scaling          (about a minute; BENCH_QUICK=1 for a few seconds of play)

Against a fresh database created on DATABASE_URL's server (default postgresql://postgres@127.0.0.1:5432/postgres,
dropped at the end) and a private redis-server on a free port (its CPU is then this run's alone), it starts

- 2 API instances (gunicorn, as `cardledger up` runs one: `services.supervisor.gunicorn_command`), each on a
  port of its own;
- 2 relays (`cardledger relay`): one takes the advisory lock, the other stands by;
- 3 projection workers (`cardledger worker`, each with its turn clock thread, one of which sweeps);

then `cardledger simulate --url A --url B` as a child process: the bots' connections are spread round-robin
over the two instances (under the `holding` client, the seats of one table go through different instances).
At KILL_AT of the play the active relay is killed with SIGKILL: the standby must take over (its /readyz turns
from "waiting" to "held") and the killed one is started again as the new standby.

When the bots are done and every projection has caught up with the log, the processes are stopped and

- every deal is verified from the log (`cardledger verify`: `verify_tables`);
- every projection is rebuilt from the log and its digest compared with the live one (`rebuild`).

Measured over the window from the first bot request to the projections caught up: CPU seconds (utime + stime
from /proc/<pid>/stat) of each component's processes (API: both gunicorn masters and their workers; relays;
workers; PostgreSQL: the backends connected to the run's database, also by whose they are, by their
application_name; Redis; bots), and from PostgreSQL the run's database's commits and rows written
(pg_stat_database) and WAL bytes (pg_walinspect: the records that touch the run's database or belong to its
transactions; the server is shared, so the cluster's LSN difference would count other databases too). Each is
divided by the actions the bots made.

Settings: BENCH_SCALING_SECONDS (play, default 40), BENCH_SCALING_TABLES (tables at once, default 16),
BENCH_SCALING_GAME (default cholek-tiga), BENCH_SCALING_SEATS (default 2), BENCH_SCALING_CLIENT (default holding).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import psycopg  # noqa: E402
from psycopg.rows import dict_row  # noqa: E402

from bench.api import env_float, server_url  # noqa: E402
from infra import projections  # noqa: E402
from infra.config import RELAY_METRICS_PORT_VARIABLE, WORKER_METRICS_PORT_VARIABLE, Settings  # noqa: E402
from infra.db import application_name, open_pool  # noqa: E402
from infra.migrations import migrate  # noqa: E402
from infra.projections.checkpoint import RELAY_POSITION, checkpoint_name  # noqa: E402
from infra.signing import SIGNING_KEY_VARIABLE, new_signing_key  # noqa: E402
from services.app.audit.verify_tables import VerifySummary, verify_tables  # noqa: E402
from services.projector.rebuild import RebuildReport, rebuild  # noqa: E402
from services.simulate.client import HttpClient  # noqa: E402
from services.simulate.stack import free_port, stop, wait_ready  # noqa: E402
from services.supervisor import gunicorn_command  # noqa: E402

API_INSTANCES = 2
RELAYS = 2
WORKERS = 3
KILL_AT = 0.4  # the fraction of the play after which the active relay is killed
IDLE_S = 8.0  # how long the idle cost of the stack (no bots) is measured before the play
SAMPLE_S = 0.25  # how often the CPU meter reads /proc (a process that dies keeps its last reading)
CATCH_UP_TIMEOUT_S = 120.0
TAKEOVER_TIMEOUT_S = 30.0
COMPONENTS = ("api", "relay", "worker", "postgres", "redis", "bots")
# The postgres component's backends by whose they are (pg_stat_activity.application_name, `infra.db`): their
# process names are postgres-api, postgres-relay, postgres-worker and postgres-others.
POSTGRES_PARTS = ("api", "relay", "worker", "others")
BACKEND_OF = {
    application_name("api"): "api",
    application_name("relay"): "relay",
    application_name("projector"): "worker",
}
CLK_TCK = os.sysconf("SC_CLK_TCK")


# Processes ---------------------------------------------------------------------------------------------------------


@dataclass
class Proc:
    name: str
    component: str
    process: subprocess.Popen[bytes]
    log_path: Path
    probe_url: str | None = None  # a relay's metrics port (its /readyz tells whether it holds the lock)


def cpu_seconds(pid: int) -> float | None:
    """utime + stime of `pid` in seconds, or None when it has gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()  # the command name may hold spaces
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def _command(pid: int) -> str | None:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return None


def descendants(root: int) -> list[int]:
    """`root` and every process below it."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            text = (entry / "stat").read_text()
        except OSError:
            continue
        parent = int(text[text.rindex(")") + 2 :].split()[1])
        children.setdefault(parent, []).append(int(entry.name))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo += children.get(pid, [])
    return found


def relay_lock(proc: Proc) -> str | None:
    """The relay's lock as its /readyz says: "held", "waiting", or None when it does not answer."""
    assert proc.probe_url is not None
    if proc.process.poll() is not None:
        return None
    client = HttpClient(proc.probe_url, timeout=3)
    try:
        payload = client.request("GET", "/readyz").payload  # 503 while the relay connects: not yet either
        lock = payload.get("checks", {}).get("relay_lock", {}) if isinstance(payload, dict) else {}
        detail = lock.get("detail") if isinstance(lock, dict) and lock.get("ok") else None
        return str(detail) if detail in ("held", "waiting") else None
    except (OSError, ValueError):
        return None
    finally:
        client.close()


class Stack:
    """The processes of one run, each with its log file in `folder`."""

    def __init__(self, database_url: str, redis_url: str, folder: Path) -> None:
        self.folder = folder
        self.env = {
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "DATABASE_URL": database_url,
            "REDIS_URL": redis_url,
            SIGNING_KEY_VARIABLE: os.environ.get(SIGNING_KEY_VARIABLE) or new_signing_key(),
            "CARDLEDGER_RATE_LIMITS": "off",
            "CARDLEDGER_LOG_LEVEL": "INFO",
            WORKER_METRICS_PORT_VARIABLE: "0",
        }
        self.env.pop("PROMETHEUS_MULTIPROC_DIR", None)  # each gunicorn makes a folder of its own
        self.procs: list[Proc] = []
        self.api_urls: list[str] = []

    def spawn(self, name: str, component: str, command: list[str], **env: str) -> Proc:
        log_path = self.folder / f"{name}.log"
        with log_path.open("ab") as log:
            process = subprocess.Popen(command, cwd=ROOT, env={**self.env, **env}, stdout=log, stderr=subprocess.STDOUT)
        proc = Proc(name, component, process, log_path)
        self.procs.append(proc)
        return proc

    def start_api(self, n: int) -> None:
        port = free_port()
        command = gunicorn_command(Settings(host="127.0.0.1", port=port, log_level="WARNING"))
        proc = self.spawn(f"api-{n}", "api", command, CARDLEDGER_LOG_LEVEL="WARNING")
        url = f"http://127.0.0.1:{port}"
        wait_ready(url, proc.process)
        self.api_urls.append(url)

    def relays(self) -> list[Proc]:
        return [p for p in self.procs if p.component == "relay" and p.process.poll() is None]

    def stop_all(self) -> None:
        for proc in self.procs:
            if proc.process.poll() is None:
                proc.process.send_signal(signal.SIGTERM)
        for proc in self.procs:
            stop(proc.process)


def start_relay(stack: Stack, n: int) -> Proc:
    port = free_port()
    proc = stack.spawn(
        f"relay-{n}",
        "relay",
        [sys.executable, "-m", "services.cli", "relay"],
        **{RELAY_METRICS_PORT_VARIABLE: str(port)},
    )
    proc.probe_url = f"http://127.0.0.1:{port}"
    return proc


def wait_for(predicate: Any, timeout: float, what: str, interval: float = 0.1) -> float:
    """Seconds until `predicate()` holds; raises after `timeout`."""
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        if predicate():
            return time.monotonic() - started
        time.sleep(interval)
    raise TimeoutError(f"timed out after {timeout:.0f} s waiting for {what}")


# Measuring ---------------------------------------------------------------------------------------------------------


class CpuMeter:
    """CPU seconds by component over a window. Every SAMPLE_S it reads /proc for each tracked process (each
    stack process and its children, the bots, redis, and the PostgreSQL backends of the run's database) and
    keeps the last reading of each pid, so a process that dies in the window still counts up to its death."""

    def __init__(self, database_url: str, roots: dict[int, tuple[str, str]]) -> None:
        self.database_url = database_url
        self.roots = dict(roots)  # pid -> (component, name), for the processes whose trees are followed
        self.first: dict[int, float] = {}
        self.last: dict[int, tuple[str, str, float]] = {}
        self.by_name: dict[str, float] = {}  # after stop(): CPU seconds by process name (a tree counts as its root)
        self.stopping = threading.Event()
        self.thread: threading.Thread | None = None
        self.lock = threading.Lock()
        self.conn = psycopg.connect(database_url, autocommit=True)

    def add_root(self, pid: int, component: str, name: str) -> None:
        with self.lock:
            self.roots[pid] = (component, name)

    def backends(self) -> dict[int, str]:
        """The backends of the run's database and whose they are (POSTGRES_PARTS), when they are processes of this
        machine (a server in a container or elsewhere reports pids that are not ours: then PostgreSQL's CPU is
        not counted)."""
        rows = self.conn.execute(
            "SELECT pid, application_name FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        ).fetchall()
        return {int(pid): BACKEND_OF.get(name, "others") for pid, name in rows if _command(int(pid)) == "postgres"}

    def sample(self, baseline: bool = False) -> None:
        with self.lock:
            roots = dict(self.roots)
        tracked = {pid: labels for root, labels in roots.items() for pid in descendants(root)}
        tracked.update({pid: ("postgres", f"postgres-{part}") for pid, part in self.backends().items()})
        for pid, (component, name) in tracked.items():
            seconds = cpu_seconds(pid)
            if seconds is None:
                continue
            if pid not in self.first:
                # A process first seen after the window opened started within it.
                self.first[pid] = seconds if baseline else 0.0
            self.last[pid] = (component, name, seconds)

    def start(self) -> None:
        self.sample(baseline=True)

        def loop() -> None:
            while not self.stopping.wait(SAMPLE_S):
                self.sample()

        self.thread = threading.Thread(target=loop, name="cpu-meter", daemon=True)
        self.thread.start()

    def stop(self) -> dict[str, float]:
        self.stopping.set()
        if self.thread is not None:
            self.thread.join()
        self.sample()
        self.conn.close()
        totals = dict.fromkeys(COMPONENTS, 0.0)
        for pid, (component, name, seconds) in self.last.items():
            totals[component] += seconds - self.first[pid]
            self.by_name[name] = self.by_name.get(name, 0.0) + seconds - self.first[pid]
        return totals


def database_counters(conn: psycopg.Connection[Any]) -> dict[str, int]:
    conn.execute("SELECT pg_stat_clear_snapshot()")
    row = conn.execute(
        """SELECT xact_commit, xact_rollback, tup_inserted, tup_updated, tup_deleted,
                  pg_current_wal_lsn()::text AS lsn
           FROM pg_stat_database WHERE datname = current_database()"""
    ).fetchone()
    assert row is not None
    return dict(row)


def hold_wal(conn: psycopg.Connection[Any]) -> None:
    """Keep the WAL from this point on until `conn` closes (a temporary physical replication slot): the server is
    shared, and a checkpoint would otherwise remove the segments before the end of the window is read."""
    try:
        conn.execute("SELECT pg_create_physical_replication_slot(%s, true, true)", (f"bench_scaling_{os.getpid()}",))
    except psycopg.Error as error:  # not a superuser, or no slots: the WAL may still be there at the end
        say(f"no replication slot to hold the WAL ({error.diag.message_primary})")


@dataclass(frozen=True)
class Wal:
    bytes: int | None  # the run's database's (pg_walinspect), None when it could not tell
    fpi_bytes: int | None  # of which full-page images (the first change of a page after a checkpoint)
    commits: int | None  # commit records of the run's database's transactions: its writing transactions
    cluster_bytes: int  # the whole cluster's over the same LSNs (other databases share the server)
    by_relation: dict[str, int] = field(default_factory=dict)  # the run's bytes by the relation a record touches


def wal_between(conn: psycopg.Connection[Any], start: str, end: str) -> Wal:
    """What the WAL between two LSNs holds of the run's database: the records that touch one of its relations,
    and every record of a transaction that does (its commit record among them)."""
    cluster = conn.execute("SELECT pg_wal_lsn_diff(%s::pg_lsn, %s::pg_lsn)::bigint AS n", (end, start)).fetchone()
    assert cluster is not None
    try:
        conn.execute("CREATE EXTENSION IF NOT EXISTS pg_walinspect")
        oid = conn.execute("SELECT oid FROM pg_database WHERE datname = current_database()").fetchone()
        assert oid is not None
        pattern = f"%rel %/{int(oid['oid'])}/%"
        row = conn.execute(
            """WITH r AS (SELECT xid::text AS xid, resource_manager, record_type, record_length, fpi_length,
                                 block_ref
                          FROM pg_get_wal_records_info(%(start)s::pg_lsn, %(end)s::pg_lsn)),
                    ours AS (SELECT DISTINCT xid FROM r WHERE xid <> '0' AND block_ref LIKE %(pattern)s),
                    mine AS (SELECT * FROM r WHERE block_ref LIKE %(pattern)s OR xid IN (SELECT xid FROM ours))
               SELECT coalesce(sum(record_length), 0)::bigint AS n, coalesce(sum(fpi_length), 0)::bigint AS f,
                      count(*) FILTER (WHERE resource_manager = 'Transaction' AND record_type LIKE 'COMMIT%%') AS c
               FROM mine""",
            {"start": start, "end": end, "pattern": pattern},
        ).fetchone()
        # A record is counted once, for the first relation its block references name.
        relations = conn.execute(
            """WITH r AS (SELECT record_length, substring(block_ref FROM %(first)s)::oid AS node
                          FROM pg_get_wal_records_info(%(start)s::pg_lsn, %(end)s::pg_lsn)
                          WHERE block_ref LIKE %(pattern)s)
               SELECT coalesce(c.relname, 'relfilenode ' || r.node) AS relation, sum(r.record_length)::bigint AS n
               FROM r LEFT JOIN pg_class c ON c.relfilenode = r.node
               GROUP BY 1 ORDER BY 2 DESC""",
            {"start": start, "end": end, "pattern": pattern, "first": f"rel [0-9]+/{oid['oid']}/([0-9]+)"},
        ).fetchall()
    except psycopg.Error as error:
        say(f"pg_walinspect could not read the WAL ({error}); cluster-wide only")
        return Wal(None, None, None, int(cluster["n"]))
    assert row is not None
    by_relation = {str(r["relation"]): int(r["n"]) for r in relations}
    return Wal(int(row["n"]), int(row["f"]), int(row["c"]), int(cluster["n"]), by_relation)


def caught_up(conn: psycopg.Connection[Any]) -> bool:
    """The relay and every projection have reached the last event of the log."""
    head = conn.execute("SELECT coalesce(max(global_position), 0) AS p FROM events").fetchone()
    assert head is not None
    names = [RELAY_POSITION, *(checkpoint_name(name) for name in projections.NAMES)]
    rows = conn.execute("SELECT name, global_position FROM log_positions WHERE name = ANY(%s)", (names,)).fetchall()
    reached = {row["name"]: int(row["global_position"]) for row in rows}
    return all(reached.get(name, 0) >= int(head["p"]) for name in names)


# The run -----------------------------------------------------------------------------------------------------------


@dataclass
class ScalingResult:
    seconds: float  # the measured window
    simulation: dict[str, Any]  # `cardledger simulate --json`: summary and ok
    cpu: dict[str, float]  # CPU seconds by component over the window
    cpu_by_process: dict[str, float]  # the same by process (api-1, api-2, relay-1, ...; postgres-api: its backends)
    idle_cpu: dict[str, float]  # CPU seconds per second by component with the stack up and no bots (IDLE_S)
    counters: dict[str, int]  # pg_stat_database differences
    wal: Wal
    events: int
    relay_takeover_s: float | None  # from the SIGKILL to the standby holding the lock
    relay_restarted_stands_by: bool
    verification: VerifySummary
    rebuilds: list[RebuildReport]
    notes: list[str] = field(default_factory=list)

    @property
    def actions(self) -> int:
        return int(self.simulation["summary"]["actions"])

    @property
    def ok(self) -> bool:
        return (
            bool(self.simulation["ok"])
            and self.verification.ok
            and all(report.equal for report in self.rebuilds)
            and self.relay_takeover_s is not None
            and self.relay_restarted_stands_by
        )

    def per_action(self) -> dict[str, float]:
        n = max(self.actions, 1)
        figures = {f"{c}_cpu_ms": 1000 * self.cpu[c] / n for c in COMPONENTS}
        # Less what the component spends idle (polling, heartbeats) over as long: the cost that grows with actions.
        figures |= {
            f"{c}_busy_cpu_ms": 1000 * max(0.0, self.cpu[c] - self.idle_cpu[c] * self.seconds) / n for c in COMPONENTS
        }
        backends = {p: self.cpu_by_process.get(f"postgres-{p}", 0.0) for p in POSTGRES_PARTS}
        figures |= {f"postgres_{p}_cpu_ms": 1000 * seconds / n for p, seconds in backends.items()}
        figures["commits"] = self.counters["xact_commit"] / n
        figures["rows_inserted"] = self.counters["tup_inserted"] / n
        figures["rows_updated"] = self.counters["tup_updated"] / n
        figures["events"] = self.events / n
        if self.wal.bytes is not None and self.wal.commits is not None:
            figures["wal_bytes"] = self.wal.bytes / n
            figures["wal_fpi_bytes"] = (self.wal.fpi_bytes or 0) / n
            figures["write_commits"] = self.wal.commits / n
        return figures


def run_scaled(
    database_server_url: str,
    seconds: float,
    tables: int,
    game: str = "cholek-tiga",
    client: str = "holding",
    seats: int = 2,
    kill_relay: bool = True,
    folder: Path | None = None,
) -> ScalingResult:
    """One run (module docstring) against a fresh database on `database_server_url`."""
    from tests.conftest import fresh_database
    from tests.faults.servers import RedisServer

    with (
        tempfile.TemporaryDirectory(prefix="cardledger-scaling-") as scratch,
        fresh_database(database_server_url, prefix="cardledger_scaling") as database_url,
    ):
        migrate(database_url)
        redis_server = RedisServer()
        redis_server.start()
        stack = Stack(database_url, redis_server.url, folder or Path(scratch))
        try:
            return _run(stack, database_url, redis_server, seconds, tables, game, client, seats, kill_relay)
        finally:
            stack.stop_all()
            redis_server.stop()


def _run(
    stack: Stack,
    database_url: str,
    redis_server: Any,
    seconds: float,
    tables: int,
    game: str,
    client: str,
    seats: int,
    kill_relay: bool,
) -> ScalingResult:
    for n in range(1, API_INSTANCES + 1):
        stack.start_api(n)
    first_relay = start_relay(stack, 1)
    wait_for(lambda: relay_lock(first_relay) == "held", 60, "the first relay to take the lock")
    standby = start_relay(stack, 2)
    wait_for(lambda: relay_lock(standby) == "waiting", 60, "the second relay to stand by")
    for n in range(1, WORKERS + 1):
        stack.spawn(f"worker-{n}", "worker", [sys.executable, "-m", "services.cli", "worker"])
    say(f"{API_INSTANCES} API instances {', '.join(stack.api_urls)}, {RELAYS} relays, {WORKERS} workers up")
    time.sleep(5.0)  # the workers connect, catch up on nothing and go idle before the idle window opens

    with psycopg.connect(database_url, autocommit=True, row_factory=dict_row) as conn:
        hold_wal(conn)
        roots = {p.process.pid: (p.component, p.name) for p in stack.procs}
        assert redis_server.process is not None
        roots[redis_server.process.pid] = ("redis", "redis")
        idle = CpuMeter(database_url, roots)
        idle.start()
        time.sleep(IDLE_S)
        idle_cpu = {component: seconds / IDLE_S for component, seconds in idle.stop().items()}
        before = database_counters(conn)
        events_before = _events(conn)
        meter = CpuMeter(database_url, roots)
        out = stack.folder / "simulate.json"
        command = [sys.executable, "-m", "services.cli", "simulate", "--game", game, "--seats", str(seats)]
        command += ["--tables", str(tables), "--concurrency", str(tables), "--deals", "1000000"]
        command += ["--duration", f"{seconds:g}", "--client", client, "--json", str(out), "--no-progress"]
        for url in stack.api_urls:
            command += ["--url", url]
        meter.start()
        started = time.monotonic()
        with (stack.folder / "simulate.log").open("wb") as log:
            bots = subprocess.Popen(command, cwd=ROOT, env=stack.env, stdout=log, stderr=subprocess.STDOUT)
        meter.add_root(bots.pid, "bots", "bots")
        say(f"simulate: {game}, {tables} tables at once, {client} client, {seconds:g} s")
        takeover: float | None = None
        restarted_stands_by = not kill_relay
        if kill_relay:
            time.sleep(seconds * KILL_AT)
            active = [p for p in stack.relays() if relay_lock(p) == "held"]
            if len(active) != 1:
                raise RuntimeError(f"expected one relay holding the lock, found {[p.name for p in active]}")
            meter.sample()  # the killed relay's last reading
            killed_at = time.monotonic()
            active[0].process.send_signal(signal.SIGKILL)
            active[0].process.wait()
            survivors = stack.relays()
            try:
                wait_for(lambda: any(relay_lock(p) == "held" for p in survivors), TAKEOVER_TIMEOUT_S, "a takeover")
                takeover = time.monotonic() - killed_at
            except TimeoutError:
                takeover = None
            say(f"killed {active[0].name}; the standby took over in {takeover} s")
            again = start_relay(stack, len([p for p in stack.procs if p.component == "relay"]) + 1)
            meter.add_root(again.process.pid, "relay", again.name)
            try:
                wait_for(lambda: relay_lock(again) == "waiting", 60, "the restarted relay to stand by")
                restarted_stands_by = True
            except TimeoutError:
                restarted_stands_by = False
        bots.wait()
        wait_for(lambda: caught_up(conn), CATCH_UP_TIMEOUT_S, "the relay and the projections to catch up")
        window = time.monotonic() - started
        cpu = meter.stop()
        cpu_by_process = dict(meter.by_name)
        say(f"play and catch-up took {window:.1f} s; stopping the processes")
        stack.stop_all()
        redis_server.stop()
        time.sleep(1.0)  # the backends' last statistics reach pg_stat_database as they exit
        after = database_counters(conn)
        events = _events(conn) - events_before
        wal = wal_between(conn, str(before["lsn"]), str(after["lsn"]))
    if bots.returncode not in (0, 1) or not out.exists():
        raise RuntimeError(f"cardledger simulate exited with {bots.returncode}; see {stack.folder / 'simulate.log'}")
    simulation = json.loads(out.read_text())
    counters = {k: int(after[k]) - int(before[k]) for k in after if k != "lsn"}
    say("verifying every deal and rebuilding every projection")
    with open_pool(database_url, min_size=1, max_size=2) as pool:
        verification = verify_tables(pool, None, progress=False)
    rebuilds = rebuild(database_url, None, progress=False)
    return ScalingResult(
        seconds=window,
        simulation=simulation,
        cpu=cpu,
        cpu_by_process=cpu_by_process,
        idle_cpu=idle_cpu,
        counters=counters,
        wal=wal,
        events=events,
        relay_takeover_s=takeover,
        relay_restarted_stands_by=restarted_stands_by,
        verification=verification,
        rebuilds=rebuilds,
    )


def say(text: str) -> None:
    print(f"  bench.scaling: {text}", file=sys.stderr)


def _events(conn: psycopg.Connection[Any]) -> int:
    row = conn.execute("SELECT count(*) AS n FROM events").fetchone()
    assert row is not None
    return int(row["n"])


# The rows ----------------------------------------------------------------------------------------------------------


def rows(result: ScalingResult) -> list[dict[str, Any]]:
    s = result.simulation["summary"]
    per = result.per_action()
    c = result.simulation["config"]
    label = f"scaling {c['game']} x{c['seats']} ({API_INSTANCES} API, {RELAYS} relays, {WORKERS} workers)"
    out: list[dict[str, Any]] = [
        {"benchmark": f"{label}: actions/s", "value": s["actions_per_s"], "target": None, "unit": "actions/s"},
        {
            "benchmark": f"{label}: deals completed / failed / error answers",
            "value": f"{s['deals_completed']} / {s['deals_failed']} / {sum(s['errors'].values())}",
            "target": None,
            "unit": "",
        },
        {
            "benchmark": f"{label}: deals verified / failures",
            "value": f"{result.verification.deals} / {len(result.verification.failures)}",
            "target": None,
            "unit": "",
        },
        {
            "benchmark": f"{label}: projections equal to their rebuild",
            "value": sum(report.equal for report in result.rebuilds),
            "target": len(result.rebuilds),
            "unit": "projections",
        },
        {
            "benchmark": f"{label}: relay standby took over after SIGKILL",
            "value": result.relay_takeover_s,
            "target": None,
            "unit": "s",
        },
    ]
    for component in COMPONENTS:
        out += [
            {
                "benchmark": f"{label}: CPU per action, {component}",
                "value": per[f"{component}_cpu_ms"],
                "target": None,
                "unit": "ms",
            },
            {
                "benchmark": f"{label}: CPU per action, {component}, less its idle cost",
                "value": per[f"{component}_busy_cpu_ms"],
                "target": None,
                "unit": "ms",
            },
        ]
    out += [
        {
            "benchmark": f"{label}: CPU per action, postgres backends of the {part}",
            "value": per[f"postgres_{part}_cpu_ms"],
            "target": None,
            "unit": "ms",
        }
        for part in POSTGRES_PARTS
    ]
    out += [
        {"benchmark": f"{label}: events per action", "value": per["events"], "target": None, "unit": "events"},
        {
            "benchmark": f"{label}: commits per action (reads too)",
            "value": per["commits"],
            "target": None,
            "unit": "commits",
        },
        {
            "benchmark": f"{label}: writing commits per action (WAL commit records)",
            "value": per.get("write_commits"),
            "target": None,
            "unit": "commits",
        },
        {"benchmark": f"{label}: rows inserted per action", "value": per["rows_inserted"], "target": None, "unit": ""},
        {"benchmark": f"{label}: rows updated per action", "value": per["rows_updated"], "target": None, "unit": ""},
        {
            "benchmark": f"{label}: WAL per action (the run's database)",
            "value": per.get("wal_bytes"),
            "target": None,
            "unit": "bytes",
        },
        {
            "benchmark": f"{label}: of which full-page images",
            "value": per.get("wal_fpi_bytes"),
            "target": None,
            "unit": "bytes",
        },
    ]
    return out


def describe(result: ScalingResult) -> str:
    """The raw counts, for docs/scaling.md."""
    lines = [
        f"window {result.seconds:.1f} s, actions {result.actions}, events {result.events}, "
        f"requests {result.simulation['summary']['requests']}",
        "CPU seconds: " + ", ".join(f"{c} {result.cpu[c]:.2f}" for c in COMPONENTS),
        "CPU seconds by process: " + ", ".join(f"{n} {v:.2f}" for n, v in sorted(result.cpu_by_process.items())),
        f"idle CPU seconds per second ({IDLE_S:g} s, no bots): "
        + ", ".join(f"{c} {result.idle_cpu[c]:.3f}" for c in COMPONENTS),
        "pg_stat_database: " + ", ".join(f"{k} {v}" for k, v in result.counters.items()),
        f"WAL: run's database {result.wal.bytes} bytes ({result.wal.fpi_bytes} of full-page images), "
        f"{result.wal.commits} commit records; "
        f"cluster {result.wal.cluster_bytes} bytes",
        "WAL bytes per action by relation: "
        + ", ".join(f"{name} {n / max(result.actions, 1):.0f}" for name, n in result.wal.by_relation.items()),
        f"relay takeover {result.relay_takeover_s} s, restarted relay stands by: {result.relay_restarted_stands_by}",
        str(result.verification.render()),
        *(report.summary() for report in result.rebuilds),
    ]
    return "\n".join(lines)


def run() -> list[dict[str, Any]]:
    seconds = env_float("BENCH_SCALING_SECONDS", 40.0, 8.0)
    tables = int(env_float("BENCH_SCALING_TABLES", 16, 4))
    game = os.environ.get("BENCH_SCALING_GAME", "").strip() or "cholek-tiga"
    client = os.environ.get("BENCH_SCALING_CLIENT", "").strip() or "holding"
    seats = int(env_float("BENCH_SCALING_SEATS", 2, 2))
    result = run_scaled(server_url(), seconds, tables, game, client, seats)
    print(describe(result), file=sys.stderr)
    return rows(result)


if __name__ == "__main__":
    from bench.__main__ import print_table

    print_table(run())
