"""`cardledger simulate`: bots play complete deals over the REST API; a load generator with a closing report."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from services.cli.simulate.bots import BOTS
from services.cli.simulate.report import closing_table
from services.cli.simulate.runner import (
    CLIENTS,
    DEFAULT_TURN_SECONDS,
    GAMES,
    SimulationConfig,
    SimulationResult,
    simulate,
)
from services.cli.simulate.stack import embedded_stack


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be at least 1")
    return value


def _probability(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"{text!r} must be a probability from 0 to 1")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--game", required=True, choices=GAMES)
    parser.add_argument("--tables", required=True, type=_positive, help="tables to open and play")
    parser.add_argument("--seats", required=True, type=_positive, help="seats per table (bots per table)")
    parser.add_argument("--concurrency", required=True, type=_positive, help="tables played at the same time")
    parser.add_argument(
        "--url",
        action="append",
        help="base URL of a running service; without it, `cardledger up` is started. Given more than once "
        "(API instances of one service), the clients are spread over the URLs round-robin",
    )
    parser.add_argument("--bot", choices=sorted(BOTS), default="random")
    parser.add_argument(
        "--client",
        choices=CLIENTS,
        default="polling",
        help="polling: read the seat view before each action; holding: each seat keeps its view (the action's "
        "answer carries it) and long-polls for its turn, one request per action; streaming: each seat follows its "
        "view stream (Server-Sent Events) and posts its actions, one POST per action and no read "
        "(default %(default)s)",
    )
    parser.add_argument(
        "--threads",
        type=_positive,
        help="with the polling client: the tables in play (--concurrency) share this many threads and connections, "
        "each thread taking one step of each of its tables in turn (default: a thread and a connection per table)",
    )
    parser.add_argument("--deals", type=_positive, default=1, help="deals per table (default 1)")
    parser.add_argument(
        "--auditor-token", help="auditor token: at the end, check every table's ledger and deal verification"
    )
    parser.add_argument("--seed", default="cardledger-simulate", help="seed of the bots' choices")
    parser.add_argument("--duration", type=float, help="seconds after which no new deal starts (current ones end)")
    parser.add_argument("--max-actions-per-deal", type=_positive, default=5000)
    parser.add_argument(
        "--absent",
        type=_probability,
        default=0.0,
        metavar="P",
        help="probability that a seat stops playing for the rest of a deal (the turn clock plays for it)",
    )
    parser.add_argument(
        "--turn-seconds",
        type=int,
        default=DEFAULT_TURN_SECONDS,
        help="the tables' turn clock, 5 to 3600 (default %(default)s)",
    )
    parser.add_argument("--json", type=Path, help="also write the summary and per-table results as JSON here")
    parser.add_argument(
        "--receipts",
        type=Path,
        help="write every signed receipt the bots received here (a JSON list): check them with "
        "`cardledger verify --table ID --receipts FILE`",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")


def config_from_args(args: argparse.Namespace, base_url: str, other_urls: Sequence[str] = ()) -> SimulationConfig:
    return SimulationConfig(
        base_url=base_url.rstrip("/"),
        other_urls=tuple(url.rstrip("/") for url in other_urls),
        game=args.game,
        tables=args.tables,
        seats=args.seats,
        concurrency=args.concurrency,
        bot=args.bot,
        deals=args.deals,
        auditor_token=args.auditor_token,
        seed=args.seed,
        duration=args.duration,
        max_actions_per_deal=args.max_actions_per_deal,
        progress=not args.no_progress,
        absent=args.absent,
        turn_seconds=args.turn_seconds,
        client=args.client,
        threads=args.threads,
        receipts_path=args.receipts,
    )


def run_from_args(args: argparse.Namespace) -> int:
    """Run the simulation the arguments describe, print its closing table; 0 when every deal completed."""
    urls: list[str] = args.url or []
    try:
        config_from_args(args, urls[0] if urls else "http://127.0.0.1", urls[1:]).check()
    except ValueError as error:
        print(f"cardledger: error: simulate: {error}", file=sys.stderr)
        return 2
    if urls:
        result = simulate(config_from_args(args, urls[0], urls[1:]))
    else:
        print("cardledger simulate: starting `cardledger up` ...", file=sys.stderr)
        try:
            with embedded_stack() as stack:
                print(f"cardledger simulate: stack up on {stack.base_url} (log {stack.log_path})", file=sys.stderr)
                result = simulate(config_from_args(args, stack.base_url))
                print("cardledger simulate: stopping the stack ...", file=sys.stderr)
        except (RuntimeError, TimeoutError) as error:
            print(f"cardledger: error: simulate: the stack did not start: {error}", file=sys.stderr)
            return 2
    report(result, args.json)
    return 0 if result.ok else 1


def report(result: SimulationResult, json_path: Path | None = None) -> None:
    c = result.config
    title = (
        f"cardledger simulate: {c.game}, {c.tables} tables x {c.seats} seats, {c.deals} deal(s) each, "
        f"concurrency {c.concurrency}, bot {c.bot}, client {c.client}"
        + (f", {len(c.urls)} API URLs round-robin" if c.other_urls else "")
        + (f" on {c.threads} threads" if c.threads is not None else "")
        + (f", absent {c.absent:g} (turn clock {c.turn_seconds} s)" if c.absent else "")
    )
    print(closing_table(title, result.summary, result.tables))
    if json_path is not None:
        json_path.write_text(json.dumps(result.to_json(), indent=2, default=str) + "\n")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="cardledger simulate", description=__doc__.splitlines()[0] if __doc__ else None
    )
    add_arguments(parser)
    return run_from_args(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
