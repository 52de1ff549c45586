"""Several processes, a relay killed? API_INSTANCES APIs, RELAYS relays (the active one SIGKILLed at KILL_AT of
the play) and WORKERS workers under `cardledger simulate`; every deal verified, every projection rebuilt; per
action, each component's CPU, the database's commits, rows and WAL (docs/scaling.md, "The run").

Run: python -m bench.scaling     (about a minute; BENCH_SCALING_SECONDS (40), BENCH_SCALING_TABLES (16),
     BENCH_SCALING_GAME (cholek-tiga), BENCH_SCALING_SEATS (2), BENCH_SCALING_CLIENT (holding))
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg
from psycopg.rows import dict_row

from bench.counting import BACKEND_OWNER, CpuMeter, backends, descendants, hold_wal
from bench.harness import ROOT, Row, env_float, env_int, fresh_database, print_table, row, say, server_url
from infra import projections
from infra.config import RELAY_METRICS_PORT_VARIABLE, WORKER_METRICS_PORT_VARIABLE, Settings
from infra.db import open_pool
from infra.projections.checkpoint import RELAY_POSITION, checkpoint_name
from services.app.audit.verify_tables import VerifySummary, verify_tables
from services.cli.http_client import HttpClient
from services.cli.simulate.stack import free_port, stop, wait_ready
from services.projector.rebuild import RebuildReport, rebuild
from services.supervisor import gunicorn_command
from tests.faults.servers import RedisServer, wait_until

API_INSTANCES, RELAYS, WORKERS = 2, 2, 3
KILL_AT = 0.4  # the fraction of the play after which the active relay is killed
IDLE_S = 8.0  # how long the idle cost of the stack (no bots) is measured before the play
SAMPLE_S = 0.25  # how often the CPU meter reads /proc (a process that dies keeps its last reading)
CATCH_UP_TIMEOUT_S = 120.0
TAKEOVER_TIMEOUT_S = 30.0
COMPONENTS = ("api", "relay", "worker", "postgres", "redis", "bots")
POSTGRES_PARTS = ("api", "relay", "worker", "others")  # whose the backends are (their process names postgres-api...)


@dataclass
class Proc:
    name: str
    component: str
    process: subprocess.Popen[bytes]
    probe_url: str | None = None  # a relay's metrics port (its /readyz tells whether it holds the lock)

    def lock(self) -> str | None:
        """A relay's lock as its /readyz says: "held", "waiting", or None when it does not answer."""
        if self.process.poll() is not None or self.probe_url is None:
            return None
        client = HttpClient(self.probe_url, timeout=3)
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
        from infra.signing import SIGNING_KEY_VARIABLE, new_signing_key

        self.folder, self.procs, self.api_urls = folder, list[Proc](), list[str]()
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

    def spawn(self, name: str, component: str, command: list[str], **env: str) -> Proc:
        with (self.folder / f"{name}.log").open("ab") as log:
            process = subprocess.Popen(command, cwd=ROOT, env={**self.env, **env}, stdout=log, stderr=subprocess.STDOUT)
        self.procs.append(Proc(name, component, process))
        return self.procs[-1]

    def start_api(self, n: int) -> None:
        port = free_port()
        command = gunicorn_command(Settings(host="127.0.0.1", port=port, log_level="WARNING"))
        proc = self.spawn(f"api-{n}", "api", command, CARDLEDGER_LOG_LEVEL="WARNING")
        self.api_urls.append(f"http://127.0.0.1:{port}")
        wait_ready(self.api_urls[-1], proc.process)

    def start_relay(self) -> Proc:
        port, n = free_port(), len([p for p in self.procs if p.component == "relay"]) + 1
        command = [sys.executable, "-m", "services.cli", "relay"]
        proc = self.spawn(f"relay-{n}", "relay", command, **{RELAY_METRICS_PORT_VARIABLE: str(port)})
        proc.probe_url = f"http://127.0.0.1:{port}"
        return proc

    def relays(self) -> list[Proc]:
        return [p for p in self.procs if p.component == "relay" and p.process.poll() is None]

    def stop_all(self) -> None:
        for proc in self.procs:
            if proc.process.poll() is None:
                proc.process.send_signal(signal.SIGTERM)
        for proc in self.procs:
            stop(proc.process)


