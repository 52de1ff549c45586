"""`cardledger demo`: one complete deal played by bots over the REST API, told as a short story.

It registers two players (three for Cha Kau Tsz), opens a table, seats them and lets the `greedy` bots of
`services.cli.simulate` play deal 1 through the public API, the way any client would. Then it shows what makes
the service trustworthy, each fact read back from the API:

- the commitment (SHA-256 of the secret server seed) published before the deal, and the seed revealed
  after it, with SHA-256(seed) recomputed here;
- the result and the net of each player; the table's double-entry ledger (it sums to zero) and each
  player's own settlement report (both are projections, a little behind the log: read again until they
  show the deal, for at most `PROJECTION_WAIT_SECONDS`);
- the table verified through the API alone as a seated player (`services.cli.verify_remote.verify_remote`,
  with every receipt the demo was given); one signed receipt checked by hand against `GET /v1/keys`;
- the commands to recompute the deck offline (`cardledger deck ...`) and to open the dispute report.

Without `--url` it starts `cardledger up` the way `cardledger simulate` does (`services.cli.simulate.stack`).
Exit status: 0 every check holds; 1 a check failed (verification, commitment, ledger, receipt); 2 the demo
could not run (no server, an error answer, a rate limit that asks for a long wait, a projection that did not
catch up). A failure is one line on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import shlex
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import IO, Any
from urllib.parse import quote, urlencode

from infra.config import Settings
from infra.receipts import parse_public_keys, parse_receipts, signature_is_valid
from services.app.audit.glossary import TERMS
from services.cli import verify_remote as remote_verify
from services.cli.http_client import AnswerTooLarge, HttpClient, Response
from services.cli.simulate.bots import make_bot
from services.cli.simulate.stack import embedded_stack
from services.cli.verify_remote import ApiClient, RemoteError, expected_ledger_lines, parse_event

GAMES = ("cholek-tiga", "cha-kau-tsz")
SEATS = {"cholek-tiga": 2, "cha-kau-tsz": 3}
NAMES = ("alice", "bob", "carol")
BOT = "greedy"
TURN_SECONDS = 60  # the table's turn clock: ample for bots, and it plays on if the demo is stopped mid-deal
TIMEOUT_SECONDS = 15.0  # one request
PROJECTION_WAIT_SECONDS = 20.0  # how long the ledger and the settlement report may take to show the deal
POLL_SECONDS = 0.2
RATE_LIMIT_WAIT_SECONDS = 5.0  # a 429 asking to wait longer than this ends the demo
MAX_RATE_LIMITED = 20  # 429 answers waited out for one request
MAX_ACTIONS = 5000
MAX_IDLE_READS = 200
FIRST_MOVES, LAST_MOVES = 5, 2  # the moves the story shows
DEAL_NO = 1
EVENTS_PAGE = 1000


class DemoError(Exception):
    """The demo cannot go on: `message` is the one line shown; `status` the exit status (1 a check failed,
    2 the demo could not run)."""

    def __init__(self, message: str, status: int = 2) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


@dataclass
class Player:
    seat: int
    name: str
    player_id: str
    token: str
    client_seed: str

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "name": self.name,
            "id": self.player_id,
            "token": self.token,
            "client_seed": self.client_seed,
        }


@dataclass
class Move:
    version: int
    seat: int
    action: dict[str, Any]
    said: list[str]

    def to_json(self, players: Sequence[Player]) -> dict[str, Any]:
        return {
            "version": self.version,
            "seat": self.seat,
            "player": players[self.seat].name,
            "action": self.action,
            "events": self.said,
        }


@dataclass
class Demo:
    """One demo run against the API at `base_url`; `run()` returns the facts (a JSON object)."""

    base_url: str
    game: str
    client: HttpClient = field(init=False)
    players: list[Player] = field(default_factory=list)
    table_id: str = ""
    known: int = 0  # the newest table version written or read
    receipts: list[dict[str, Any]] = field(default_factory=list)
    moves: list[Move] = field(default_factory=list)
    sleep: Callable[[float], None] = time.sleep

    def __post_init__(self) -> None:
        self.base_url = self.base_url.strip().rstrip("/")
        try:
            self.client = HttpClient(self.base_url, TIMEOUT_SECONDS)
        except ValueError:
            raise DemoError(f"--url must be an http:// or https:// address, not {self.base_url!r}") from None

    # HTTP ------------------------------------------------------------------------------------------------------------

    def send(
        self,
        method: str,
        path: str,
        body: Any = None,
        token: str | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> Response:
        """One request; a 429 that asks for a short wait is waited out and sent again (same Idempotency-Key)."""
        for _ in range(MAX_RATE_LIMITED + 1):
            try:
                response = self.client.request(method, path, body, token, headers)
            except (OSError, AnswerTooLarge) as error:
                raise DemoError(f"cannot reach {self.base_url}: {error} ({method} {path.split('?')[0]})") from None
            if response.status != 429:
                return response
            wait = _retry_after(response)
            if wait > RATE_LIMIT_WAIT_SECONDS:
                raise DemoError(
                    f"rate limited: {method} {path.split('?')[0]} answered 429 {response.code}; the server asks "
                    f"to wait {wait:g} s: try again then"
                )
            self.sleep(wait)
        raise DemoError(f"rate limited: {method} {path.split('?')[0]} still answers 429 after {MAX_RATE_LIMITED} waits")

    def call(self, method: str, path: str, body: Any = None, token: str | None = None) -> dict[str, Any]:
        response = self.send(method, path, body, token)
        if not response.ok or not isinstance(response.payload, dict):
            raise DemoError(_answer_error(method, path, response))
        return response.payload

    def _keep_receipt(self, answer: Mapping[str, Any]) -> None:
        receipt = answer.get("receipt")
        if isinstance(receipt, dict):
            self.receipts.append(receipt)

    # The story -------------------------------------------------------------------------------------------------------

    def run(self) -> dict[str, Any]:
        try:
            opened = self.open_table()
            before = self.deal_before_play(opened)
            self.play()
            events = self.events()
            record = self.call("GET", f"{self.table_path}/deals/{DEAL_NO}", token=self.players[0].token)
            reveal = self.reveal(record, before["commitment"])
            ledger = self.ledger(events)
            settlement = [self.settlement(player) for player in self.players]
            verification = self.verify()
            receipt = self.check_one_receipt(events)
            dispute = self.dispute()
        finally:
            self.client.close()
        return {
            "ok": True,
            "url": self.base_url,
            "game": self.game,
            "table": {
                "id": self.table_id,
                "seats": len(self.players),
                "options": opened.get("options"),
                "bot": BOT,
            },
            "players": [player.to_json() for player in self.players],
            "before_the_deal": before,
            "moves": {
                "count": len(self.moves),
                "first": [move.to_json(self.players) for move in self.moves[:FIRST_MOVES]],
                "last": [move.to_json(self.players) for move in self.moves[FIRST_MOVES:][-LAST_MOVES:]],
            },
            "reveal": reveal,
            "result": self.result(record),
            "ledger": ledger,
            "settlement": settlement,
            "verification": verification,
            "receipt": receipt,
            "dispute": dispute,
            "commands": {"deck": self.deck_command(record), "dispute": dispute["curl"]},
        }

    @property
    def table_path(self) -> str:
        return f"/v1/tables/{quote(self.table_id, safe='')}"

    def open_table(self) -> dict[str, Any]:
        """Register the players, open the table as the first, seat everyone (the last seat starts deal 1)."""
        tag = uuid.uuid4().hex[:6]  # a client seed of this run (the seeds are public once the deal starts)
        for seat in range(SEATS[self.game]):
            name = NAMES[seat]
            body = self.call("POST", "/v1/players", {"name": name})
            self.players.append(Player(seat, name, str(body["id"]), str(body["token"]), f"{name}-luck-{tag}"))
        opened = self.call(
            "POST",
            "/v1/tables",
            {"game": self.game, "seats": len(self.players), "options": {"turn_seconds": TURN_SECONDS}},
            self.players[0].token,
        )
        self._keep_receipt(opened)
        self.table_id = str(opened["id"])
        self.known = int(opened.get("version") or 0)
        for player in self.players:
            seated = self.call(
                "POST",
                f"{self.table_path}/seats",
                {"seat": player.seat, "client_seed": player.client_seed},
                player.token,
            )
            self._keep_receipt(seated)
            self.known = max(self.known, int(seated.get("version") or 0))
        return opened

    def deal_before_play(self, opened: Mapping[str, Any]) -> dict[str, Any]:
        """The commitment published with the opening, and the deal record once the deal started: the same
        commitment, the client seeds, and no server seed yet."""
        published = (opened.get("next_deal") or {}).get("commitment")
        record = self.call("GET", f"{self.table_path}/deals/{DEAL_NO}", token=self.players[0].token)
        if record.get("commitment") != published:
            raise DemoError(
                f"deal {DEAL_NO} started with commitment {record.get('commitment')}, not the {published} published "
                "when the table opened",
                1,
            )
        if record.get("server_seed") is not None:
            raise DemoError(f"the deal record shows the server seed of deal {DEAL_NO} before it ended", 1)
        return {
            "deal_no": DEAL_NO,
            "commitment": published,
            "client_seeds": record.get("client_seeds"),
            "server_seed": record.get("server_seed"),
        }

    def play(self) -> None:
        """The bots play deal 1 to its end: read the view of the seat to act, post its choice conditionally on
        the version it saw (a 412 means the table moved on: read again)."""
        bot = make_bot(BOT, random.Random(self.table_id))
        reader, idle = 0, 0
        while True:
            view = self.call(
                "GET", f"{self.table_path}/view?min_version={self.known}", token=self.players[reader].token
            )
            self.known = max(self.known, int(view["version"]))
            if view["status"] == "between_deals":
                return
            if view["status"] != "playing":
                raise DemoError(f"table {self.table_id} is {view['status']!r} in the middle of deal {DEAL_NO}")
            to_act = view.get("to_act")
            if to_act is not None and to_act != view["seat"]:
                reader = int(to_act)
                continue
            if to_act is None or not view.get("legal_actions"):
                idle += 1
                if idle > MAX_IDLE_READS:
                    raise DemoError(f"table {self.table_id}: no seat can act at version {view['version']}")
                self.sleep(0.02)
                continue
            action = bot.choose(view)
            headers = {"Idempotency-Key": str(uuid.uuid4()), "If-Match": f'"{view["version"]}"'}
            player = self.players[reader]
            response = self.send("POST", f"{self.table_path}/actions", action, player.token, headers)
            if response.status == 412:
                continue
            if not response.ok or not isinstance(response.payload, dict):
                raise DemoError(_answer_error("POST", f"{self.table_path}/actions", response))
            answer = response.payload
            self._keep_receipt(answer)
            self.known = max(self.known, int(answer["version"]))
            shown = [describe(event, self.players) for event in answer.get("events") or []]
            first = min((int(event["position"]) for event in answer.get("events") or []), default=answer["version"])
            self.moves.append(Move(int(first), reader, action, [text for text in shown if text]))
            if len(self.moves) > MAX_ACTIONS:
                raise DemoError(f"table {self.table_id}: deal {DEAL_NO} did not end in {MAX_ACTIONS} actions")
            reader = (reader + 1) % len(self.players)  # most often the next seat acts next

    def events(self) -> list[dict[str, Any]]:
        """Every event of the table, as the first player sees it now the deal has ended."""
        shown: list[dict[str, Any]] = []
        after = 0
        while True:
            page = self.call(
                "GET", f"{self.table_path}/events?after={after}&limit={EVENTS_PAGE}", token=self.players[0].token
            )
            shown += page["events"]
            if len(page["events"]) < EVENTS_PAGE:
                return shown
            after = int(page["next_after"])

    def reveal(self, record: Mapping[str, Any], commitment: str) -> dict[str, Any]:
        seed = record.get("server_seed")
        if record.get("status") != "ended" or not isinstance(seed, str):
            raise DemoError(f"the deal record of deal {DEAL_NO} shows no revealed seed after the deal ended")
        try:
            digest = hashlib.sha256(bytes.fromhex(seed)).hexdigest()
        except ValueError:
            raise DemoError(f"the revealed server seed {seed!r} is not hex", 1) from None
        if digest != commitment:
            raise DemoError(f"SHA-256 of the revealed seed is {digest}, not the commitment {commitment}", 1)
        return {
            "server_seed": seed,
            "sha256_of_seed": digest,
            "commitment": commitment,
            "matches": True,
            "next_commitment": record.get("next_commitment"),
        }

    def result(self, record: Mapping[str, Any]) -> dict[str, Any]:
        result = dict(record.get("result") or {})
        unit = str(record.get("unit") or "cents")
        net = list(record.get("net") or result.get("net") or [])
        cents = list(result.get("net_cents") or (net if unit == "cents" else []))
        facts: dict[str, Any] = {
            "unit": unit,
            "net": [
                {
                    "seat": player.seat,
                    "name": player.name,
                    "amount": net[player.seat] if player.seat < len(net) else None,
                    "cents": cents[player.seat] if player.seat < len(cents) else None,
                }
                for player in self.players
            ],
        }
        if self.game == "cholek-tiga":
            facts["scores"] = result.get("scores")
        else:
            facts["tricks"] = result.get("tricks")
            facts["pool_winner"] = result.get("pool_winner")
            facts["pool_won"] = result.get("pool_won")
            facts["pool"] = result.get("pool")
        return facts

    def ledger(self, events: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        """The table's ledger once it shows every line the events' transfers make (as `remote_verify` waits)."""
        expected = expected_lines(self.table_id, events)
        deadline = time.monotonic() + PROJECTION_WAIT_SECONDS
        path = f"{self.table_path}/ledger?limit=1000"
        while True:
            page = self.call("GET", path, token=self.players[0].token)
            if int(page.get("line_count") or 0) >= expected:
                break
            if time.monotonic() >= deadline:
                raise DemoError(
                    f"the ledger shows {page.get('line_count')} of the {expected} lines of deal {DEAL_NO} after "
                    f"{PROJECTION_WAIT_SECONDS:g} s: are the projection workers running?"
                )
            self.sleep(POLL_SECONDS)
        if not page.get("balanced"):
            raise DemoError(f"the ledger of table {self.table_id} does not balance: sum {page.get('sum_amount')}", 1)
        names = {player.player_id: player.name for player in self.players}
        keep = ("version", "event_type", "account", "player_id", "amount", "unit", "amount_cents", "reason")
        return {
            "lines": [
                {**{k: line.get(k) for k in keep}, "name": names.get(line.get("player_id"))} for line in page["lines"]
            ],
            "totals": [{**total, "name": names.get(total.get("player_id"))} for total in page.get("totals") or []],
            "line_count": page.get("line_count"),
            "sum_amount": page.get("sum_amount"),
            "sum_cents": page.get("sum_cents"),
            "balanced": page.get("balanced"),
        }

    def settlement(self, player: Player) -> dict[str, Any]:
        """The player's own settlement report of this table, once it counts the deal."""
        query = urlencode({"table_id": self.table_id})
        deadline = time.monotonic() + PROJECTION_WAIT_SECONDS
        while True:
            report = self.call("GET", f"/v1/reports/settlement?{query}", token=player.token)
            if int(report.get("deals") or 0) >= DEAL_NO:
                break
            if time.monotonic() >= deadline:
                raise DemoError(
                    f"{player.name}'s settlement report does not show deal {DEAL_NO} after "
                    f"{PROJECTION_WAIT_SECONDS:g} s: are the projection workers running?"
                )
            self.sleep(POLL_SECONDS)
        keep = ("account", "net_amount", "unit", "net_cents", "deals")
        return {
            "seat": player.seat,
            "name": player.name,
            "rows": [{k: row.get(k) for k in keep} for row in report.get("rows") or []],
            "net_cents": sum(int(row.get("net_cents") or 0) for row in report.get("rows") or []),
            "balanced": report.get("balanced"),
            "consistent_with_deal_results": report.get("consistent_with_deal_results"),
        }

    def verify(self) -> dict[str, Any]:
        """`cardledger verify --url` through the API as the last seated player, with every receipt given."""

        player = self.players[-1]
        for attempt in range(2):
            try:
                report = remote_verify.verify_remote(
                    ApiClient(self.base_url, player.token), self.table_id, parse_receipts(self.receipts)
                )
                break
            except RemoteError as error:
                if error.status == 429 and attempt == 0:
                    self.sleep(1.5)  # the reads of the demo just before share the token's window
                    continue
                raise DemoError(f"could not verify table {self.table_id}: {error.message}") from None
        first = report.first_failure()
        if first is not None:
            raise DemoError(f"verification failed as {player.name} at {report.viewer}: {first.render()}", 1)
        ok_receipts = sum(1 for check in report.receipts or [] if check.get("verdict") == "ok")
        return {
            "ok": report.ok,
            "as": f"{player.name} at {report.viewer}",
            "events_checked": report.events_checked,
            "deals_checked": report.ended_deals,
            "checks": dict(report.deals[0].checks) if report.deals else {},
            "ledger_lines": report.ledger_lines,
            "receipts_checked": len(report.receipts or []),
            "receipts_ok": ok_receipts,
            "head": {"position": report.head_position, "hash": report.head_hash},
        }

    def check_one_receipt(self, events: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        """The receipt of the move that ended the deal, checked by hand: its key from GET /v1/keys, the Ed25519
        signature over the receipt's message, and the log's hash at its version."""

        raw = self.receipts[-1]
        receipt = parse_receipts([raw])[0]
        answer = self.call("GET", "/v1/keys")
        try:
            keys = parse_public_keys(answer.get("keys") or [])
        except ValueError as error:
            raise DemoError(f"GET /v1/keys: {error}") from None
        key = keys.get(receipt.key_id)
        if key is None:
            raise DemoError(f"the receipt's key {receipt.key_id} is not listed by GET /v1/keys", 1)
        if not signature_is_valid(receipt, key):
            raise DemoError(f"the signature of the receipt of version {receipt.version} does not verify", 1)
        in_log = next((e.get("hash") for e in events if e.get("position") == receipt.version), None)
        if in_log != receipt.hash:
            raise DemoError(f"the log holds hash {in_log} at version {receipt.version}, the receipt {receipt.hash}", 1)
        return {"receipt": raw, "key_id": receipt.key_id, "signature_valid": True, "log_hash_matches": True}

    def dispute(self) -> dict[str, Any]:
        """The dispute report of the deal, read once (JSON), and the curl line that opens it as HTML."""
        player = self.players[0]
        query = urlencode({"table_id": self.table_id, "deal_no": DEAL_NO})
        report = self.call("GET", f"/v1/reports/dispute?{query}", token=player.token)
        html = f"{self.base_url}/v1/reports/dispute?{query}&format=html"
        curl = shlex.join(["curl", "-s", html, "-H", f"Authorization: Bearer {player.token}", "-o", "dispute.html"])
        verification = report.get("verification") or {}
        return {
            "url": html,
            "steps": len(report.get("steps") or []),
            "verification_ok": verification.get("ok"),
            "curl": curl,
        }

    def deck_command(self, record: Mapping[str, Any]) -> str:
        argv = [_program(), "deck", "--game", self.game, "--seed", str(record["server_seed"])]
        argv += ["--table-id", self.table_id, "--deal-no", str(DEAL_NO)]
        for seed in record.get("client_seeds") or []:
            argv += ["--client-seed", str(seed)]
        return shlex.join(argv)


def expected_lines(table_id: str, events: Sequence[Mapping[str, Any]]) -> int:
    """How many ledger lines the events' transfers make (`remote_verify.expected_ledger_lines`)."""

    parsed = [parse_event(event, table_id) for event in events]
    return len(expected_ledger_lines([event for event in parsed if not isinstance(event, str)]))


def _program() -> str:
    """The command as the user typed it (`.venv/bin/cardledger`), else `cardledger`."""
    typed = sys.argv[0] if sys.argv else ""
    return typed if os.path.basename(typed) == "cardledger" else "cardledger"


def _retry_after(response: Response) -> float:
    try:
        return max(0.05, float(response.headers.get("retry-after", "1")))
    except ValueError:
        return 1.0


def _answer_error(method: str, path: str, response: Response) -> str:
    where = f"{method} {path.split('?')[0]}"
    if isinstance(response.payload, dict):
        detail = response.payload.get("detail") or response.payload.get("title") or ""
        return f"{where} answered {response.status} {response.code}: {str(detail)[:200]}"
    text = str(response.payload or "")[:80]
    return f"{where} answered {response.status}{': ' + text if text else ''}; is this the cardledger API?"


# Moves ---------------------------------------------------------------------------------------------------------------


def _cards(cards: Any) -> str:
    return " ".join(str(card) for card in cards) if isinstance(cards, list) else str(cards)


def describe(event: Mapping[str, Any], players: Sequence[Player]) -> str | None:
    """One event of an action's answer in words (public forms only: drawn cards stay hidden)."""
    data = event.get("data") or {}
    seat = data.get("seat")
    who = players[seat].name if isinstance(seat, int) and 0 <= seat < len(players) else "?"
    kind = event.get("type")
    if kind == "card_discarded":
        capture = data.get("capture")
        return f"{who} discards {data.get('card')}" + (f", capturing {_cards(capture)}" if capture else "")
    if kind == "card_turned_up":
        return f"{who} turns up {data.get('card')}" + (" (it can capture)" if data.get("can_capture") else "")
    if kind == "turn_up_captured":
        return f"{who} captures {_cards(data.get('capture'))} with the turned-up {data.get('card')}"
    if kind == "turn_up_passed":
        return f"{who} leaves the turned-up {data.get('card')} in the pool"
    if kind == "bonus_paid":
        return f"{who} is paid the {data.get('kind')} bonus ({data.get('card')})"
    if kind == "cards_drawn":
        return f"{who} draws {data.get('count')} cards"
    if kind == "cards_played":
        return f"{who} {'leads' if data.get('lead') else 'follows with'} {_cards(data.get('cards'))}"
    if kind == "trick_won":
        return f"{who} wins trick {data.get('trick_no')}, worth {data.get('tricks')} ({data.get('total')} in all)"
    if kind == "hand_scored":
        return f"the hand is scored: tricks {data.get('tricks')}"
    if kind == "deal_ended":
        return "the deal ends"
    return None if kind is None else str(kind)


# Rendering -----------------------------------------------------------------------------------------------------------


def _signed(amount: Any) -> str:
    return f"{amount:+d}" if isinstance(amount, int) else str(amount)


def _move_text(move: Mapping[str, Any]) -> str:
    """The events of one move, its player named once: "bob discards 4M; turns up 7C"."""
    texts: list[str] = []
    for text in move["events"]:
        again = str(text).removeprefix(f"{move['player']} ")
        texts.append(again if texts and again != text else str(text))
    return "; ".join(texts)


def render(facts: Mapping[str, Any]) -> str:
    """The facts as the story a newcomer reads."""
    table, players = facts["table"], facts["players"]
    names = [p["name"] for p in players]
    out: list[str] = []
    add = out.append
    add(f"cardledger demo: one deal of {facts['game']} over the REST API at {facts['url']}")
    add("")
    add(f"Table {table['id']}, {table['seats']} seats")
    add(f"  options {json.dumps(table['options'], sort_keys=True)}")
    for p in players:
        add(f"  seat {p['seat']}: {p['name']:<6} player {p['id']}, client seed {p['client_seed']!r}")
    before = facts["before_the_deal"]
    add("")
    add(f"Before deal {before['deal_no']}: the service committed to its secret server seed")
    add(f"  commitment  {before['commitment']}  (SHA-256 of the seed, published when the table opened)")
    add("  server seed still secret: the deal record shows server_seed null while the deal runs")
    moves = facts["moves"]
    add("")
    add(f"The deal: {moves['count']} moves by the {table['bot']} bots, each a POST .../actions with If-Match")
    for move in moves["first"]:
        add(f"  v{move['version']:<4} {_move_text(move)}")
    hidden = moves["count"] - len(moves["first"]) - len(moves["last"])
    if hidden > 0:
        add(f"  ... {hidden} more ...")
    for move in moves["last"]:
        add(f"  v{move['version']:<4} {_move_text(move)}")
    reveal = facts["reveal"]
    add("")
    add("The deal ended and the seed was revealed")
    add(f"  server seed {reveal['server_seed']}")
    add(f"  SHA-256     {reveal['sha256_of_seed']}  = the commitment: yes")
    result = facts["result"]
    add("")
    if facts["game"] == "cholek-tiga":
        scores = result.get("scores") or []
        add("Result: " + ", ".join(f"{n} {s} points" for n, s in zip(names, scores, strict=False)))
    else:
        tricks = result.get("tricks") or []
        add("Result: tricks " + ", ".join(f"{n} {t}" for n, t in zip(names, tricks, strict=False)))
        winner = result.get("pool_winner")
        if isinstance(winner, int) and 0 <= winner < len(names):
            add(f"  pool: won by {names[winner]} ({result.get('pool_won')} {result['unit']})")
        else:
            add(f"  pool: nobody reached the target; {result.get('pool')} {result['unit']} carried to the next deal")
    unit = result["unit"]
    nets = []
    for entry in result["net"]:
        cents = "" if unit == "cents" or entry["cents"] is None else f" = {_signed(entry['cents'])} cents"
        nets.append(f"{entry['name']} {_signed(entry['amount'])} {unit}{cents}")
    add("  net: " + ", ".join(nets))
    ledger = facts["ledger"]
    add("")
    add(f"Ledger of the table (GET /v1/tables/{{id}}/ledger): {ledger['line_count']} lines")
    for line in ledger["lines"]:
        who = line["name"] or line["account"]
        amount = _signed(line["amount"])
        add(f"  v{line['version']:<4} {line['account']:<7} {who:<6} {amount:>6} {line['unit']:<6} ({line['reason']})")
    balanced = "balanced" if ledger["balanced"] else "NOT balanced"
    add(f"  sum {ledger['sum_amount']} ({ledger['sum_cents']} cents): {balanced}")
    reasons = sorted({str(line["reason"]) for line in ledger["lines"]} & set(TERMS))
    if reasons:
        add("  where " + "; ".join(f"{reason}: {TERMS[reason]}" for reason in reasons))
        add(f"  ({RULES_PAGE} says it all)")
    add("")
    add("Settlement report, as each player sees it (GET /v1/reports/settlement?table_id=...)")
    for report in facts["settlement"]:
        rows = ", ".join(
            f"{row['account']} {_signed(row['net_amount'])} {row['unit']}"
            + ("" if row["unit"] == "cents" else f" ({_signed(row['net_cents'])} cents)")
            for row in report["rows"]
        )
        add(f"  {report['name']:<6} {rows or 'no rows'}; net {_signed(report['net_cents'])} cents")
    verification = facts["verification"]
    add("")
    add(f"Verified through the API alone by services.cli.verify_remote, as {verification['as']}:")
    checks = ", ".join(
        f"{name} {'ok' if passed is True else passed}" for name, passed in verification["checks"].items()
    )
    add(f"  {verification['events_checked']} events, hash chain ok, deal {DEAL_NO}: {checks}")
    add(
        f"  ledger lines {verification['ledger_lines']} ok; receipts {verification['receipts_ok']} of "
        f"{verification['receipts_checked']} ok: OK, every check holds"
    )
    receipt = facts["receipt"]
    signed = receipt["receipt"]
    add("")
    add(f"One signed receipt (of version {signed['version']}, the move that ended the deal), checked by hand:")
    add(f"  key {receipt['key_id']} listed by GET /v1/keys; Ed25519 signature valid; the log holds hash")
    add(f"  {signed['hash']} at version {signed['version']}")
    commands = facts["commands"]
    add("")
    add("Recompute the deal's deck yourself (prints the deck order as JSON):")
    add(f"  {commands['deck']}")
    add(f"Open the dispute report of the deal ({facts['dispute']['steps']} steps, replayed and verified):")
    add(f"  {commands['dispute']}")
    if facts.get("stack_stopped"):
        add("  (the stack this demo started is stopped now, its folder removed: run `make run`, then `cardledger")
        add(f"  demo --url {facts['your_stack_url']}`, to keep the server up for this command)")
    return "\n".join(out)


RULES_PAGE = "docs/rules.md, sections Settlement and Chips and balances,"


# The command ---------------------------------------------------------------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--game", choices=GAMES, default=GAMES[0], help="the game to play (default %(default)s)")
    parser.add_argument("--url", help="base URL of a running service; without it, `cardledger up` is started")
    parser.add_argument("--json", action="store_true", help="print the facts as one JSON document")


def run(url: str | None, game: str, as_json: bool, out: IO[str], err: IO[str], settings: Settings | None = None) -> int:
    """`cardledger demo`: print the story (or the JSON); 0 every check holds, 1 one failed, 2 could not run."""
    try:
        facts = Demo(url, game).run() if url else _on_own_stack(game, err, settings or Settings())
    except DemoError as error:
        print(f"cardledger: error: demo: {' '.join(error.message.split())}", file=err)
        return error.status
    except Exception as error:  # an answer shaped against the documented API must not end in a traceback
        print(f"cardledger: error: demo: stopped on an answer it cannot read: {error!r}", file=err)
        return 2
    if as_json:
        print(json.dumps(facts, indent=2, ensure_ascii=False), file=out)
    else:
        print(render(facts), file=out)
    return 0


def _on_own_stack(game: str, err: IO[str], settings: Settings) -> dict[str, Any]:
    """The demo on a stack of its own, in a temporary data folder removed at the end: it never meets the
    embedded servers of a `make run` beside it (./.cardledger) nor leaves its table in their database."""
    print("cardledger demo: starting `cardledger up` in a temporary folder ...", file=err)
    try:
        with (
            tempfile.TemporaryDirectory(prefix="cardledger-demo-") as folder,
            embedded_stack({"CARDLEDGER_DATA_DIR": folder}) as stack,
        ):
            print(f"cardledger demo: stack up on {stack.base_url} (log {stack.log_path})", file=err)
            facts = Demo(stack.base_url, game).run()
    except (RuntimeError, TimeoutError) as error:
        raise DemoError(f"the stack did not start: {error}") from None
    facts["stack_stopped"] = True
    facts["your_stack_url"] = f"http://{settings.host}:{settings.port}"  # where `make run` serves, as configured
    return facts


def run_from_args(args: argparse.Namespace, settings: Settings | None = None) -> int:
    return run(args.url, args.game, args.json, sys.stdout, sys.stderr, settings)
