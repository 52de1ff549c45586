"""Where the work per action goes with 8 and with 256 tables in play: counts, for bench/tables.py's gap.

Run: python -m bench.tables_counts stack [--game cholek-tiga] [--seconds 20]
     python -m bench.tables_counts app [--game cholek-tiga] [--actions 800] [--rounds 2]
     python -m bench.tables_counts mix [--game cholek-tiga] [--first 3] [--last 19]

`stack`: one `cardledger up` stack and bench.tables' points (`measure`), mirrored (8, 256, 256, 8); around each
window PostgreSQL's statistics of the bench's database (pg_stat_database, and per table pg_stat_user_tables and
pg_statio_user_tables: rows inserted, updated, read by sequential scans, index scans, buffer pages of the heap and
of the indexes), per action, and the API connections each gunicorn worker holds (the client's 8 connections, and
so its tables, are split between the workers as they accept them). A backend reports its statistics at most once
a second, so a window's edges blur by about a second of work.

`app`: the API's Flask app in this process (bench.action_cost's `served_app`: admission included, two pooled
connections, libpq traced), the polling client's requests (read the seat view, act; read again when another seat
is to act) at 8 and 256 tables played in turn, interleaved rounds: Python calls (cProfile), SQL round trips and
decks shuffled (`domain.decks.shuffles`) per action.

`mix`: what a play brings with it by where it falls in its deal, through the pure domain (the random bot, 60 tables
of fixed seeds): events appended per play (with the `ready` writes and deal starts and ends between deals) and how
often the seat to act differs from the last one (the polling client then reads a second view), over deals 2 to 4
against plays --first to --last of deal 1 (what a 256-table window of bench.tables holds: the fewer actions per
second, the fewer plays per table past the warm-up).
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import random
import sys
import uuid
from pathlib import Path
from typing import Any

import psutil
import psycopg

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import tables as bench_tables  # noqa: E402

ORDER = (8, 256, 256, 8)
TABLE_COLUMNS = (
    "seq_tup_read",
    "idx_scan",
    "idx_tup_fetch",
    "n_tup_ins",
    "n_tup_upd",
    "n_tup_hot_upd",
    "heap_blks",
    "idx_blks",
)


def statistics_now(url: str) -> dict[str, float]:
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("SELECT pg_stat_clear_snapshot()")
        row = conn.execute(
            "SELECT blks_hit + blks_read, tup_returned FROM pg_stat_database WHERE datname = current_database()"
        ).fetchone()
        found = {"database pages": float(row[0]), "database tuples returned": float(row[1])} if row else {}
        for rel, *values in conn.execute(
            """SELECT t.relname, coalesce(t.seq_tup_read, 0), coalesce(t.idx_scan, 0), coalesce(t.idx_tup_fetch, 0),
                      t.n_tup_ins, t.n_tup_upd, t.n_tup_hot_upd,
                      coalesce(s.heap_blks_hit, 0) + coalesce(s.heap_blks_read, 0),
                      coalesce(s.idx_blks_hit, 0) + coalesce(s.idx_blks_read, 0)
               FROM pg_stat_user_tables t JOIN pg_statio_user_tables s USING (relid)"""
        ):
            for column, value in zip(TABLE_COLUMNS, values, strict=True):
                found[f"{rel}.{column}"] = float(value)
        return found


def api_connections(root: psutil.Process, port: int) -> list[int]:
    held = []
    for pid, kind in bench_tables.classify(root).items():
        if kind.startswith("API worker"):
            try:
                connections = psutil.Process(pid).net_connections("tcp")
            except psutil.Error:
                continue
            held.append(sum(1 for c in connections if c.laddr and c.laddr.port == port and c.status == "ESTABLISHED"))
    return sorted(held, reverse=True)


def run_stack(game: str, seconds: float) -> list[dict[str, Any]]:
    """bench.tables' points, with the database's statistics read where the window's CPU is."""
    edges: list[dict[str, float]] = []
    held: list[list[int]] = []
    cpu_seconds = bench_tables.database_cpu_seconds

    with bench_tables.bench_stack() as (stack, url):
        root = psutil.Process(stack.process.pid)
        port = int(stack.base_url.rstrip("/").rsplit(":", 1)[1])

        def noted(database_url: str) -> dict[int, float]:
            edges.append(statistics_now(database_url))
            held.append(api_connections(root, port))
            return cpu_seconds(database_url)

        bench_tables.database_cpu_seconds = noted
        points = []
        try:
            for n, tables in enumerate(ORDER):
                edges.clear()
                measured = bench_tables.measure(stack.base_url, url, root, game, tables, seconds, n)
                before, after = edges
                per_action = {
                    key: (after[key] - before.get(key, 0.0)) / measured["actions"]
                    for key in after
                    if after[key] != before.get(key, 0.0)
                }
                points.append({"tables": tables, **measured, "statistics": per_action, "connections": held[-1]})
                print(json.dumps(points[-1]), file=sys.stderr)
        finally:
            bench_tables.database_cpu_seconds = cpu_seconds
    return points