def meter(conn: Any, roots: dict[int, tuple[str, str]]) -> CpuMeter:
    """CPU seconds by (component, process name): each root's process tree, and the run's database's backends."""

    def processes() -> dict[int, Any]:
        found: dict[int, Any] = {pid: labels for root, labels in dict(roots).items() for pid in descendants(root)}
        return found | {
            pid: ("postgres", f"postgres-{BACKEND_OWNER.get(name, 'others')}") for pid, name in backends(conn).items()
        }

    return CpuMeter(processes, every=SAMPLE_S).start()


def by_component(used: dict[Any, float]) -> dict[str, float]:
    totals = dict.fromkeys(COMPONENTS, 0.0)
    for (component, _), seconds in used.items():
        totals[component] += seconds
    return totals


def database_counters(conn: Any) -> dict[str, Any]:
    conn.execute("SELECT pg_stat_clear_snapshot()")
    return dict(
        conn.execute(
            """SELECT xact_commit, xact_rollback, tup_inserted, tup_updated, tup_deleted,
                      pg_current_wal_lsn()::text AS lsn, (SELECT count(*) FROM events) AS events
               FROM pg_stat_database WHERE datname = current_database()"""
        ).fetchone()
    )


@dataclass(frozen=True)
class Wal:
    bytes: int | None  # the run's database's (pg_walinspect), None when it could not tell
    fpi_bytes: int | None  # of which full-page images (the first change of a page after a checkpoint)
    commits: int | None  # commit records of the run's database's transactions: its writing transactions
    cluster_bytes: int  # the whole cluster's over the same LSNs (other databases share the server)
    by_relation: dict[str, int] = field(default_factory=dict)  # the run's bytes by the relation a record touches


_WAL = """WITH r AS (SELECT xid::text AS xid, resource_manager, record_type, record_length, fpi_length, block_ref
                     FROM pg_get_wal_records_info(%(start)s::pg_lsn, %(end)s::pg_lsn)),
               ours AS (SELECT DISTINCT xid FROM r WHERE xid <> '0' AND block_ref LIKE %(pattern)s),
               mine AS (SELECT * FROM r WHERE block_ref LIKE %(pattern)s OR xid IN (SELECT xid FROM ours))
          SELECT coalesce(sum(record_length), 0)::bigint AS n, coalesce(sum(fpi_length), 0)::bigint AS f,
                 count(*) FILTER (WHERE resource_manager = 'Transaction' AND record_type LIKE 'COMMIT%%') AS c
          FROM mine"""
# A record is counted once, for the first relation its block references name.
_WAL_BY_RELATION = """WITH r AS (SELECT record_length, substring(block_ref FROM %(first)s)::oid AS node
        FROM pg_get_wal_records_info(%(start)s::pg_lsn, %(end)s::pg_lsn) WHERE block_ref LIKE %(pattern)s)
    SELECT coalesce(c.relname, 'relfilenode ' || r.node) AS relation, sum(r.record_length)::bigint AS n
    FROM r LEFT JOIN pg_class c ON c.relfilenode = r.node GROUP BY 1 ORDER BY 2 DESC"""


def wal_between(conn: Any, start: str, end: str) -> Wal:
    """What the WAL between two LSNs holds of the run's database: the records that touch one of its relations, and
    every record of a transaction that does (its commit record among them)."""
    cluster = int(
        conn.execute("SELECT pg_wal_lsn_diff(%s::pg_lsn, %s::pg_lsn)::bigint AS n", (end, start)).fetchone()["n"]
    )
    try:
        conn.execute("CREATE EXTENSION IF NOT EXISTS pg_walinspect")
        oid = int(conn.execute("SELECT oid FROM pg_database WHERE datname = current_database()").fetchone()["oid"])
        given = {"start": start, "end": end, "pattern": f"%rel %/{oid}/%", "first": f"rel [0-9]+/{oid}/([0-9]+)"}
        mine = conn.execute(_WAL, given).fetchone()
        relations = conn.execute(_WAL_BY_RELATION, given).fetchall()
    except psycopg.Error as error:
        say(f"bench.scaling: pg_walinspect could not read the WAL ({error}); cluster-wide only")
        return Wal(None, None, None, cluster)
    by_relation = {str(r["relation"]): int(r["n"]) for r in relations}
    return Wal(int(mine["n"]), int(mine["f"]), int(mine["c"]), cluster, by_relation)


