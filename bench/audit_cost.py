"""The API process's own cost of a deal record and a dispute report, counted rather than timed: CPU seconds of
this process per read and (under callgrind) instructions per read, for the latest deal of a table with a long
history, a table's first deal and its second deal.

Run:  python -m bench.audit_cost [--deals 200] [--reads 30]
      python -m bench.audit_cost --callgrind [--deals 200] [--reads 10]    (valgrind; about a minute per run)
      python -m bench.audit_cost --keep ...     (keeps the database and prints --use arguments)
      python -m bench.audit_cost --use URL OLD_TABLE OLD_TOKEN YOUNG_TABLE YOUNG_TOKEN ...   (no seeding)

Seeding (not measured): on a fresh database created on DATABASE_URL's server (dropped at the end unless
`--keep`), one table of Cholek Tiga is played to `--deals` finished deals through `CardLedger` in this process
(as `bench.history` seeds its old table), and `--young` young tables to two deals each. A deal's record and
report cost about its events, and random deals differ in length: the young table compared is the one whose first
and second deals are closest in length to the old table's latest (each row names its deal's events).

Reads: the API's Flask app (as `bench.action_cost` builds it: `create_served_app`'s admission, two pooled
connections, Redis at REDIS_URL) in this process through Flask's test client, a seated player's token. Every
target is read once first (imports, caches, prepared statements), then each target `--reads` times, round by
round; the CPU time of this process around each target's reads. With `--callgrind`, this script is run under
`valgrind --tool=callgrind` once reading every target once only, and once per target reading it `--reads` times
more: the difference of the instruction totals, divided by `--reads`, is one read's instructions in this process
(Flask, the audit, psycopg's side of the SQL; not PostgreSQL's work, which another process does). `--kind` and
`--target` ("deal 200", "first deal", "second deal") choose the runs; `--idle N` reuses the first run's total.

`--use` reads a database seeded before (by `--keep`, perhaps from another checkout): before/after runs of two
checkouts on the same tables.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from math import nan
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.action_cost import redis_url, served_app, server_url  # noqa: E402
from bench.callgrind import module_instructions  # noqa: E402

READS: dict[str, Callable[[str, int], str]] = {
    "deal record": lambda table, deal: f"/v1/tables/{table}/deals/{deal}",
    "dispute report (JSON)": lambda table, deal: f"/v1/reports/dispute?table_id={table}&deal_no={deal}",
    "dispute page (HTML)": lambda table, deal: f"/v1/reports/dispute?table_id={table}&deal_no={deal}&format=html",
}


@dataclass(frozen=True)
class Target:
    name: str  # "deal 200", "first deal", "second deal"
    table_id: str
    deal_no: int
    token: str
    events: int


# Seeding --------------------------------------------------------------------------------------------------------


def deal_lengths(url: str, table_id: str) -> dict[int, int]:
    """Events per finished deal of the table (deal_started to deal_ended)."""
    import psycopg

    with psycopg.connect(url) as conn:
        rows = conn.execute(
            """SELECT deal_no, max(version) FILTER (WHERE type = 'deal_ended')
                        - min(version) FILTER (WHERE type = 'deal_started') + 1
               FROM events WHERE stream_id = %s AND type IN ('deal_started', 'deal_ended') GROUP BY deal_no""",
            (table_id,),
        ).fetchall()
    return {int(deal): int(length) for deal, length in rows if length is not None}


def seed(url: str, deals: int, young: int) -> tuple[str, str, str, str]:
    """(old table, its player's token, young table, its player's token)."""
    from bench.history import seed_table
    from infra.config import Settings
    from infra.signing import ReceiptSigner
    from services.bootstrap import bootstrap

    rng = random.Random("bench.audit_cost")
    container = bootstrap(
        Settings(database_url=url, redis_url=redis_url()), start_embedded=False, signer=ReceiptSigner.ephemeral()
    )
    try:
        print(f"  bench.audit_cost: playing {deals} deals at one table ...", file=sys.stderr)
        old_id, old_seated = seed_table(container.ledger, deals, rng)
        target = deal_lengths(url, old_id)[deals]
        best: tuple[int, str, str] | None = None
        for _ in range(young):
            young_id, young_seated = seed_table(container.ledger, 2, rng)
            lengths = deal_lengths(url, young_id)
            miss = abs(lengths[1] - target) + abs(lengths[2] - target)
            if best is None or miss < best[0]:
                best = (miss, young_id, young_seated[0].token)
            if miss == 0:
                break
    finally:
        container.close()
    assert best is not None
    return old_id, old_seated[0].token, best[1], best[2]


def targets(url: str, old: str, old_token: str, young: str, young_token: str) -> list[Target]:
    old_lengths, young_lengths = deal_lengths(url, old), deal_lengths(url, young)
    latest = max(old_lengths)
    return [
        Target(f"deal {latest}", old, latest, old_token, old_lengths[latest]),
        Target("first deal", young, 1, young_token, young_lengths[1]),
        Target("second deal", young, 2, young_token, young_lengths[2]),
    ]


# Reading --------------------------------------------------------------------------------------------------------


def read_all(url: str, chosen: list[Target], reads: int, measured: list[tuple[str, str]] | None) -> dict[str, float]:
    """Read every (kind, target) once, then `reads` more times each (only the `measured` ones, when given),
    round by round; CPU seconds per read by "kind|target"."""
    cpu: dict[str, float] = {}
    with served_app(url) as (app, _container):
        client = app.test_client()

        def get(kind: str, target: Target) -> None:
            path = READS[kind](target.table_id, target.deal_no)
            with client.get(path, headers={"Authorization": f"Bearer {target.token}"}) as response:
                if response.status_code != 200:
                    raise RuntimeError(f"{kind} of {target.name}: {response.status_code} {response.get_data()!r}")
                if kind != "dispute page (HTML)":
                    verification = response.get_json()["verification"]
                    assert verification["ok"] is True, verification

        for kind in READS:
            for target in chosen:
                get(kind, target)
        rounds = 3 if reads and reads % 3 == 0 else 1  # every read counted: `reads` in `rounds` equal blocks
        for _ in range(rounds):
            for kind in READS:
                for target in chosen:
                    if measured is not None and (kind, target.name) not in measured:
                        continue
                    started = time.process_time()
                    for _ in range(reads // rounds):
                        get(kind, target)
                    key = f"{kind}|{target.name}"
                    cpu[key] = cpu.get(key, 0.0) + (time.process_time() - started) / (reads // rounds * rounds)
    return cpu


def callgrind_instructions(args: argparse.Namespace, chosen: list[Target], measured: tuple[str, str] | None) -> int:
    """Instructions of this script under callgrind reading every target once, then (`measured`) one kind of one
    target `--reads` times more."""
    return module_instructions(
        "bench.audit_cost",
        [
            "--child",
            json.dumps({"targets": [asdict(t) for t in chosen], "measured": measured, "reads": args.reads}),
            "--use",
            *args.use,
        ],
    )


def child(spec: str, url: str) -> None:
    parsed = json.loads(spec)
    chosen = [Target(**t) for t in parsed["targets"]]
    measured = parsed["measured"]
    read_all(url, chosen, parsed["reads"] if measured else 0, [tuple(measured)] if measured else [])


# Main ------------------------------------------------------------------------------------------------------------


def measure(args: argparse.Namespace) -> None:
    chosen = targets(*args.use)
    for target in chosen:
        print(f"{target.name}: table {target.table_id} deal {target.deal_no}, {target.events} events")
    base = chosen[1]
    if args.callgrind:
        idle = args.idle if args.idle is not None else callgrind_instructions(args, chosen, None)
        print(f"callgrind: every target read once: {idle:,} instructions")
        for kind in READS:
            if kind not in args.kind:
                continue
            per: dict[str, float] = {}
            for target in chosen:
                if args.target and target.name not in args.target:
                    continue
                total = callgrind_instructions(args, chosen, (kind, target.name))
                per[target.name] = (total - idle) / args.reads
            for target in chosen:
                if target.name not in per:
                    continue
                value = per[target.name]
                print(
                    f"{kind}, {target.name} ({target.events} events): {value:,.0f} instructions per read, "
                    f"{value / target.events:,.0f} per event; / first deal {value / per.get(base.name, nan):.3f}",
                    flush=True,
                )
        return
    cpu = read_all(args.use[0], chosen, args.reads, None)
    for kind in READS:
        for target in chosen:
            value = cpu[f"{kind}|{target.name}"]
            first = cpu[f"{kind}|{base.name}"]
            print(
                f"{kind}, {target.name} ({target.events} events): {1000 * value:.2f} ms CPU per read; "
                f"/ first deal {value / first:.3f}"
            )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.audit_cost", description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--young", type=int, default=12, help="young tables played, to match the deals' lengths")
    parser.add_argument("--reads", type=int, default=30)
    parser.add_argument("--callgrind", action="store_true", help="count instructions per read (valgrind)")
    parser.add_argument("--kind", action="append", choices=list(READS), help="with --callgrind; default: all")
    parser.add_argument("--target", action="append", help='with --callgrind: only "first deal", "deal 200" ...')
    parser.add_argument(
        "--idle", type=int, help="with --callgrind: the instructions of a run reading every target once"
    )
    parser.add_argument("--keep", action="store_true", help="keep the seeded database")
    parser.add_argument("--use", nargs=5, metavar=("URL", "OLD", "OLD_TOKEN", "YOUNG", "YOUNG_TOKEN"))
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    args.kind = args.kind or list(READS)
    if args.child:
        child(args.child, args.use[0])
        return
    if args.use:
        measure(args)
        return
    import secrets

    import psycopg
    from psycopg import sql

    from infra.migrations import migrate
    from tests.conftest import database_url_for

    name = f"cardledger_audit_cost_{secrets.token_hex(6)}"
    with psycopg.connect(server_url(), autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    url = database_url_for(server_url(), name)
    try:
        migrate(url)
        args.use = [url, *seed(url, args.deals, args.young)]
        if args.keep:
            print("--use " + " ".join(args.use), flush=True)
        measure(args)
    finally:
        if not args.keep:
            with psycopg.connect(server_url(), autocommit=True) as admin:
                admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


if __name__ == "__main__":
    main()
