"""Playing tables: each player thread takes the next table, opens it, seats its bots and plays its deals.

Reads come from projections, so every GET asks for at least the version of the last write
(`min_version`); an action is conditional on the version it was chosen at (`If-Match`), and a 412 means the
table moved on: the bot re-reads and chooses again. A 429 waits its `Retry-After` and sends the same request
(same Idempotency-Key) again. Any other error fails the deal in progress and stops that table.
"""

from __future__ import annotations

import queue
import random
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from services.simulate.bots import Bot, make_bot
from services.simulate.client import ApiError, HttpClient, Response
from services.simulate.report import ProgressBar, Stats, TableResult

GAMES = ("cholek-tiga", "cha-kau-tsz")
SEATS = {"cholek-tiga": (2, 3), "cha-kau-tsz": (2, 3, 4)}
MAX_RATE_LIMIT_RETRIES = 30
MAX_STALE_READS = 100


class SimulationError(Exception):
    pass


@dataclass(frozen=True)
class SimulationConfig:
    base_url: str
    game: str
    tables: int
    seats: int
    concurrency: int
    bot: str = "random"
    deals: int = 1
    auditor_token: str | None = None
    seed: str = "cardledger-simulate"
    duration: float | None = None  # seconds after which no new deal or table starts (the current deals finish)
    max_actions_per_deal: int = 5000
    progress: bool = True
    timeout: float = 30.0

    def check(self) -> None:
        if self.game not in GAMES:
            raise ValueError(f"unknown game {self.game!r}; choose one of {', '.join(GAMES)}")
        if self.seats not in SEATS[self.game]:
            raise ValueError(f"{self.game} is played with {' or '.join(map(str, SEATS[self.game]))} seats")
        for name in ("tables", "concurrency", "deals", "max_actions_per_deal"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1")
        make_bot(self.bot, random.Random(0))


@dataclass
class SimulationResult:
    config: SimulationConfig
    summary: dict[str, Any]
    tables: list[TableResult] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not any(t.failed or t.verified is False for t in self.tables) and self.summary["deals_failed"] == 0

    def to_json(self) -> dict[str, Any]:
        config = {k: v for k, v in self.config.__dict__.items() if k != "auditor_token"}
        return {"config": config, "summary": self.summary, "ok": self.ok, "tables": [t.to_json() for t in self.tables]}


@dataclass
class Player:
    player_id: str
    token: str
    seat: int = -1


class TablePlayer:
    """One table from opening to its last deal, driven by one thread."""

    def __init__(
        self, client: HttpClient, config: SimulationConfig, stats: Stats, result: TableResult, deadline: float | None
    ) -> None:
        self.client, self.config, self.stats, self.result, self.deadline = client, config, stats, result, deadline
        self.rng = random.Random(f"{config.seed}-{result.index}")
        self.bot: Bot = make_bot(config.bot, self.rng)
        self.players: list[Player] = []
        self.table_id = ""
        self.known = 0  # the newest table version this client has written or read

    # HTTP ------------------------------------------------------------------------------------------------------------

    def send(
        self,
        method: str,
        path: str,
        body: Any = None,
        token: str | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> Response:
        """One request; 429 answers wait their Retry-After and go again. Other answers are returned as they are."""
        for _ in range(MAX_RATE_LIMIT_RETRIES):
            self.stats.request()
            response = self.client.request(method, path, body, token, headers)
            if response.status != 429:
                if not response.ok:
                    self.stats.error(response.code, retried=response.status == 412)
                return response
            self.stats.error(response.code, retried=True)
            time.sleep(min(5.0, max(0.05, _retry_after(response))))
        raise SimulationError(f"{method} {path}: still rate limited after {MAX_RATE_LIMIT_RETRIES} tries")

    def call(self, method: str, path: str, body: Any = None, token: str | None = None) -> dict[str, Any]:
        response = self.send(method, path, body, token)
        if not response.ok:
            raise ApiError(response, f"{method} {path}")
        return response.body()

    def act(self, player: Player, action: dict[str, Any], if_match: int | None) -> Response:
        headers = {"Idempotency-Key": str(uuid.uuid4())}
        if if_match is not None:
            headers["If-Match"] = f'"{if_match}"'
        response = self.send("POST", f"/v1/tables/{self.table_id}/actions", action, player.token, headers)
        if response.ok:
            self.stats.action(response.seconds)
            self.result.actions += 1
            self.known = max(self.known, int(response.body()["version"]))
        elif response.status != 412:
            raise ApiError(response, f"action {action} at table {self.table_id} (seat {player.seat})")
        return response

    def view(self, seat: int) -> dict[str, Any]:
        path = f"/v1/tables/{self.table_id}/view?min_version={self.known}"
        view = self.call("GET", path, token=self.players[seat].token)
        self.known = max(self.known, int(view["version"]))
        return view

    # Play ------------------------------------------------------------------------------------------------------------

    def play(self) -> None:
        deal_in_progress = False
        try:
            self.open_table()
            for deal in range(self.config.deals):
                if deal > 0:
                    if self.deadline is not None and time.monotonic() >= self.deadline:
                        break
                    deal_in_progress = True
                    self.all_ready(deal + 1)
                deal_in_progress = True
                self.play_deal()
                deal_in_progress = False
                self.result.deals_completed += 1
                self.stats.deal(ok=True)
            table = self.call(
                "GET", f"/v1/tables/{self.table_id}?min_version={self.known}", token=self.players[0].token
            )
            self.result.status, self.result.version = str(table["status"]), int(table["version"])
        except Exception as error:  # a failed deal is reported, never raised: the other tables play on
            self.result.failed = True
            self.result.error = f"{type(error).__name__}: {error}"
            if deal_in_progress or self.result.deals_completed == 0:
                self.stats.deal(ok=False)

    def open_table(self) -> None:
        index, config = self.result.index, self.config
        for n in range(config.seats):
            body = self.call("POST", "/v1/players", {"name": f"sim-{config.bot}-{index}-{n}"})
            self.players.append(Player(str(body["id"]), str(body["token"])))
        table = self.call(
            "POST", "/v1/tables", {"game": config.game, "seats": config.seats, "options": {}}, self.players[0].token
        )
        self.table_id = self.result.table_id = str(table["id"])
        self.known = int(table.get("version") or 0)
        for n, player in enumerate(self.players):
            seated = self.call(
                "POST",
                f"/v1/tables/{self.table_id}/seats",
                {"seat": n, "client_seed": f"sim-{index}-{n}-1"},
                player.token,
            )
            player.seat = int(seated["seat"])
            self.known = max(self.known, int(seated.get("version") or 0))
        self.players.sort(key=lambda p: p.seat)

    def all_ready(self, deal_no: int) -> None:
        for player in self.players:
            action = {"type": "ready", "client_seed": f"sim-{self.result.index}-{player.seat}-{deal_no}"}
            self.act(player, action, None)

    def play_deal(self) -> None:
        """Act until the table is between deals again."""
        reader, actions, stale = 0, 0, 0
        while True:
            view = self.view(reader)
            status = view["status"]
            if status == "between_deals":
                return
            if status != "playing":
                raise SimulationError(f"table {self.table_id} is {status!r} in the middle of a deal")
            to_act = view["to_act"]
            if to_act is not None and to_act != view["seat"]:
                reader = int(to_act)  # the guess was wrong: read the view of the seat to act
                continue
            if to_act is None or not view["legal_actions"]:
                stale += 1
                if stale > MAX_STALE_READS:
                    raise SimulationError(f"table {self.table_id}: no seat could act at version {view['version']}")
                time.sleep(0.02)
                continue
            action = self.bot.choose(view)
            if not self.act(self.players[reader], action, int(view["version"])).ok:
                continue  # 412: the table moved on; read again and choose again
            actions += 1
            if actions > self.config.max_actions_per_deal:
                raise SimulationError(f"table {self.table_id}: the deal did not end in {actions - 1} actions")
            reader = (reader + 1) % len(self.players)  # most often the next seat acts next

    def verify(self, auditor_token: str) -> None:
        """As the auditor: the ledger balances and every completed deal's record verifies."""
        if not self.table_id or self.result.deals_completed == 0:
            return
        ledger = self.call("GET", f"/v1/tables/{self.table_id}/ledger", token=auditor_token)
        ok = bool(ledger.get("balanced", True))
        for deal_no in range(1, self.result.deals_completed + 1):
            deal = self.call("GET", f"/v1/tables/{self.table_id}/deals/{deal_no}", token=auditor_token)
            ok = ok and bool((deal.get("verification") or {}).get("ok"))
        self.result.verified = ok


def _retry_after(response: Response) -> float:
    try:
        return float(response.headers.get("retry-after", "1"))
    except ValueError:
        return 1.0


def simulate(config: SimulationConfig, on_start: Callable[[], None] | None = None) -> SimulationResult:
    """Play `config.tables` tables, `config.concurrency` at a time; never raises for a failed deal."""
    config.check()
    stats = Stats(deals_requested=config.tables * config.deals)
    results = [TableResult(index) for index in range(config.tables)]
    todo: queue.Queue[int] = queue.Queue()
    for index in range(config.tables):
        todo.put(index)
    deadline = None if config.duration is None else stats.started + config.duration
    players: list[TablePlayer] = []
    players_lock = threading.Lock()

    def work() -> None:
        client = HttpClient(config.base_url, config.timeout)
        try:
            while deadline is None or time.monotonic() < deadline:
                try:
                    index = todo.get_nowait()
                except queue.Empty:
                    return
                player = TablePlayer(client, config, stats, results[index], deadline)
                with players_lock:
                    players.append(player)
                player.play()
        finally:
            client.close()

    threads = [
        threading.Thread(target=work, name=f"simulate-{n}") for n in range(min(config.concurrency, config.tables))
    ]
    progress = ProgressBar(stats, duration=config.duration) if config.progress else None
    if on_start is not None:
        on_start()
    if progress is not None:
        progress.start()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    stats.finished = time.monotonic()
    if progress is not None:
        progress.stop()
    if config.auditor_token:
        client = HttpClient(config.base_url, config.timeout)
        try:
            for player in players:
                player.client = client
                try:
                    player.verify(config.auditor_token)
                except Exception as error:
                    player.result.verified = False
                    player.result.error = f"verification: {type(error).__name__}: {error}"
        finally:
            client.close()
    return SimulationResult(config, stats.summary(), results)
