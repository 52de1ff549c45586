"""Every statement the running stack repeats, with the generic plan PostgreSQL runs it with and the rows it reads.

Run: python -m bench.plans [--tables T] [--seconds S]

A fresh database on DATABASE_URL's server (a superuser: it sets auto_explain for that database) gets a history:
T tables of Cholek Tiga played two deals each (`bench.catch_up.played_log`), ANALYZEd. Then the database is set to
plan every parameterised statement generically (plan_cache_mode = force_generic_plan, as a statement psycopg has
prepared may be planned) and to explain every statement it runs with its actual rows (auto_explain into the
server's log), and a `cardledger up` stack serves `cardledger simulate` (streaming seats, a short turn clock, absent
players, the auditor's verification at the end) while the relay's and the workers' metrics are scraped. Read back
from the server's log (PG_LOG, default the Debian cluster's), the report lists each distinct statement: how often it
ran, the scans of its plans (relation, node, index) and the most rows a run read from events or a read model
(rows returned by a scan node plus those its filter removed, times its loops), marking a Seq Scan of events or a
read model and any scan that read more than 200 rows, to be looked at. The stack leaves its keys in REDIS_URL's
database.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import urllib.request
from collections import defaultdict
from pathlib import Path
from typing import Any

import psycopg

from bench.harness import fresh_database, played_log
from services.cli.simulate.stack import embedded_stack, free_port

PG_LOG = Path(os.environ.get("PG_LOG", "/var/log/postgresql/postgresql-15-main.log"))
AUDITOR = "plans-bench-auditor-token-0123456789abcdef"
BIG = {"events", "table_views", "hand_tricks", "ledger_lines", "settlements", "deal_settlements", "closing_refunds"}
SETTINGS = {
    "session_preload_libraries": "auto_explain",
    "auto_explain.log_min_duration": "0",
    "auto_explain.log_analyze": "on",
    "auto_explain.log_timing": "off",
    "auto_explain.log_format": "json",
    "plan_cache_mode": "force_generic_plan",
}


def scans(node: dict[str, Any], found: list[tuple[str, str, str, float]]) -> None:
    relation = node.get("Relation Name")
    if relation is not None:
        read = (node.get("Actual Rows", 0) + node.get("Rows Removed by Filter", 0)) * node.get("Actual Loops", 1)
        index = node.get("Index Name") or ",".join(p.get("Index Name", "") for p in node.get("Plans", []))
        found.append((relation, node["Node Type"], index, read))
    for child in node.get("Plans", []):
        scans(child, found)


def logged_plans(text: str, database: str) -> list[tuple[str, dict[str, Any]]]:
    """(query text, plan) of each auto_explain entry of `database` in the log text."""
    entries = re.split(r"\n(?=\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)", text)
    found = []
    for entry in entries:
        if f"@{database} " not in entry.split("\n", 1)[0] or "plan:" not in entry:
            continue
        body = json.loads(entry.split("plan:", 1)[1])
        found.append((" ".join(body["Query Text"].split()), body["Plan"]))
    return found


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tables", type=int, default=30)
    parser.add_argument("--seconds", type=float, default=40)
    args = parser.parse_args()
    with fresh_database("cardledger_plans") as url:
        played_log(url, "cholek-tiga", args.tables)
        database = url.rsplit("/", 1)[1]
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("ANALYZE")
            events = conn.execute("SELECT count(*) FROM events").fetchone()
            for name, value in SETTINGS.items():
                conn.execute(f"ALTER DATABASE \"{database}\" SET {name} = '{value}'")
        start = PG_LOG.stat().st_size
        relay_port, worker_port = free_port(), free_port()
        env = {
            "DATABASE_URL": url,
            "CARDLEDGER_AUDITOR_TOKEN": AUDITOR,
            "CARDLEDGER_RELAY_METRICS_PORT": str(relay_port),
            "CARDLEDGER_WORKER_METRICS_PORT": str(worker_port),
            "CARDLEDGER_WORKERS": "1",
        }
        with embedded_stack(env) as stack:
            for client in ("streaming", "polling"):
                command = [sys.executable, "-m", "services.cli", "simulate", "--url", stack.base_url, "--game"]
                command += ["cholek-tiga", "--tables", "4", "--seats", "2", "--concurrency", "4", "--deals", "2"]
                command += ["--client", client, "--absent", "0.05", "--turn-seconds", "5", "--auditor-token"]
                command += [AUDITOR, "--duration", str(args.seconds / 2), "--no-progress"]
                subprocess.run(command, stdout=subprocess.DEVNULL, check=False)
                for port in (relay_port, worker_port):
                    for _ in range(6):
                        urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics").read()
        with PG_LOG.open(errors="replace") as log:
            log.seek(start)
            text = log.read()
    runs: dict[str, int] = defaultdict(int)
    worst: dict[str, dict[tuple[str, str, str], float]] = defaultdict(dict)
    for query, plan in logged_plans(text, database):
        runs[query] += 1
        found: list[tuple[str, str, str, float]] = []
        scans(plan, found)
        for relation, node, index, read in found:
            key = (relation, node, index)
            worst[query][key] = max(worst[query].get(key, 0), read)
    print(f"events: {events[0] if events else 0}")
    for query in sorted(runs, key=lambda q: -runs[q]):
        print(f"\n{runs[query]:6d}  {query[:400]}")
        for (relation, node, index), read in sorted(worst[query].items()):
            mark = "  <-- look" if relation in BIG and (node == "Seq Scan" or read > 200) else ""
            print(f"        {relation:18s} {node:22s} {index:34s} max rows read {read:8.0f}{mark}")


if __name__ == "__main__":
    main()
