"""The `cardledger` command: run the stack or one of its processes, and audit tools.

cardledger up                     migrations, API, relay and projection workers (with the turn clock) in one group
cardledger migrate                apply the numbered SQL migrations and register the signing key (as the owner)
cardledger keys add|rotate|export the chain of receipt signing keys (registered by the owner only)
cardledger api | relay | worker   one process of the stack
cardledger deck ...               print a deal's deck order from its revealed seed
cardledger projections rebuild    drop and rebuild read models from the log
cardledger verify                 re-check every deal (seed, deck, hash chain, replay); --url: through the API
cardledger report settlement      settlement figures over a period, offline (--json, or --format csv)
cardledger spec                   print the OpenAPI document
cardledger simulate               bot players play complete deals over the REST API (load generator)
cardledger demo                   one deal played by bots over the REST API, told step by step (start here)

Every error is one line on stderr, `cardledger: error: ...`, and a non-zero exit (2: the command could not run
as asked; 1: it failed on its way; 3: `report settlement` printed a report that misses committed events), never a
traceback (CARDLEDGER_LOG_LEVEL=DEBUG logs the traceback of an
unexpected one).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import sys
import threading
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from datetime import date, datetime
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any, NoReturn

from domain.games import GAME_NAMES
from infra.config import Settings
from infra.db_roles import UNSAFE_SUPERUSER_VARIABLE

if TYPE_CHECKING:
    from psycopg_pool import ConnectionPool

log = logging.getLogger("cardledger")

DATABASE_CONNECT_SECONDS = 10  # how long a command waits for the database before it says it cannot reach it
REPORT_WAIT_DEFAULT = 10.0  # `report settlement --wait`: seconds for older transactions to end
REPORT_WAIT_MAX = 3600.0
REPORT_INCOMPLETE = 3  # `report settlement` printed a report that misses committed events (README, "The command")
# The commands that connect to DATABASE_URL or REDIS_URL (`verify` unless given --url): their servers are checked
# at start (`infra.endpoints`).
SERVER_COMMANDS = frozenset({"up", "migrate", "api", "relay", "worker", "projections", "verify", "report", "keys"})


class CliError(Exception):
    """What stops a command, said in one line (`cardledger: error: <message>`), with the exit status."""

    def __init__(self, message: str, status: int = 2) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


class _Parser(argparse.ArgumentParser):
    """argparse, with a usage error raised as a CliError (one line) rather than printed with the usage."""

    def error(self, message: str) -> NoReturn:
        command = self.prog.removeprefix("cardledger").strip()
        raise CliError(f"{command + ': ' if command else ''}{message} (see {self.prog} --help)")


def say_error(message: str) -> None:
    """`cardledger: error: <message>` on stderr, on one line whatever the message holds."""
    print(f"cardledger: error: {' '.join(message.split())}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return _main(argv)
    except CliError as error:
        say_error(error.message)
        return error.status
    except KeyboardInterrupt:
        return 130
    except Exception as error:  # a failure no command foresaw: still one line, the traceback at DEBUG only
        log.debug("the command failed", exc_info=True)
        say_error(_unexpected(error))
        return 1


def _unexpected(error: Exception) -> str:
    import psycopg

    if isinstance(error, psycopg.errors.UndefinedTable):
        return f"the database is not migrated ({error.diag.message_primary}); run `cardledger migrate` first"
    if isinstance(error, psycopg.Error):
        return f"database: {type(error).__name__}: {error}"
    return f"{type(error).__name__}: {error}"


def _main(argv: Sequence[str] | None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        settings = Settings.from_env()
    except ValueError as error:
        raise CliError(f"configuration error: {error}") from None
    if args.command in SERVER_COMMANDS and not getattr(args, "url", None):
        from infra.endpoints import check_endpoints

        try:
            check_endpoints(settings)
        except ValueError as error:
            raise CliError(f"configuration error: {error}") from None
    from services.logs import configure_logging

    configure_logging(settings.log_level)
    if getattr(args, "unsafe_superuser_database", False):
        os.environ[UNSAFE_SUPERUSER_VARIABLE] = "1"  # the processes `up` starts inherit it
        settings = replace(settings, unsafe_superuser_database=True)
    handler: Callable[[argparse.Namespace, Settings], int] = args.handler
    from infra.embedded import EmbeddedServerMissing

    try:
        return handler(args, settings)
    except EmbeddedServerMissing as error:
        raise CliError(str(error)) from None


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="cardledger", description=__doc__.splitlines()[0] if __doc__ else None)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    up = sub.add_parser("up", help="run the whole stack")
    _unsafe_flag(up)
    up.set_defaults(handler=_up)
    migrate = sub.add_parser("migrate", help="apply SQL migrations (as the owner: CARDLEDGER_MIGRATE_DATABASE_URL)")
    migrate.add_argument(
        "--service-role",
        metavar="NAME",
        help="create the service's login role when missing, make it a member of cardledger_service, check it",
    )
    migrate.add_argument(
        "--service-password-env",
        metavar="VAR",
        default="CARDLEDGER_SERVICE_DB_PASSWORD",
        help="with --service-role: the variable holding its password, set when given (default: %(default)s)",
    )
    migrate.set_defaults(handler=_migrate)
    from services.cli.keys import add_arguments as keys_arguments

    keys = sub.add_parser("keys", help="the receipt signing keys: add, rotate, export")
    keys_arguments(keys)
    keys.set_defaults(handler=_keys)
    for name, what, handler in (
        ("api", "serve the REST API (gunicorn)", _api),
        ("relay", "publish the event log to Redis", _relay),
        ("worker", "run a projection worker", _worker),
    ):
        process = sub.add_parser(name, help=what)
        _unsafe_flag(process)
        process.set_defaults(handler=handler)
    sub.add_parser("spec", help="print the OpenAPI document").set_defaults(handler=_spec)

    deck = sub.add_parser("deck", help="print the deck order of a deal as a JSON list")
    deck.add_argument("--game", required=True, choices=GAME_NAMES)
    deck.add_argument("--seed", required=True, help="the revealed server seed, 64 hex digits")
    deck.add_argument("--table-id", required=True)
    deck.add_argument("--deal-no", required=True, type=int)
    deck.add_argument("--client-seed", action="append", default=[], help="one per seat, in seat order")
    deck.set_defaults(handler=_deck)

    projections = sub.add_parser("projections", help="read model maintenance")
    projections_sub = projections.add_subparsers(dest="projections_command", required=True, metavar="COMMAND")
    rebuild = projections_sub.add_parser("rebuild", help="drop and rebuild read models from the event log")
    rebuild.add_argument("name", nargs="?", help="one projection (default: all)")
    rebuild.set_defaults(handler=_rebuild)

    verify = sub.add_parser("verify", help="re-check deals: seed, deck, hash chain, replay (the database, or --url)")
    scope = verify.add_mutually_exclusive_group(required=True)
    scope.add_argument("--table", help="one table id")
    scope.add_argument("--all", action="store_true", help="every table")
    verify.add_argument("--url", help="verify --table through the REST API at this address, not the database")
    verify.add_argument("--token", help="with --url: a seated player's or the auditor's token ($CARDLEDGER_TOKEN)")
    verify.add_argument("--json", action="store_true", help="print the verdict as JSON")
    verify.add_argument(
        "--trust-key",
        action="append",
        metavar="KEY",
        help="trust receipts under this key and the keys the chain endorses from it, and no other: KEY_ID=PUBLIC_KEY "
        "or a file as `cardledger keys export` prints (repeatable; default: the keys as the service serves them)",
    )
    verify.add_argument(
        "--receipts", type=Path, help="with --table: also check the signed receipts in this file (a JSON list)"
    )
    verify.set_defaults(handler=_verify)

    report = sub.add_parser("report", help="reports against the database")
    report_sub = report.add_subparsers(dest="report_command", required=True, metavar="REPORT")
    settlement = report_sub.add_parser(
        "settlement",
        help="net per player and per table over a period",
        epilog=f"exit status: 0 the report is complete; {REPORT_INCOMPLETE} it is printed but incomplete: committed "
        "events are not readable yet, held back by an older transaction of the PostgreSQL server still running when "
        "--wait ran out (the JSON says `complete: false` and what it covers; stderr names the transaction); "
        "2 it could not run as asked; 1 it failed on its way",
    )
    settlement.add_argument("--from", dest="date_from", type=_moment, help="ISO date or timestamp (inclusive)")
    settlement.add_argument(
        "--to", dest="date_to", type=_moment, help="ISO timestamp (exclusive), or a date: up to the end of that day"
    )
    settlement.add_argument("--player", help="one player id")
    settlement.add_argument("--format", choices=["json", "csv"], help="json (the default) or csv")
    settlement.add_argument("--json", action="store_true", help="print the report as JSON (as --format json)")
    settlement.add_argument(
        "--wait",
        type=_wait_seconds,
        default=REPORT_WAIT_DEFAULT,
        metavar="SECONDS",
        help="wait at most this long for older transactions to end, so that every event committed when the "
        f"report starts is in it (0 to {REPORT_WAIT_MAX:g}; default: %(default)g)",
    )
    settlement.set_defaults(handler=_settlement)

    from services.cli.simulate import add_arguments as simulate_arguments

    simulate = sub.add_parser("simulate", help="bot players play complete deals over the REST API")
    simulate_arguments(simulate)
    simulate.set_defaults(handler=_simulate)

    from services.cli.demo import add_arguments as demo_arguments

    demo = sub.add_parser("demo", help="one deal played by bots over the REST API, told step by step")
    demo_arguments(demo)
    demo.set_defaults(handler=_demo)
    return parser


def _unsafe_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--unsafe-superuser-database",
        action="store_true",
        help="a throwaway development database only: let the service run as a superuser or the tables' owner "
        "(as CARDLEDGER_UNSAFE_SUPERUSER_DATABASE=1 does)",
    )


def refuse_unfit_service_role(settings: Settings, url: str) -> None:
    """CliError (exit 2) when the service would run as a role that may rewrite the log: a superuser, the tables'
    owner, a role that bypasses row security or may disable triggers; unless the database is declared a
    throwaway development one. The embedded default makes a role of its own for the service."""
    if settings.unsafe_superuser_database or settings.database_url is None:
        return
    from infra.db_roles import own_role_refusal

    reach_database(url)
    refusal = own_role_refusal(url)
    if refusal is not None:
        raise CliError(refusal)


def _wait_seconds(text: str) -> float:
    try:
        seconds = float(text)
    except ValueError:
        seconds = float("nan")
    if not 0 <= seconds <= REPORT_WAIT_MAX:  # also NaN
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds from 0 to {REPORT_WAIT_MAX:g}")
    return seconds


def _moment(text: str) -> date | datetime:
    """An ISO date or date-time (argparse turns the error into a usage error naming the option). A date stays a
    date: as the end of a period it means the end of that day, as in the API (`services.audit_reports`)."""
    try:
        return datetime.fromisoformat(text) if "T" in text or " " in text.strip() else date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an ISO date or timestamp (e.g. 2026-11-01)") from None


# Servers -------------------------------------------------------------------


def _servers(settings: Settings) -> tuple[str, str, Callable[[], None]]:
    from infra.embedded import ensure_servers

    return ensure_servers(settings)


@contextmanager
def _database(settings: Settings) -> Iterator[ConnectionPool[Any]]:
    """A pool on the service's database (started embedded when DATABASE_URL is not set), once it answers."""
    from infra.db import open_pool

    database_url, _, stop_servers = _servers(settings)
    try:
        reach_database(database_url)
        pool = open_pool(database_url, component="cli")
        try:
            yield pool
        finally:
            pool.close()
    finally:
        stop_servers()


