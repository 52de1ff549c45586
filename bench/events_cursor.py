"""The instructions (callgrind) of one read of a table's events after a version (`EVENTS_AFTER_SQL`, what a
state kept is folded on with: a seat view pushed by another API process), on a cursor made per read
(`fetch_events`) or on the connection's kept cursor (`fetch_events_kept`). A fresh database, a table with no
events (the statement's own cost: the rows' loading is the same either way); each way is run twice under
callgrind, with no reads and with N, after ten reads that let psycopg prepare the statement.

Run:  python -m bench.events_cursor [--reads 2000]
"""

from __future__ import annotations

import argparse
import uuid

from bench.action_cost import server_url
from bench.callgrind import module_instructions

WAYS = ("per-read", "kept")


def read(way: str, count: int) -> None:
    from infra.db import connect
    from infra.event_store import fetch_events, fetch_events_kept
    from infra.migrations import migrate
    from infra.table_loader import EVENTS_AFTER_SQL
    from tests.conftest import fresh_database

    fetch = fetch_events_kept if way == "kept" else fetch_events
    with fresh_database(server_url(), prefix="cardledger_cursor") as url:
        migrate(url)
        with connect(url) as conn:
            params = (str(uuid.UUID(int=7)), 0, 201)
            for _ in range(10 + count):
                fetch(conn, EVENTS_AFTER_SQL, params)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.events_cursor", description=__doc__.splitlines()[0])
    parser.add_argument("--reads", type=int, default=2000)
    parser.add_argument("--inner", choices=WAYS, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.inner:
        read(args.inner, args.reads)
        return
    for way in WAYS:
        idle = module_instructions("bench.events_cursor", ["--inner", way, "--reads", "0"])
        busy = module_instructions("bench.events_cursor", ["--inner", way, "--reads", str(args.reads)])
        print(f"{way}: {(busy - idle) / args.reads:,.0f} instructions per read ({idle:,} and {busy:,})", flush=True)


if __name__ == "__main__":
    main()
