"""What the relay's looks and batches cost per event, counted: its instructions (callgrind), its backend's CPU and
the Redis server's (the server's own accounting), over a played log of Cholek Tiga.

Run:  python -m bench.relay_cost [--events 2000] [--batch 2] [--tables 8] [--redis-instructions]   (valgrind; minutes)

A fresh database on DATABASE_URL's server is filled by `bench.catch_up.played_log` (Cholek Tiga, `--tables`
tables, two deals each) and a private redis-server started. The relay's work per look is then done in a child
process under `valgrind --tool=callgrind`, batch after batch of `--batch` events from the start of the log, as the
running relay does after each wait: read the log after its position (one statement), pace the next look, publish
the batch (one script call; a projection job waiting, as under steady writes, so none is enqueued), count it. The
child runs twice, publishing only the first `WARM_UP` events and then `--events` more: the difference over
`--events` is the relay's instructions per event. The same work is then done once more in this process without
valgrind, for its backend's CPU per event (/proc, user + system), the statements it sent, and the Redis server's
microseconds per event (INFO commandstats by command, and INFO cpu, the whole server). With
`--redis-instructions`, the work is done twice more (`WARM_UP` events, then `--events` more) against a
redis-server run by callgrind, whose difference is the server's instructions per event.
"""

from __future__ import annotations

import argparse
import json
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

WARM_UP = 20  # events published before the measured ones: statements prepared, the script loaded


def child(database_url: str, redis_url: str, events: int, batch: int) -> dict[str, Any]:
    """Publish `WARM_UP` + `events` events of the log, `batch` at a time, as the relay does; what it cost."""
    import psycopg

    from bench.counting import cpu_seconds
    from infra.db import connect
    from infra.event_store import START
    from services.relay import relay as relay_module

    relay = relay_module.Relay(database_url, redis_url, threading.Event())
    client = relay_module.redis_client(redis_url)
    statements = [0]
    execute = psycopg.Cursor.execute

    def counted(cursor: Any, query: Any, *args: Any, **kwargs: Any) -> Any:
        statements[0] += 1
        return execute(cursor, query, *args, **kwargs)

    def look(conn: Any, position: Any) -> list[Any]:
        found: list[Any] = read(conn, position)
        if found:
            relay._next_poll = relay._interval_after(time.monotonic(), len(found))
            relay._publish(client, found)
            relay_module.RELAY_PUBLISHED.inc(len(found))
        return found

    with connect(database_url, relay_module.COMPONENT) as conn:
        tail = relay_module.LogTail(conn)  # the relay's reads on one cursor held across looks
        read = lambda _conn, position: tail.after(position, batch)  # noqa: E731
        position, published = START, 0
        while published < WARM_UP:
            found = look(conn, position)
            position, published = found[-1].log_position, published + len(found)
        backend = cpu_seconds(conn.info.backend_pid) or 0.0
        psycopg.Cursor.execute = counted  # type: ignore[method-assign, assignment]
        while published < WARM_UP + events:
            found = look(conn, position)
            if not found:
                raise SystemExit(f"the log ends after {published} events: fewer than asked (--tables)")
            position, published = found[-1].log_position, published + len(found)
        psycopg.Cursor.execute = execute  # type: ignore[method-assign]
        backend = (cpu_seconds(conn.info.backend_pid) or 0.0) - backend
    client.close()
    return {"published": published - WARM_UP, "backend_s": backend, "statements": statements[0]}


def _child_run(database_url: str, redis_url: str, events: int, batch: int, out: Path) -> int:
    from bench.counting import module_instructions

    args = ["--run", database_url, redis_url, "--events", str(events), "--batch", str(batch), "--out", str(out)]
    return module_instructions("bench.relay_cost", args)


def _redis_usage(client: Any) -> tuple[dict[str, tuple[int, int]], float]:
    stats = client.info("commandstats")
    cpu = client.info("cpu")
    commands = {
        name.removeprefix("cmdstat_"): (int(v["calls"]), int(v["usec"]))
        for name, v in stats.items()
        if name not in ("cmdstat_info", "cmdstat_config|resetstat", "cmdstat_flushdb")
    }
    return commands, float(cpu["used_cpu_user"]) + float(cpu["used_cpu_sys"])