def reach_database(url: str, variable: str = "DATABASE_URL") -> None:
    """CliError naming the server (and the variable that gave its URL) when the database cannot be reached: the
    pool would wait 30 s, then say less."""
    import psycopg
    from psycopg.conninfo import conninfo_to_dict

    from infra.db import application_name

    try:
        parts = conninfo_to_dict(url)
    except psycopg.Error:
        raise CliError(f"{variable} is not a PostgreSQL URL (postgresql://user@host:port/database)") from None
    where = f"{parts.get('host') or 'localhost'}:{parts.get('port') or 5432}/{parts.get('dbname') or ''}"
    try:
        psycopg.connect(
            url, connect_timeout=DATABASE_CONNECT_SECONDS, fallback_application_name=application_name("cli")
        ).close()
    except psycopg.Error as error:
        raise CliError(f"cannot reach the database at {where} ({variable}): {error}") from None


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
    from infra.db_roles import ServiceRoleError, ensure_service_role, service_url_refusal
    from infra.embedded import start_servers
    from infra.migrations import migrate
    from infra.signing import UnregisteredSigningKey
    from services.cli.keys import register_configured_key

    servers = start_servers(settings)
    try:
        reach_database(servers.owner_url, _owner_variable(settings))
        applied = migrate(servers.owner_url)
        print("applied: " + (", ".join(applied) if applied else "nothing (up to date)"))
        try:
            print(register_configured_key(servers.owner_url, settings))
        except UnregisteredSigningKey as error:
            print(f"signing key: not registered: {error}", file=sys.stderr)
        if args.service_role is not None:
            password = os.environ.get(args.service_password_env) or None
            done = ensure_service_role(servers.owner_url, args.service_role, password)
            print(f"service role {args.service_role}: {', '.join(done) or 'already set up'}; checked")
        # With two URLs, the role DATABASE_URL logs in as must be the service's and no more.
        refusal = None
        if servers.owner_url != servers.database_url:
            refusal = service_url_refusal(servers.owner_url, servers.database_url)
    except ServiceRoleError as error:
        refusal = str(error)
    finally:
        servers.stop()
    if refusal is not None:
        raise CliError(f"migrate: {refusal}", status=1)
    return 0


