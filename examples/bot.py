"""A bot that plays one whole deal at a cardledger service through the generated client (clients/python).

    pip install ./clients/python
    python examples/bot.py --url http://127.0.0.1:8000 --game cha-kau-tsz --seats 3

It registers one player per seat, opens a table, sits them down, then plays: each turn it reads the seat view
of the player to act and posts one of its `legal_actions` (a Cha Kau Tsz follow names only how many cards to
play; the bot takes that many from its hand). At the end it prints the deal's result, the verification of the
service, and the table's ledger.

Every call goes through `call`, which waits as the service says: an answer 429 (a rate limit) or 503 (busy)
carries `Retry-After`, the seconds to wait before the same call; the bot sleeps that long and sends it again
(the same `Idempotency-Key` for an action, so it is applied once).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
import uuid
from collections.abc import Callable
from typing import Any

import httpx
from cardledger_client import AuthenticatedClient, Client
from cardledger_client.api.actions import act
from cardledger_client.api.history import get_deal, get_ledger, list_events
from cardledger_client.api.players import register_player
from cardledger_client.api.tables import get_seat_view, get_table, open_table, sit
from cardledger_client.models import (
    ChaKauTszOptions,
    ChaKauTszTableCreate,
    CholekTigaOptions,
    CholekTigaTableCreate,
    PlayAction,
    PlayChoice,
    PlayerCreate,
    Problem,
    SeatRequest,
)
from cardledger_client.types import UNSET

MAX_TURNS = 5000
MAX_RETRIES = 20  # Retry-After waits for one call before the bot gives up


class ServiceRefused(Exception):
    """The service answered with a problem (RFC 9457)."""


def call(operation: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """`operation.sync_detailed(*args, **kwargs)`, sent again after the `Retry-After` seconds of a 429 or 503; the
    body of the answer, or one clear error for a problem."""
    for _ in range(MAX_RETRIES):
        response = operation.sync_detailed(*args, **kwargs)
        wait = response.headers.get("Retry-After")
        if response.status_code in (429, 503) and wait is not None and wait.isdigit():
            time.sleep(int(wait))
            continue
        return answer(response.parsed)
    raise ServiceRefused(f"still refused after {MAX_RETRIES} waits of Retry-After")


def answer(result: Any) -> Any:
    """The body of a successful call; a problem or no answer becomes one clear error."""
    if isinstance(result, Problem):
        raise ServiceRefused(f"{result.status} {result.code}: {result.detail}")
    if result is None:
        raise ServiceRefused("the service gave an answer this client does not know")
    return result


def opening(game: str, seats: int) -> CholekTigaTableCreate | ChaKauTszTableCreate:
    if game == "cholek-tiga":
        return CholekTigaTableCreate(game="cholek-tiga", seats=seats, options=CholekTigaOptions())
    return ChaKauTszTableCreate(game="cha-kau-tsz", seats=seats, options=ChaKauTszOptions())


def choose(view: Any, rng: random.Random) -> Any:
    """One of the seat's legal actions, as a body to post."""
    choice = rng.choice(view.legal_actions)
    if isinstance(choice, PlayChoice):
        if choice.cards is not UNSET:  # on lead: a complete body
            return PlayAction(type_="play", cards=list(choice.cards))
        cards = rng.sample(list(view.hand), int(choice.count))  # a follow: any `count` cards of the hand
        return PlayAction(type_="play", cards=cards)
    return choice


def play_deal(url: str, game: str, seats: int, rng: random.Random) -> tuple[uuid.UUID, list[AuthenticatedClient]]:
    """Register, open, sit and play one deal to its end; the table id and the players' clients."""
    anonymous = Client(base_url=url)
    players = []
    for number in range(seats):
        player = call(register_player, client=anonymous, body=PlayerCreate(name=f"bot-{number + 1}"))
        players.append(AuthenticatedClient(base_url=url, token=player.token))
    table = call(open_table, client=players[0], body=opening(game, seats))
    table_id = table.id  # a UUID, as every operation takes it
    print(f"table {table_id}: {game} for {seats}, deal 1 committed as {table.next_deal.commitment}")
    by_seat = {}
    for player in players:
        by_seat[call(sit, table_id, client=player, body=SeatRequest()).seat] = player
    for turn in range(MAX_TURNS):
        state = call(get_table, table_id, client=players[0])
        if state.status != "playing":
            print(f"the deal ended after {turn} actions")
            return table_id, players
        player = by_seat[state.to_act]
        view = call(get_seat_view, table_id, client=player)
        body = choose(view, rng)
        call(act, table_id, client=player, body=body, idempotency_key=uuid.uuid4().hex)  # one key, every retry
    raise ServiceRefused(f"the deal did not end within {MAX_TURNS} actions")


def report(table_id: uuid.UUID, player: AuthenticatedClient) -> None:
    record = call(get_deal, table_id, 1, client=player)
    print(f"server seed revealed: {record.server_seed}")
    print(f"net by seat ({record.unit}): {record.net}")
    print(f"the service's verification: {'ok' if record.verification.ok else record.verification.problems}")
    page = call(list_events, table_id, client=player, limit=1000)
    kinds: dict[str, int] = {}
    for event in page.events:
        kinds[event.type_] = kinds.get(event.type_, 0) + 1
    print("events:", ", ".join(f"{kind} {count}" for kind, count in kinds.items()))
    ledger = call(get_ledger, table_id, client=player)
    for _ in range(50):  # the ledger is a projection, a moment behind the log
        if ledger.line_count:
            break
        time.sleep(0.2)
        ledger = call(get_ledger, table_id, client=player)
    print(f"ledger: {ledger.line_count} lines, {'balanced' if ledger.balanced else 'NOT BALANCED'}")
    for line in ledger.lines:
        print(f"  v{line.version} {line.account}: {line.amount:+d} {line.unit} ({line.reason})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="http://127.0.0.1:8000", help="the service (default: %(default)s)")
    parser.add_argument("--game", choices=("cholek-tiga", "cha-kau-tsz"), default="cholek-tiga")
    parser.add_argument("--seats", type=int, default=2, help="players (2-3 Cholek Tiga, 2-4 Cha Kau Tsz)")
    parser.add_argument("--seed", default=None, help="seed of the bot's choices (default: random)")
    args = parser.parse_args(argv)
    try:
        table_id, players = play_deal(args.url, args.game, args.seats, random.Random(args.seed))
        report(table_id, players[0])
    except (ServiceRefused, httpx.HTTPError) as error:
        print(f"bot: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
