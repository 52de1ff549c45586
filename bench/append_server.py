"""PostgreSQL's instructions for one append with an action's idempotency record, counted under callgrind in a
single-user backend (no client, no protocol): the server's side of the write path, record by record.

Run:  python -m bench.append_server OUT_DIR [--appends 200] [--before-014]
      python -m bench.append_server --over-protocol DATABASE_URL [--appends 200] [--reads]

writes OUT_DIR/none.sql (the setup alone), OUT_DIR/answers.sql and OUT_DIR/records.sql: `--appends` guarded
appends of one event (the same event each time) through the store's statement (`append_sql(1, True)`), each
with an idempotency record of a real Cholek Tiga action, played in memory with bench.action_cost's script:
the whole answer (as the service stored it before migration 014) or the record it stores now
(`services.app.replays.record_of`). `--before-014` writes the statement as it was before migration 014 (the
record in the jsonb column `response`, not the json column `answer`). Each
script runs in one single-user backend of a database migrated to match (docs/performance.md, "Reading and appending
events"); (total of a script - total of none.sql) / appends is the instructions of one append.

`--over-protocol`: the same appends (the records, on a new stream) sent to DATABASE_URL's server as the store sends
them (the statement prepared once on the connection, then `exec_prepared` with the parameters as text), and with
`--reads` as many reads of the events after the stream's head (`EVENTS_AFTER_SQL`, which a seat view's GET runs,
prepared), on one connection of its own; prints the backend's process id. Under a postmaster run by
`valgrind --tool=callgrind --trace-children=yes --callgrind-out-file=DIR/cg.%p`, each backend's file holds its
instructions: (the total of a run with `--appends N+10` - that of a run with `--appends 10`) / N is one append's
work in the server, protocol included (docs/performance.md, "Reading and appending events").
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import re
from pathlib import Path
from typing import Any

from bench.action_cost import fixed_seed, script
from infra.event_store.append import append_sql

HASH = "9074a27ac796327622acec19c103971e0843a80abf1ff0d69df3b23e59555a93"
DATA = '{"seat":0,"card":"2S","capture":null}'
METADATA = '{"actor":"912e9ac3-46d7-4408-bcc6-fb221f917cfd","request_id":"aa9f299100dd46ff80d24bbb0e02190f"}'


def played_answers(count: int) -> tuple[str, list[dict[str, Any]]]:
    """The answers (`write_answer`'s, not numbered) of `count` actions at a Cholek Tiga table, in memory."""
    import services.app.commands as commands
    from infra.signing import ReceiptSigner
    from infra.storage.memory import InMemoryStorage
    from services.bootstrap import application

    class FixedSeedStorage(InMemoryStorage):
        def seeds_for(self, table_id: str, deal_numbers: Any) -> dict[int, bytes]:
            return {n: fixed_seed(n) for n in sorted(set(deal_numbers)) if n >= 1}

    answers: list[dict[str, Any]] = []
    write_answer = commands.write_answer

    def kept(*args: Any) -> Any:
        answers.append(write_answer(*args))
        return answers[-1]

    commands.write_answer = kept  # type: ignore[assignment]
    ledger = application(FixedSeedStorage(), None, ReceiptSigner.ephemeral())
    callers = [ledger.authenticate(str(ledger.register_player(name)["token"])) for name in ("north", "south")]
    table_id = str(ledger.open_table(callers[0], "cholek-tiga", 2, {})["id"])  # type: ignore[arg-type]
    for seat in (0, 1):
        ledger.sit(callers[seat], table_id, seat, f"seat-{seat}", True)  # type: ignore[arg-type]
    answers.clear()
    for n, step in enumerate(script(ledger.load_state(table_id), count, random.Random(24))):
        ledger.act(callers[step.seat], table_id, step.action, f"action-{n}", step.version)  # type: ignore[arg-type]
    commands.write_answer = write_answer
    return table_id, answers[:count]


def quoted(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def statements(name: str, before_014: bool, records: list[str]) -> str:
    numbers = itertools.count(1)
    one_line = re.sub("%s", lambda _: f"${next(numbers)}", " ".join(append_sql(1, True).split()))
    if before_014:
        one_line = one_line.replace("stream_id, answer)", "stream_id, response)").replace("$9::json ", "$9::jsonb ")
    stream = quoted(f"stream-{name}-{'jsonb' if before_014 else 'json'}")
    lines = [f"INSERT INTO streams VALUES ({stream}, 0, {quoted(HASH)});", f"PREPARE append AS {one_line};"]
    for n, record in enumerate(records):
        lines.append(
            f"EXECUTE append({n + 1}, {quoted(HASH)}, {stream}, {n}, {quoted(HASH)}, {quoted(f'scope-{name}')}, "
            f"'action-{n}', {quoted(HASH)}, {quoted(record)}, '2026-12-01T22:00:00.000000Z', {n + 1}, "
            f"'card_discarded', 1, 1, {quoted(DATA)}, {quoted(METADATA)}, {quoted(HASH)}, {quoted(HASH)}, 2);"
        )
    return "\n".join(lines) + "\n"


def over_protocol(url: str, table_id: str, records: list[str], reads: bool) -> int:
    """Append `records` (and read after each one with `reads`) on a connection of its own: its backend's pid."""
    import time

    import psycopg

    from infra.table_loader import EVENTS_AFTER_SQL

    stream = f"stream-protocol-{time.time_ns()}"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("INSERT INTO streams VALUES (%s, 0, %s)", (stream, HASH))
        for n, record in enumerate(records):
            params = [n + 1, HASH, stream, n, HASH, f"scope-{stream}", f"action-{n}", HASH, record]
            params += ["2026-12-01T22:00:00.000000Z", n + 1, "card_discarded", 1, 1, DATA, METADATA, HASH, HASH, 2]
            appended = conn.execute(append_sql(1, True), params, prepare=True).fetchall()
            assert len(appended) == 1, appended
            if reads:
                found = conn.execute(EVENTS_AFTER_SQL, (stream, n + 1, 50), prepare=True).fetchall()
                assert found == [], found
        return int(conn.pgconn.backend_pid)


def main() -> None:
    from services.app.replays import record_of

    parser = argparse.ArgumentParser(prog="python -m bench.append_server", description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, nargs="?", help="where to write the single-user scripts")
    parser.add_argument("--over-protocol", metavar="DATABASE_URL", help="append over the protocol instead")
    parser.add_argument("--reads", action="store_true", help="with --over-protocol: a view GET's read after each")
    parser.add_argument("--appends", type=int, default=200)
    parser.add_argument("--before-014", action="store_true", help="the statement as before migration 014")
    args = parser.parse_args()
    if (args.out is None) == (args.over_protocol is None):
        parser.error("give OUT_DIR or --over-protocol DATABASE_URL (one of them)")
    table_id, answers = played_answers(args.appends)
    compact = json.JSONEncoder(separators=(",", ":")).encode
    if args.over_protocol is not None:
        records = [compact(record_of(answer, table_id)) for answer in answers]
        print(over_protocol(args.over_protocol, table_id, records, args.reads))
        return
    kinds = {
        "none": [],
        "answers": [compact(answer) for answer in answers],
        "records": [compact(record_of(answer, table_id)) for answer in answers],
    }
    args.out.mkdir(parents=True, exist_ok=True)
    for name, records in kinds.items():
        (args.out / f"{name}.sql").write_text(statements(name, args.before_014, records))
        if records:
            print(f"{name}: {sum(map(len, records)) / len(records):,.0f} bytes per record")


if __name__ == "__main__":
    main()