def _owner_variable(settings: Settings) -> str:
    return "CARDLEDGER_MIGRATE_DATABASE_URL" if settings.migrate_database_url else "DATABASE_URL"


def _api(args: argparse.Namespace, settings: Settings) -> int:
    from services.supervisor import gunicorn_command

    if settings.database_url is None or settings.redis_url is None:
        raise CliError("cardledger api needs DATABASE_URL and REDIS_URL (or use `cardledger up`)")
    from infra.signing import signing_seed

    try:
        seed = signing_seed(settings)  # every worker signs with CARDLEDGER_SIGNING_KEY, inherited from this environment
    except ValueError as error:
        raise CliError(f"configuration error: {error}") from None
    _require_registered_key(settings.database_url, seed)
    refuse_unfit_service_role(settings, settings.database_url)
    command = gunicorn_command(settings)
    os.execv(command[0], command)


def _require_registered_key(database_url: str, seed: bytes) -> None:
    """CliError unless the key is in signing_keys: an API never signs under a key a verifier cannot find."""
    from infra.db import connect
    from infra.signing import ReceiptSigner, UnregisteredSigningKey, require_registered

    reach_database(database_url)
    try:
        with connect(database_url, component="api") as conn:
            require_registered(conn, ReceiptSigner.from_seed(seed))
    except UnregisteredSigningKey as error:
        raise CliError(f"api: {error}") from None