def caught_up(conn: Any) -> bool:
    """The relay and every projection have reached the last event of the log."""
    head = int(conn.execute("SELECT coalesce(max(global_position), 0) AS p FROM events").fetchone()["p"])
    names = [RELAY_POSITION, *(checkpoint_name(name) for name in projections.NAMES)]
    found = conn.execute("SELECT name, global_position FROM log_positions WHERE name = ANY(%s)", (names,)).fetchall()
    reached = {r["name"]: int(r["global_position"]) for r in found}
    return all(reached.get(name, 0) >= head for name in names)


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

    @property
    def actions(self) -> int:
        return int(self.simulation["summary"]["actions"])

    @property
    def ok(self) -> bool:
        rebuilt = all(report.equal for report in self.rebuilds)
        relays = self.relay_takeover_s is not None and self.relay_restarted_stands_by
        return bool(self.simulation["ok"]) and self.verification.ok and rebuilt and relays


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
    with (
        tempfile.TemporaryDirectory(prefix="cardledger-scaling-") as scratch,
        fresh_database("cardledger_scaling", server=database_server_url) as database_url,
    ):
        redis_server = RedisServer()
        redis_server.start()
        stack = Stack(database_url, redis_server.url, folder or Path(scratch))
        try:
            return _run(stack, database_url, redis_server, seconds, tables, [game, client, str(seats)], kill_relay)
        finally:
            stack.stop_all()
            redis_server.stop()


def simulate_command(stack: Stack, play: list[str], tables: int, seconds: float, out: Path) -> list[str]:
    game, client, seats = play
    command = [sys.executable, "-m", "services.cli", "simulate", "--game", game, "--seats", seats]
    command += ["--tables", str(tables), "--concurrency", str(tables), "--deals", "1000000"]
    command += ["--duration", f"{seconds:g}", "--client", client, "--json", str(out), "--no-progress"]
    return command + [argument for url in stack.api_urls for argument in ("--url", url)]


def kill_active_relay(stack: Stack, window: CpuMeter, roots: dict[int, tuple[str, str]]) -> tuple[float | None, bool]:
    """SIGKILL the relay holding the lock, then start it again: (seconds until the standby held the lock, or None;
    whether the restarted one stands by)."""
    active = [p for p in stack.relays() if p.lock() == "held"]
    if len(active) != 1:
        raise RuntimeError(f"expected one relay holding the lock, found {[p.name for p in active]}")
    window.sample()  # the killed relay's last reading
    killed_at, survivors = time.monotonic(), [p for p in stack.relays() if p is not active[0]]
    active[0].process.send_signal(signal.SIGKILL)
    active[0].process.wait()
    takeover = None
    try:
        wait_until(lambda: any(p.lock() == "held" for p in survivors), TAKEOVER_TIMEOUT_S, 0.1, "a takeover")
        takeover = time.monotonic() - killed_at
    except AssertionError:
        pass
    say(f"bench.scaling: killed {active[0].name}; the standby took over in {takeover} s")
    again = stack.start_relay()
    roots[again.process.pid] = ("relay", again.name)
    try:
        wait_until(lambda: again.lock() == "waiting", 60, 0.1, "the restarted relay to stand by")
        return takeover, True
    except AssertionError:
        return takeover, False