def _prepared(client: Any) -> None:
    from infra.queueing import enqueue_projections

    client.flushdb()
    enqueue_projections(client)  # a job waiting: no batch enqueues another
    client.config_resetstat()


@contextmanager
def _redis_under_callgrind(out: Path) -> Iterator[str]:
    """A private redis-server run by callgrind (`--hz 1`: its timer's work small beside the commands'), stopped
    (and its counts written to `out`) when the block ends."""
    import redis

    from services.cli.simulate.stack import free_port
    from tests.faults.servers import redis_server_binary

    port = free_port()
    command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", redis_server_binary(), "--port"]
    command += [str(port), "--save", "", "--appendonly", "no", "--hz", "1"]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"redis://127.0.0.1:{port}/0"
    try:
        client = redis.Redis.from_url(url)
        for _ in range(600):
            try:
                client.ping()
                break
            except redis.ConnectionError:
                time.sleep(0.1)
        client.close()
        yield url
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=120)


def measure(events: int, batch: int, tables: int, redis_instructions: bool) -> dict[str, Any]:
    import redis

    from bench.counting import totals
    from bench.harness import fresh_database, played_log, private_redis

    with (
        private_redis() as redis_url,
        fresh_database() as url,
        tempfile.TemporaryDirectory(prefix="cardledger-relay-cost-") as scratch,
    ):
        played_log(url, "cholek-tiga", tables)
        client = redis.Redis.from_url(redis_url)
        counts = {}
        for n in (0, events):
            _prepared(client)
            counts[n] = _child_run(url, redis_url, n, batch, Path(scratch) / "child.json")
        _prepared(client)  # the same work again without valgrind: the servers' CPU beside a relay at full speed
        _, cpu_before = _redis_usage(client)
        results = child(url, redis_url, events, batch)
        results["redis_commands"], cpu_after = _redis_usage(client)
        results["redis_cpu_s"] = cpu_after - cpu_before
        results["instructions"] = (counts[events] - counts[0]) / results["published"]
        client.close()
        if redis_instructions:
            server_counts = {}
            for n in (0, events):
                out = Path(scratch) / f"redis-{n}.callgrind"
                with _redis_under_callgrind(out) as private_url:
                    private = redis.Redis.from_url(private_url)
                    _prepared(private)
                    private.close()
                    child(url, private_url, n, batch)
                server_counts[n] = totals(out)
            results["redis_instructions"] = (server_counts[events] - server_counts[0]) / results["published"]
    return results


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.relay_cost", description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=2000)
    parser.add_argument("--batch", type=int, default=2)
    parser.add_argument("--tables", type=int, default=8)
    parser.add_argument("--redis-instructions", action="store_true", help="also run redis-server under callgrind")
    parser.add_argument("--run", nargs=2, metavar=("DATABASE_URL", "REDIS_URL"), help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.run:
        got = child(args.run[0], args.run[1], args.events, args.batch)
        Path(args.out).write_text(json.dumps(got))
        return
    got = measure(args.events, args.batch, args.tables, args.redis_instructions)
    n = got["published"]
    print(f"relay, batches of {args.batch}: {got['instructions']:,.0f} instructions per event ({n} events)")
    print(f"its backend: {got['backend_s'] / n * 1e6:,.1f} us CPU per event, {got['statements'] / n:.2f} statements")
    if "redis_instructions" in got:
        print(f"Redis server: {got['redis_instructions']:,.0f} instructions per event (callgrind, --hz 1)")
    everything = n + WARM_UP  # the server's own counts take in the warm-up's events too
    redis_calls = sum(calls for calls, _ in got["redis_commands"].values())
    print(f"Redis server: {got['redis_cpu_s'] / everything * 1e6:,.1f} us CPU per event (INFO cpu, the whole server)")
    print(f"  commands per event: {redis_calls / everything:.2f}; usec per event by command (INFO commandstats):")
    for name, (calls, usec) in sorted(got["redis_commands"].items()):
        each, per_call = (calls / everything, usec / everything), usec / max(calls, 1)
        print(f"    {name:<10} {each[0]:6.2f} calls  {each[1]:7.2f} us  ({per_call:.2f} us per call)")


if __name__ == "__main__":
    main()