def _keys(args: argparse.Namespace, settings: Settings) -> int:
    from services.cli.keys import KeyCommandError, run

    try:
        return run(args, settings)
    except KeyCommandError as error:
        raise CliError(str(error), status=error.status) from None


def _relay(args: argparse.Namespace, settings: Settings) -> int:
    os.environ.pop("PROMETHEUS_MULTIPROC_DIR", None)  # this process serves its own metrics
    from services.relay import Relay
    from services.relay.metrics import start_relay_metrics

    if settings.database_url is not None:
        refuse_unfit_service_role(settings, settings.database_url)
    stop = _stop_on_signals()
    database_url, redis_url, stop_servers = _servers(settings)
    try:
        relay = Relay(database_url, redis_url, stop)
        start_relay_metrics(
            database_url, settings.host, settings.metrics.relay, relay
        )  # its /readyz asks the relay for its session
        relay.run()
    finally:
        stop_servers()
    return 0


def _worker(args: argparse.Namespace, settings: Settings) -> int:
    os.environ.pop("PROMETHEUS_MULTIPROC_DIR", None)  # this process serves its own metrics
    from services.projector import run_worker
    from services.projector.metrics import start_worker_metrics

    if settings.database_url is not None:
        refuse_unfit_service_role(settings, settings.database_url)
    stop = _stop_on_signals()
    database_url, redis_url, stop_servers = _servers(settings)
    try:
        start_worker_metrics(database_url, redis_url, settings.host, settings.metrics.worker)
        run_worker(database_url, redis_url, stop, abandon_after=settings.abandon_after)
    finally:
        stop_servers()
    return 0