def run_app(game: str, actions: int, rounds: int) -> None:
    import domain.decks
    from bench.action_cost import POOL_SIZE, Client, served_app, server_url
    from infra.migrations import migrate
    from services.simulate.bots import make_bot
    from tests.conftest import fresh_database
    from tests.round_trips import round_trips, traced_pool

    bot = make_bot("random", random.Random(5))
    with fresh_database(server_url(), prefix="cardledger_bench") as url:
        migrate(url)
        with served_app(url) as (app, container):
            trace = traced_pool(container.pool, POOL_SIZE)
            client = Client(app.test_client())

            def open_table(n: int) -> list[Any]:
                auth = []
                for seat in range(2):
                    token = client.post("/v1/players", json={"name": f"p{n}-{seat}"}).get_json()["token"]
                    auth.append({"Authorization": f"Bearer {token}"})
                body = {"game": game, "seats": 2, "options": {"turn_seconds": bench_tables.TURN_SECONDS}}
                table = client.post("/v1/tables", json=body, headers=auth[0]).get_json()["id"]
                for seat in range(2):
                    client.post(
                        f"/v1/tables/{table}/seats", json={"seat": seat, "client_seed": f"c{seat}"}, headers=auth[seat]
                    )
                return [table, auth, 0]

            def step(played: list[Any]) -> int:
                table, auth, reader = played
                view = client.get(f"/v1/tables/{table}/view", headers=auth[reader]).get_json()
                if view["status"] != "playing":
                    for seat in range(2):
                        ready = {"type": "ready", "client_seed": f"r{seat}-{view['deal_no']}"}
                        headers = {**auth[seat], "Idempotency-Key": str(uuid.uuid4())}
                        client.post(f"/v1/tables/{table}/actions", json=ready, headers=headers)
                    return 0
                if view["to_act"] != view["seat"]:
                    played[2] = reader = view["to_act"]
                    view = client.get(f"/v1/tables/{table}/view", headers=auth[reader]).get_json()
                headers = {**auth[reader], "Idempotency-Key": str(uuid.uuid4()), "If-Match": f'"{view["version"]}"'}
                answer = client.post(f"/v1/tables/{table}/actions", json=bot.choose(view), headers=headers)
                assert answer.status_code == 201, answer.get_json()
                return 1

            tables = {count: [open_table(n) for n in range(count)] for count in (8, 256)}
            for played in tables.values():
                for table in played:
                    step(table)
                    step(table)
            for n in range(rounds):
                for count in bench_tables.point_order(n):
                    done = turn = 0
                    profile = cProfile.Profile()
                    mark, shuffled = trace.mark(), domain.decks.shuffles
                    profile.enable()
                    while done < actions:
                        done += step(tables[count][turn % count])
                        turn += 1
                    profile.disable()
                    calls = pstats.Stats(profile).total_calls  # type: ignore[attr-defined]
                    print(
                        f"round {n + 1}, {count} tables: {calls / done:,.0f} Python calls, "
                        f"{round_trips(trace.since(mark)) / done:.2f} SQL round trips, "
                        f"{(domain.decks.shuffles - shuffled) / done:.3f} decks shuffled per action"
                    )