def _run(
    stack: Stack, database_url: str, redis_server: Any, seconds: float, tables: int, play: list[str], kill: bool
) -> ScalingResult:
    for n in range(1, API_INSTANCES + 1):
        stack.start_api(n)
    first_relay = stack.start_relay()
    wait_until(lambda: first_relay.lock() == "held", 60, 0.1, "the first relay to take the lock")
    standby = stack.start_relay()
    wait_until(lambda: standby.lock() == "waiting", 60, 0.1, "the second relay to stand by")
    for n in range(1, WORKERS + 1):
        stack.spawn(f"worker-{n}", "worker", [sys.executable, "-m", "services.cli", "worker"])
    say(f"bench.scaling: {API_INSTANCES} API instances, {RELAYS} relays, {WORKERS} workers up")
    time.sleep(5.0)  # the workers connect, catch up on nothing and go idle before the idle window opens
    with psycopg.connect(database_url, autocommit=True, row_factory=dict_row) as conn:
        hold_wal(conn, "bench_scaling")
        roots = {p.process.pid: (p.component, p.name) for p in stack.procs}
        roots[redis_server.process.pid] = ("redis", "redis")
        idle = meter(conn, roots)
        time.sleep(IDLE_S)
        idle_cpu = {component: spent / IDLE_S for component, spent in by_component(idle.stop()).items()}
        before, window = database_counters(conn), meter(conn, roots)
        out, started = stack.folder / "simulate.json", time.monotonic()
        with (stack.folder / "simulate.log").open("wb") as log:
            command = simulate_command(stack, play, tables, seconds, out)
            bots = subprocess.Popen(command, cwd=ROOT, env=stack.env, stdout=log, stderr=subprocess.STDOUT)
        roots[bots.pid] = ("bots", "bots")
        say(f"bench.scaling: simulate: {play[0]}, {tables} tables at once, {play[1]} client, {seconds:g} s")
        takeover, restarted_stands_by = None, not kill
        if kill:
            time.sleep(seconds * KILL_AT)
            takeover, restarted_stands_by = kill_active_relay(stack, window, roots)
        bots.wait()
        wait_until(lambda: caught_up(conn), CATCH_UP_TIMEOUT_S, 0.1, "the relay and the projections to catch up")
        elapsed, used = time.monotonic() - started, window.stop()
        say(f"bench.scaling: play and catch-up took {elapsed:.1f} s; stopping the processes")
        stack.stop_all()
        redis_server.stop()
        time.sleep(1.0)  # the backends' last statistics reach pg_stat_database as they exit
        after = database_counters(conn)
        wal = wal_between(conn, str(before["lsn"]), str(after["lsn"]))
    if bots.returncode not in (0, 1) or not out.exists():
        raise RuntimeError(f"cardledger simulate exited with {bots.returncode}; see {stack.folder / 'simulate.log'}")
    say("bench.scaling: verifying every deal and rebuilding every projection")
    with open_pool(database_url, min_size=1, max_size=2) as pool:
        verification = verify_tables(pool, None, progress=False)
    by_process = Counter[str]()
    for (_, name), spent in used.items():
        by_process[name] += spent
    return ScalingResult(
        seconds=elapsed,
        simulation=json.loads(out.read_text()),
        cpu=by_component(used),
        cpu_by_process=dict(by_process),
        idle_cpu=idle_cpu,
        counters={k: int(after[k]) - int(before[k]) for k in after if k not in ("lsn", "events")},
        wal=wal,
        events=int(after["events"]) - int(before["events"]),
        relay_takeover_s=takeover,
        relay_restarted_stands_by=restarted_stands_by,
        verification=verification,
        rebuilds=rebuild(database_url, None, progress=False),
    )