def _up(args: argparse.Namespace, settings: Settings) -> int:
    from services.supervisor import run_stack

    return run_stack(settings, _stop_on_signals())


def _spec(args: argparse.Namespace, settings: Settings) -> int:
    from services.api.spec.document import spec_text

    print(spec_text(), end="")
    return 0


def _deck(args: argparse.Namespace, settings: Settings) -> int:
    from domain.games import game_named
    from domain.shuffle import deal_deck

    try:
        seed = bytes.fromhex(args.seed)
    except ValueError:
        raise CliError(f"deck: --seed must be hex digits, got {args.seed!r}") from None
    if len(seed) != 32:
        raise CliError(f"deck: --seed must be 32 bytes (64 hex digits), got {len(seed)} bytes")
    game = game_named(args.game)
    print(json.dumps(list(deal_deck(game.canonical_deck, seed, args.table_id, args.deal_no, args.client_seed))))
    return 0


def _rebuild(args: argparse.Namespace, settings: Settings) -> int:
    import psycopg

    from infra.embedded import start_servers
    from infra.projections import projection_named
    from services.projector.rebuild import rebuild

    if args.name is not None:
        try:
            projection_named(args.name)
        except ValueError as error:
            raise CliError(f"projections rebuild: {error}") from None
    servers = start_servers(settings)
    try:  # it empties read models, which the service's role may not: an operator's command, run as the owner
        reach_database(servers.owner_url, _owner_variable(settings))
        reports = rebuild(servers.owner_url, [args.name] if args.name else None, progress=True)
    except psycopg.errors.InsufficientPrivilege as error:
        raise CliError(
            f"projections rebuild: {error.diag.message_primary}; a rebuild empties read models, "
            "which the service's role may not: run it as the owner (CARDLEDGER_MIGRATE_DATABASE_URL)"
        ) from None
    finally:
        servers.stop()
    failed = False
    for report in reports:
        print(report)
        failed = failed or not getattr(report, "equal", True)
    return 1 if failed else 0


def _is_uuid(text: str) -> bool:
    try:
        return str(uuid.UUID(text)) == text.lower()
    except ValueError:
        return False


