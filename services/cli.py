"""The `cardledger` command: run the stack or one of its processes, and audit tools.

cardledger up                     migrations, API, relay and projection workers in one process group
cardledger migrate                apply the numbered SQL migrations
cardledger api | relay | worker   one process of the stack
cardledger deck ...               print a deal's deck order from its revealed seed
cardledger projections rebuild    drop and rebuild read models from the log
cardledger verify                 re-check every deal (seed, deck, hash chain, replay)
cardledger report settlement      settlement figures over a period, offline
cardledger spec                   print the OpenAPI document
cardledger simulate               bot players play complete deals over the REST API (load generator)
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from datetime import datetime
from types import FrameType

from infra.config import Settings

log = logging.getLogger("cardledger")


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    from services.supervisor import api_streams, api_threads

    try:
        settings = Settings.from_env()
        api_threads(), api_streams()  # read when the API starts; a bad value is a configuration error here too
    except ValueError as error:
        print(f"cardledger: configuration error: {error}", file=sys.stderr)
        return 2
    from services.logs import configure_logging

    configure_logging(settings.log_level)
    handler: Callable[[argparse.Namespace, Settings], int] = args.handler
    try:
        return handler(args, settings)
    except KeyboardInterrupt:
        return 130


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cardledger", description=__doc__.splitlines()[0] if __doc__ else None)
    sub = parser.add_subparsers(dest="command", required=True)

    sub.add_parser("up", help="run the whole stack").set_defaults(handler=_up)
    sub.add_parser("migrate", help="apply SQL migrations").set_defaults(handler=_migrate)
    sub.add_parser("api", help="serve the REST API (gunicorn)").set_defaults(handler=_api)
    sub.add_parser("relay", help="publish the event log to Redis").set_defaults(handler=_relay)
    sub.add_parser("worker", help="run a projection worker").set_defaults(handler=_worker)
    sub.add_parser("spec", help="print the OpenAPI document").set_defaults(handler=_spec)

    deck = sub.add_parser("deck", help="print the deck order of a deal as a JSON list")
    deck.add_argument("--game", required=True, choices=["cholek-tiga", "cha-kau-tsz"])
    deck.add_argument("--seed", required=True, help="the revealed server seed, 64 hex digits")
    deck.add_argument("--table-id", required=True)
    deck.add_argument("--deal-no", required=True, type=int)
    deck.add_argument("--client-seed", action="append", default=[], help="one per seat, in seat order")
    deck.set_defaults(handler=_deck)

    projections = sub.add_parser("projections", help="read model maintenance")
    projections_sub = projections.add_subparsers(dest="projections_command", required=True)
    rebuild = projections_sub.add_parser("rebuild", help="drop and rebuild read models from the event log")
    rebuild.add_argument("name", nargs="?", help="one projection (default: all)")
    rebuild.set_defaults(handler=_rebuild)

    verify = sub.add_parser("verify", help="re-check deals: seed, deck, hash chain, replay")
    scope = verify.add_mutually_exclusive_group(required=True)
    scope.add_argument("--table", help="one table id")
    scope.add_argument("--all", action="store_true", help="every table")
    verify.set_defaults(handler=_verify)

    report = sub.add_parser("report", help="reports against the database")
    report_sub = report.add_subparsers(dest="report_command", required=True)
    settlement = report_sub.add_parser("settlement", help="net per player and per table over a period")
    settlement.add_argument("--from", dest="date_from", type=_timestamp, help="ISO date or timestamp (inclusive)")
    settlement.add_argument("--to", dest="date_to", type=_timestamp, help="ISO date or timestamp (exclusive)")
    settlement.add_argument("--player", help="one player id")
    settlement.add_argument("--format", choices=["json", "csv"], default="json")
    settlement.set_defaults(handler=_settlement)

    from services.simulate import add_arguments as simulate_arguments

    simulate = sub.add_parser("simulate", help="bot players play complete deals over the REST API")
    simulate_arguments(simulate)
    simulate.set_defaults(handler=_simulate)
    return parser


def _timestamp(text: str) -> datetime:
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an ISO date or timestamp (e.g. 2026-11-01)") from None


# Servers -------------------------------------------------------------------


def _servers(settings: Settings) -> tuple[str, str, Callable[[], None]]:
    from infra.embedded import ensure_servers

    return ensure_servers(settings)


def _stop_on_signals() -> threading.Event:
    stop = threading.Event()

    def handle(signum: int, frame: FrameType | None) -> None:
        if stop.is_set():
            return
        log.info("received signal %s, stopping", signal.Signals(signum).name)
        # Not stop.set() here: the handler runs in the main thread, which may be inside the event's own
        # (non-reentrant) lock when the signal comes (setting it for an earlier signal, or waiting on it), and
        # it would wait for itself for ever. Another thread takes the lock once the main thread lets it go.
        threading.Thread(target=stop.set, name="stop-on-signal", daemon=True).start()

    signal.signal(signal.SIGTERM, handle)
    signal.signal(signal.SIGINT, handle)
    return stop


# Commands ------------------------------------------------------------------


def _migrate(args: argparse.Namespace, settings: Settings) -> int:
    from infra.migrations import migrate

    database_url, _, stop_servers = _servers(settings)
    try:
        applied = migrate(database_url)
    finally:
        stop_servers()
    print("applied: " + (", ".join(applied) if applied else "nothing (up to date)"))
    return 0


def _api(args: argparse.Namespace, settings: Settings) -> int:
    from services.supervisor import gunicorn_command

    if settings.database_url is None or settings.redis_url is None:
        print("cardledger api needs DATABASE_URL and REDIS_URL (or use `cardledger up`)", file=sys.stderr)
        return 2
    command = gunicorn_command(settings)
    os.execv(command[0], command)


def _relay(args: argparse.Namespace, settings: Settings) -> int:
    os.environ.pop("PROMETHEUS_MULTIPROC_DIR", None)  # this process serves its own metrics
    from services.metrics import start_relay_metrics
    from services.relay import run_relay

    stop = _stop_on_signals()
    database_url, redis_url, stop_servers = _servers(settings)
    try:
        start_relay_metrics(database_url, settings.host)
        run_relay(database_url, redis_url, stop)
    finally:
        stop_servers()
    return 0


def _worker(args: argparse.Namespace, settings: Settings) -> int:
    os.environ.pop("PROMETHEUS_MULTIPROC_DIR", None)  # this process serves its own metrics
    from services.metrics import start_worker_metrics
    from services.projector import run_worker

    stop = _stop_on_signals()
    database_url, redis_url, stop_servers = _servers(settings)
    try:
        start_worker_metrics(database_url, redis_url, settings.host)
        run_worker(database_url, redis_url, stop)
    finally:
        stop_servers()
    return 0


def _up(args: argparse.Namespace, settings: Settings) -> int:
    from services.supervisor import run_stack

    return run_stack(settings, _stop_on_signals())


def _spec(args: argparse.Namespace, settings: Settings) -> int:
    from services.api.spec import spec_text

    print(spec_text(), end="")
    return 0


def _deck(args: argparse.Namespace, settings: Settings) -> int:
    from domain.games import game_named
    from domain.shuffle import deal_deck

    try:
        seed = bytes.fromhex(args.seed)
    except ValueError:
        print(f"--seed must be hex digits, got {args.seed!r}", file=sys.stderr)
        return 2
    if len(seed) != 32:
        print(f"--seed must be 32 bytes (64 hex digits), got {len(seed)} bytes", file=sys.stderr)
        return 2
    game = game_named(args.game)
    print(json.dumps(list(deal_deck(game.canonical_deck, seed, args.table_id, args.deal_no, args.client_seed))))
    return 0


def _rebuild(args: argparse.Namespace, settings: Settings) -> int:
    from services.projector.rebuild import rebuild

    database_url, _, stop_servers = _servers(settings)
    try:
        reports = rebuild(database_url, [args.name] if args.name else None, progress=True)
    finally:
        stop_servers()
    failed = False
    for report in reports:
        print(report)
        failed = failed or not getattr(report, "equal", True)
    return 1 if failed else 0


def _verify(args: argparse.Namespace, settings: Settings) -> int:
    from infra.db import open_pool
    from services.audit import verify_tables

    database_url, _, stop_servers = _servers(settings)
    try:
        pool = open_pool(database_url)
        try:
            summary = verify_tables(pool, None if args.all else args.table, progress=True)
        finally:
            pool.close()
    finally:
        stop_servers()
    print(summary)
    return 0 if summary.ok else 1


def _settlement(args: argparse.Namespace, settings: Settings) -> int:
    from infra.db import open_pool
    from services.audit import settlement_report_offline

    database_url, _, stop_servers = _servers(settings)
    try:
        pool = open_pool(database_url)
        try:
            print(settlement_report_offline(pool, args.date_from, args.date_to, args.player, args.format))
        finally:
            pool.close()
    finally:
        stop_servers()
    return 0


def _simulate(args: argparse.Namespace, settings: Settings) -> int:
    from services.simulate import run_from_args

    return run_from_args(args)


if __name__ == "__main__":
    sys.exit(main())