def run_mix(game: str, first: int, last: int) -> None:
    from bench.action_cost import fixed_seed
    from domain import table as domain_tables
    from services.simulate.bots import RandomBot

    bot = RandomBot(random.Random(1))
    whole = {"events": 0, "plays": 0, "switches": 0}
    early = {"events": 0, "plays": 0, "switches": 0}
    for n in range(60):
        opened = domain_tables.open_table(f"mix-{n}", game, 2, {"turn_seconds": 3600}, fixed_seed(1))
        state = domain_tables.fold(None, [opened])
        for seat in range(2):
            sit = domain_tables.Sit(f"p{seat}", seat, f"c{seat}")
            _, state = domain_tables.decide_and_evolve(state, sit, {1: fixed_seed(1), 2: fixed_seed(2)})
        position, deal, previous = 0, state.deal_no, None
        while state.deal_no <= 4:
            seeds = {d: fixed_seed(d) for d in (state.deal_no, state.deal_no + 1) if d >= 1}
            if state.status == domain_tables.BETWEEN_DEALS:
                seat = min(set(range(state.seats)) - set(state.ready))
                ready = domain_tables.Act(seat, {"type": "ready", "client_seed": f"r{seat}"})
                events, state = domain_tables.decide_and_evolve(state, ready, seeds)
                whole["events"] += len(events) if deal >= 2 else 0
                continue
            if state.deal_no != deal:
                deal, position = state.deal_no, 0
            seat = domain_tables.to_act(state)
            assert seat is not None
            play = domain_tables.Act(seat, bot.choose(domain_tables.seat_view(state, seat)))
            events, state = domain_tables.decide_and_evolve(state, play, seeds)
            switched, previous = int(previous is not None and seat != previous), seat
            for counts, counted in ((whole, deal >= 2), (early, deal == 1 and first <= position <= last)):
                if counted:
                    counts["events"] += len(events)
                    counts["plays"] += 1
                    counts["switches"] += switched
            position += 1
    for name, counts in (("deals 2-4, whole", whole), (f"deal 1, plays {first}-{last}", early)):
        print(
            f"{game}, {name}: {counts['events'] / counts['plays']:.3f} events appended and "
            f"{counts['switches'] / counts['plays']:.3f} changes of the seat to act per play ({counts['plays']} plays)"
        )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.tables_counts")
    parser.add_argument("what", choices=("stack", "app", "mix"))
    parser.add_argument("--game", default="cholek-tiga")
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--actions", type=int, default=800)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--first", type=int, default=3, help="mix: the first play of deal 1 counted (from 0)")
    parser.add_argument("--last", type=int, default=19, help="mix: the last play of deal 1 counted")
    args = parser.parse_args(argv)
    if args.what == "app":
        run_app(args.game, args.actions, args.rounds)
        return
    if args.what == "mix":
        run_mix(args.game, args.first, args.last)
        return
    points = run_stack(args.game, args.seconds)
    keys = sorted(set().union(*(p["statistics"] for p in points)))
    print(f"{'per action':44s}" + "".join(f"{p['tables']:>10d}" for p in points))
    for name in ("rate", "actions"):
        print(f"{name:44s}" + "".join(f"{p[name]:>10.0f}" for p in points))
    for kind in sorted(points[0]["cpu_ms_per_action"]):
        print(f"{'CPU ms, ' + kind:44s}" + "".join(f"{p['cpu_ms_per_action'].get(kind, 0.0):>10.3f}" for p in points))
    for key in keys:
        print(f"{key:44s}" + "".join(f"{p['statistics'].get(key, 0.0):>10.3f}" for p in points))
    print(
        f"{'API connections per worker':44s}" + "".join(f"{'/'.join(map(str, p['connections'])):>10s}" for p in points)
    )


if __name__ == "__main__":
    main()