def _verify(args: argparse.Namespace, settings: Settings) -> int:
    if args.url is not None:
        return _verify_remote(args)
    if args.token is not None:
        raise CliError("verify: --token goes with --url")
    from infra.event_store import EventStore
    from infra.receipts import ReceiptFormatError
    from services.app.audit.receipts import (
        check_receipts_in,
        read_receipts_file,
        receipts_exit_status,
        receipts_text,
    )
    from services.app.audit.service import verify_tables

    try:  # read before any server starts: a bad file names the entry and field, exit 2
        receipts = None if args.receipts is None else read_receipts_file(args.receipts)
    except ReceiptFormatError as error:
        raise CliError(f"verify: --receipts {error}") from None
    if receipts is not None and args.table is None:
        raise CliError("verify: --receipts goes with --table ID")
    pinned = _trust_keys(args.trust_key)
    if args.table is not None and not _is_uuid(args.table):
        raise CliError(f"verify: --table {args.table!r} is not a table id (a UUID such as {uuid.uuid4()})")
    with _database(settings) as pool:
        if args.table is not None and EventStore(pool).stream_version(args.table) is None:
            raise CliError(f"verify: table {args.table} does not exist")
        summary = verify_tables(pool, None if args.all else args.table, progress=True)
        trusted, checks = (None, None) if receipts is None else check_receipts_in(pool, args.table, receipts, pinned)
    if args.json:
        shown = summary.to_json()
        if checks is not None and trusted is not None:
            shown["keys"] = {"pinned": trusted.pinned, "trusted": sorted(trusted.keys), "untrusted": trusted.untrusted}
            shown["receipts"] = [check.to_json() for check in checks]
        print(json.dumps(shown, indent=2))
    else:
        print(summary if checks is None else f"{summary}\n{receipts_text(checks, trusted)}")
    if not summary.ok:
        return 1
    return 0 if checks is None else receipts_exit_status(checks)


def _trust_keys(arguments: list[str] | None) -> list[Any] | None:
    """The keys of every --trust-key, or None when none is given (the keys are then trusted as served)."""
    if not arguments:
        return None
    from infra.key_chain import parse_trust_keys

    pinned = []
    for argument in arguments:
        try:
            pinned.extend(parse_trust_keys(argument))
        except ValueError as error:
            raise CliError(f"verify: {error}") from None
    return pinned


def _verify_remote(args: argparse.Namespace) -> int:
    """`verify --url URL --table ID`: through the public API alone (`services.cli.verify_remote`)."""
    from services.cli.verify_remote import run

    token = args.token or os.environ.get("CARDLEDGER_TOKEN", "")
    if args.table is None or not token:
        raise CliError("verify: --url needs --table ID and --token TOKEN (or $CARDLEDGER_TOKEN)")
    return run(
        args.url, token, args.table, args.json, args.receipts, sys.stdout, sys.stderr, _trust_keys(args.trust_key)
    )


def _settlement(args: argparse.Namespace, settings: Settings) -> int:
    from services.app.audit.reports import settlement_query
    from services.app.audit.service import settlement_report_offline

    if args.json and args.format == "csv":
        raise CliError("report settlement: --json and --format csv ask for two formats; give one")
    if args.player is not None and not _is_uuid(args.player):
        raise CliError(f"report settlement: --player {args.player!r} is not a player id (a UUID)")
    try:
        settlement_query(args.date_from, args.date_to, args.player, None)
    except ValueError as error:  # an empty period
        raise CliError(f"report settlement: {error}") from None
    with _database(settings) as pool:
        report = settlement_report_offline(
            pool, args.date_from, args.date_to, args.player, args.format or "json", args.wait
        )
    print(report.text, end="")
    if not report.coverage.complete:
        sys.stdout.flush()
        say_error(report.coverage.message())
        return REPORT_INCOMPLETE
    return 0


def _simulate(args: argparse.Namespace, settings: Settings) -> int:
    from services.cli.simulate import run_from_args

    return run_from_args(args)


def _demo(args: argparse.Namespace, settings: Settings) -> int:
    from services.cli.demo import run_from_args

    return run_from_args(args, settings)


if __name__ == "__main__":
    sys.exit(main())