def rows(result: ScalingResult) -> list[Row]:
    s, c, checked, wal = result.simulation["summary"], result.simulation["config"], result.verification, result.wal
    label = f"scaling {c['game']} x{c['seats']} ({API_INSTANCES} API, {RELAYS} relays, {WORKERS} workers)"
    n, cpu, idle = max(result.actions, 1), result.cpu, result.idle_cpu
    deals = f"{s['deals_completed']} / {s['deals_failed']} / {sum(s['errors'].values())}"
    found = [
        row(f"{label}: actions/s", s["actions_per_s"], "actions/s"),
        row(f"{label}: deals completed / failed / error answers", deals),
        row(f"{label}: deals verified / failures", f"{checked.deals} / {len(checked.failures)}"),
        row(
            f"{label}: projections equal to their rebuild",
            sum(r.equal for r in result.rebuilds),
            "projections",
            len(result.rebuilds),
        ),
        row(f"{label}: relay standby took over after SIGKILL", result.relay_takeover_s, "s"),
    ]
    for component in COMPONENTS:
        # Less what the component spends idle (polling, heartbeats) over as long: the cost that grows with actions.
        busy = max(0.0, cpu[component] - idle[component] * result.seconds)
        found.append(row(f"{label}: CPU per action, {component}", 1000 * cpu[component] / n, "ms"))
        found.append(row(f"{label}: CPU per action, {component}, less its idle cost", 1000 * busy / n, "ms"))
    for part in POSTGRES_PARTS:
        backends_cpu = result.cpu_by_process.get(f"postgres-{part}", 0.0)
        found.append(row(f"{label}: CPU per action, postgres backends of the {part}", 1000 * backends_cpu / n, "ms"))
    known = wal.bytes is not None and wal.commits is not None  # pg_walinspect could read the WAL
    return [
        *found,
        row(f"{label}: events per action", result.events / n, "events"),
        row(f"{label}: commits per action (reads too)", result.counters["xact_commit"] / n, "commits"),
        row(
            f"{label}: writing commits per action (WAL commit records)",
            (wal.commits or 0) / n if known else None,
            "commits",
        ),
        row(f"{label}: rows inserted per action", result.counters["tup_inserted"] / n),
        row(f"{label}: rows updated per action", result.counters["tup_updated"] / n),
        row(f"{label}: WAL per action (the run's database)", (wal.bytes or 0) / n if known else None, "bytes"),
        row(f"{label}: of which full-page images", (wal.fpi_bytes or 0) / n if known else None, "bytes"),
    ]


def describe(result: ScalingResult) -> str:
    """The raw counts, for docs/scaling.md."""
    wal, actions, cpu = result.wal, max(result.actions, 1), result.cpu
    return "\n".join(
        [
            f"window {result.seconds:.1f} s, actions {result.actions}, events {result.events}, "
            f"requests {result.simulation['summary']['requests']}",
            "CPU seconds: " + ", ".join(f"{c} {cpu[c]:.2f}" for c in COMPONENTS),
            "CPU seconds by process: " + ", ".join(f"{n} {v:.2f}" for n, v in sorted(result.cpu_by_process.items())),
            f"idle CPU seconds per second ({IDLE_S:g} s, no bots): "
            + ", ".join(f"{c} {result.idle_cpu[c]:.3f}" for c in COMPONENTS),
            "pg_stat_database: " + ", ".join(f"{k} {v}" for k, v in result.counters.items()),
            f"WAL: run's database {wal.bytes} bytes ({wal.fpi_bytes} of full-page images), {wal.commits} commit "
            f"records; cluster {wal.cluster_bytes} bytes",
            "WAL bytes per action by relation: "
            + ", ".join(f"{k} {n / actions:.0f}" for k, n in wal.by_relation.items()),
            f"relay takeover {result.relay_takeover_s} s, restarted relay stands by: "
            f"{result.relay_restarted_stands_by}",
            str(result.verification.render()),
            *(report.summary() for report in result.rebuilds),
        ]
    )


def run() -> list[Row]:
    result = run_scaled(
        server_url(),
        env_float("BENCH_SCALING_SECONDS", 40.0, 8.0),
        env_int("BENCH_SCALING_TABLES", 16, 4),
        os.environ.get("BENCH_SCALING_GAME", "").strip() or "cholek-tiga",
        os.environ.get("BENCH_SCALING_CLIENT", "").strip() or "holding",
        env_int("BENCH_SCALING_SEATS", 2),
    )
    print(describe(result), file=sys.stderr)
    return rows(result)


if __name__ == "__main__":
    print_table(run())
