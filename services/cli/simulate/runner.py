"""Playing tables: each player thread takes the next table, opens it, seats its bots and plays its deals.

With `threads` T (the `polling` client only), `concurrency` tables are in play at once on T threads and T
connections: each thread holds its share of the tables and takes one step of each in turn (a step: read the
seat view and act), so many tables play at once without a thread or connection each.

Two clients (`client`):

- `polling`: one thread plays every seat of the table; before each action it reads the view of the seat it
  expects to act (asking for at least the version of the last write, `min_version`), then posts.
- `holding`: each seat plays on a thread (and a connection) of its own and keeps its view: its writes ask
  for the new seat view in the answer (`Prefer: return=representation`), so an action is one request, and a
  seat that waits for its turn long-polls (`GET /view?wait_for_version=<its version + 1>`) instead of polling.
- `streaming`: each seat plays on a thread of its own, follows its seat view's stream
  (`GET /view/stream`, Server-Sent Events, on a connection of its own) and acts (on another connection)
  when the view pushed says it is its turn: an action is one POST and no read; the POST does not ask for
  the view in the answer (the stream pushes it; docs/performance.md, "The relay and the wake-ups").

An action is conditional on the version it was chosen at (`If-Match`), and a 412 means the
table moved on: the bot re-reads and chooses again. A 429, or a 503 (the service is busy or its database is
failing over), waits its `Retry-After` and sends the same request (same Idempotency-Key) again: a write that did
commit answers as it did the first time. Any other error fails the deal in progress and stops that table.

Every signed receipt a write answers with is kept (`TableResult.receipts`); `--receipts FILE` writes them all,
for `cardledger verify --table ID --receipts FILE`.

Tables are opened with a short turn clock (`turn_seconds`, default 5). With `absent` P, each seat of each deal
stops playing, with probability P, from a random one of its turns to the end of the deal: the service's clock
then plays for it (docs/house-rules.md), and the other bots wait for the clock. The seat is back for the next
deal. At the end each table's events are read once to count the actions the clock took (`timed_out`).

With several base URLs (`other_urls`: API instances of one service), the clients are spread over them
round-robin: the n-th table thread's connection goes to URL n mod k, and under `holding` seat s of table i to
URL (i + s) mod k, so the seats of one table write and read through different instances.
"""

from __future__ import annotations

import itertools
import json
import queue
import random
import threading
import time
import uuid
from collections.abc import Callable, Generator, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from services.cli.http_client import ApiError, HttpClient, Response
from services.cli.simulate.bots import Bot, make_bot
from services.cli.simulate.report import ProgressBar, Stats, TableResult
from services.cli.simulate.seat_stream import SeatStream

GAMES = ("cholek-tiga", "cha-kau-tsz")
SEATS = {"cholek-tiga": (2, 3), "cha-kau-tsz": (2, 3, 4)}
MAX_RETRIES = 30  # of one request refused with 429 or 503 (each waits its Retry-After, at most 5 s)
RETRIED_STATUSES = (429, 503)
MAX_STALE_READS = 100
DEFAULT_TURN_SECONDS = 5
ABSENT_FROM_TURNS = 20  # an absent seat stops at one of its first this many turns of the deal, uniformly
CLOCK_POLL_S = 0.2
CLIENTS = ("polling", "holding", "streaming")
SEAT_CLIENTS = ("holding", "streaming")  # each seat on a thread and connection of its own
LONG_POLL_WAIT_S = 10  # `Prefer: wait=`: well inside the HTTP client's timeout, and a failed deal stops soon
REPRESENTATION = "return=representation"
_DONE = object()  # what next() gives for a table that has finished


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
    absent: float = 0.0  # the probability that a seat stops playing for the rest of a deal
    turn_seconds: int = DEFAULT_TURN_SECONDS  # the tables' turn clock
    client: str = "polling"  # how the bots read (module docstring)
    other_urls: tuple[str, ...] = ()  # more API instances of the same service; clients round-robin over all
    threads: int | None = None  # threads (and connections) the tables in play share; None: one thread per table
    receipts_path: Path | None = None  # where every receipt received is written, as one JSON list

    @property
    def urls(self) -> tuple[str, ...]:
        return (self.base_url, *self.other_urls)

    def url(self, n: int) -> str:
        """The base URL of the n-th client, round-robin over `urls`."""
        return self.urls[n % len(self.urls)]

    def check(self) -> None:
        if self.game not in GAMES:
            raise ValueError(f"unknown game {self.game!r}; choose one of {', '.join(GAMES)}")
        if self.seats not in SEATS[self.game]:
            raise ValueError(f"{self.game} is played with {' or '.join(map(str, SEATS[self.game]))} seats")
        for name in ("tables", "concurrency", "deals", "max_actions_per_deal"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1")
        if not 0.0 <= self.absent <= 1.0:
            raise ValueError(f"absent must be a probability from 0 to 1, not {self.absent}")
        if not 5 <= self.turn_seconds <= 3600:
            raise ValueError(f"turn_seconds must be from 5 to 3600, not {self.turn_seconds}")
        if self.client not in CLIENTS:
            raise ValueError(f"unknown client {self.client!r}; choose one of {', '.join(CLIENTS)}")
        for url in self.urls:
            HttpClient(url).close()  # an unusable URL is refused here, not by every thread
        if self.threads is not None:
            if self.threads < 1:
                raise ValueError(f"threads must be at least 1, not {self.threads}")
            if self.client != "polling":
                raise ValueError(f"threads shares threads between tables with the polling client, not {self.client}")
            if self.absent > 0:
                raise ValueError(
                    "threads cannot be combined with absent: a table waiting for the clock would hold up "
                    "the other tables of its thread"
                )
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
    client: HttpClient | None = None  # the `holding` and `streaming` clients' own connection for this seat
    view: dict[str, Any] | None = None  # the `holding` client's view of this seat, from its last answer
    stream: SeatStream | None = None  # the `streaming` client's view stream of this seat
    seen: int = -1  # the `streaming` client: the newest version of this seat's views (answers and pushes)


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
        self.lock = threading.Lock()  # the `holding` client's seat threads count into `result` together
        # Idempotency-Keys: unique to this table's run, without a random UUID made per action
        self.key_prefix = uuid.uuid4().hex
        self.key_numbers = itertools.count(1)

    # HTTP ------------------------------------------------------------------------------------------------------------

    def send(
        self,
        method: str,
        path: str,
        body: Any = None,
        token: str | None = None,
        headers: Mapping[str, str] | None = None,
        client: HttpClient | None = None,
    ) -> Response:
        """One request (on `client`, else the table's); 429 and 503 answers wait their Retry-After and go again.
        Other answers are returned as they are; a write's receipt is kept."""
        for _ in range(MAX_RETRIES):
            self.stats.request()
            response = (client or self.client).request(method, path, body, token, headers)
            if response.status not in RETRIED_STATUSES:
                if not response.ok:
                    self.stats.error(response.code, retried=response.status == 412)
                elif method == "POST":
                    self.keep_receipt(response)
                return response
            self.stats.error(response.code, retried=True)
            time.sleep(min(5.0, max(0.05, _retry_after(response))))
        raise SimulationError(f"{method} {path}: still refused ({response.status}) after {MAX_RETRIES} tries")

    def keep_receipt(self, response: Response) -> None:
        answer = response.payload
        receipt = answer.get("receipt") if isinstance(answer, dict) else None
        if receipt is not None:
            with self.lock:
                self.result.receipts.append(receipt)

    def call(self, method: str, path: str, body: Any = None, token: str | None = None) -> dict[str, Any]:
        response = self.send(method, path, body, token)
        if not response.ok:
            raise ApiError(response, f"{method} {path}")
        return response.body()

    def act(self, player: Player, action: dict[str, Any], if_match: int | None) -> Response:
        """Post `action`; the `holding` client asks for the seat's new view in the answer (`player.view`)."""
        headers = {"Idempotency-Key": f"{self.key_prefix}-{next(self.key_numbers)}"}
        if if_match is not None:
            headers["If-Match"] = f'"{if_match}"'
        if self.holding:
            headers["Prefer"] = REPRESENTATION
        path = f"/v1/tables/{self.table_id}/actions"
        response = self.send("POST", path, action, player.token, headers, player.client)
        if response.ok:
            self.stats.action(response.seconds)
            answer = response.body()
            with self.lock:
                self.result.actions += 1
                self.known = max(self.known, int(answer["version"]))
            if self.holding:
                player.view = answer.get("view")
            if self.streaming:
                player.view = answer.get("view")  # None unless asked for: the next view is then the stream's
                if player.view is not None:
                    player.seen = max(player.seen, int(player.view["version"]))
        elif response.status != 412:
            raise ApiError(response, f"action {action} at table {self.table_id} (seat {player.seat})")
        return response

    @property
    def holding(self) -> bool:
        return self.config.client == "holding"

    @property
    def streaming(self) -> bool:
        return self.config.client == "streaming"

    @property
    def per_seat(self) -> bool:
        return self.config.client in SEAT_CLIENTS

    def view(self, seat: int) -> dict[str, Any]:
        path = f"/v1/tables/{self.table_id}/view?min_version={self.known}"
        view = self.call("GET", path, token=self.players[seat].token)
        self.known = max(self.known, int(view["version"]))
        return view

    # Play ------------------------------------------------------------------------------------------------------------

    def play(self, stop: threading.Event | None = None) -> None:
        for _ in self.steps(stop):
            pass

    def steps(self, stop: threading.Event | None = None) -> Generator[None, None, None]:
        """Play the table, yielding after each step (an action, or a read that found no action to take), so that
        one thread can take turns between tables. Once `stop` is set the table stops at its next step, in the
        middle of a deal if need be (counted neither completed nor failed)."""
        deal_in_progress = False
        try:
            self.open_table()
            self.stats.table_started()
            yield
            for deal in range(self.config.deals):
                if deal > 0:
                    if (self.deadline is not None and time.monotonic() >= self.deadline) or (
                        stop is not None and stop.is_set()
                    ):
                        break
                    deal_in_progress = True
                    self.all_ready(deal + 1)
                    yield
                deal_in_progress = True
                if self.per_seat:
                    self.play_deal_holding(deal + 1)
                else:
                    for _ in self.play_deal():
                        if stop is not None and stop.is_set():
                            return
                        yield
                deal_in_progress = False
                self.result.deals_completed += 1
                self.stats.deal(ok=True)
            if stop is not None and stop.is_set():
                return
            table = self.call(
                "GET", f"/v1/tables/{self.table_id}?min_version={self.known}", token=self.players[0].token
            )
            self.result.status, self.result.version = str(table["status"]), int(table["version"])
            self.count_timed_out()
        except Exception as error:  # a failed deal is reported, never raised: the other tables play on
            self.result.failed = True
            self.result.error = f"{type(error).__name__}: {error}"
            if deal_in_progress or self.result.deals_completed == 0:
                self.stats.deal(ok=False)
        finally:
            for player in self.players:
                if player.client is not None:
                    player.client.close()
                if player.stream is not None:
                    player.stream.close()

    def open_table(self) -> None:
        index, config = self.result.index, self.config
        for n in range(config.seats):
            body = self.call("POST", "/v1/players", {"name": f"sim-{config.bot}-{index}-{n}"})
            client = HttpClient(config.url(index + n), config.timeout) if self.per_seat else None
            self.players.append(Player(str(body["id"]), str(body["token"]), client=client))
        options = {"turn_seconds": config.turn_seconds}
        table = self.call(
            "POST",
            "/v1/tables",
            {"game": config.game, "seats": config.seats, "options": options},
            self.players[0].token,
        )
        self.table_id = self.result.table_id = str(table["id"])
        self.known = int(table.get("version") or 0)
        prefer = {"Prefer": REPRESENTATION} if self.holding else None
        for n, player in enumerate(self.players):
            path, body = f"/v1/tables/{self.table_id}/seats", {"seat": n, "client_seed": f"sim-{index}-{n}-1"}
            response = self.send("POST", path, body, player.token, prefer, player.client)
            if not response.ok:
                raise ApiError(response, f"POST {path}")
            seated = response.body()
            player.seat, player.view = int(seated["seat"]), seated.get("view")
            self.known = max(self.known, int(seated.get("version") or 0))
        self.players.sort(key=lambda p: p.seat)

    def all_ready(self, deal_no: int) -> None:
        for player in self.players:
            action = {"type": "ready", "client_seed": f"sim-{self.result.index}-{player.seat}-{deal_no}"}
            self.act(player, action, None)

    def absent_from(self) -> dict[int, int]:
        """For this deal: the seats that stop playing, each with the number of its own actions before it does."""
        return {
            seat: self.rng.randrange(ABSENT_FROM_TURNS)
            for seat in range(len(self.players))
            if self.config.absent > 0 and self.rng.random() < self.config.absent
        }

    def wait_for_the_clock(self, seat: int, version: int) -> None:
        """The seat to act is absent: wait until the table moves on (the clock acts after turn_seconds)."""
        deadline = time.monotonic() + 2 * self.config.turn_seconds + 30
        while time.monotonic() < deadline:
            time.sleep(CLOCK_POLL_S)
            table = self.call("GET", f"/v1/tables/{self.table_id}", token=self.players[0].token)
            if int(table["version"]) > version:
                self.known = max(self.known, int(table["version"]))
                return
        raise SimulationError(f"table {self.table_id}: the clock did not act for absent seat {seat}")

    def count_timed_out(self) -> None:
        """The actions the service's clock took at this table (events marked timed_out), read once at the end."""
        after, count = 0, 0
        while True:
            page = self.call(
                "GET", f"/v1/tables/{self.table_id}/events?after={after}&limit=1000", token=self.players[0].token
            )
            count += sum(1 for event in page["events"] if event["data"].get("timed_out") is True)
            if not page["events"]:
                break
            after = int(page["next_after"])
        self.result.timed_out = count
        self.stats.timed_out(count)

    def play_deal(self) -> Iterator[None]:
        """Act until the table is between deals again, yielding after each step."""
        reader, actions, stale = 0, 0, 0
        absent = self.absent_from()
        played: dict[int, int] = {}  # actions of each seat in this deal
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
            if to_act is not None and int(to_act) in absent and played.get(int(to_act), 0) >= absent[int(to_act)]:
                self.wait_for_the_clock(int(to_act), int(view["version"]))
                continue
            if to_act is None or not view["legal_actions"]:
                stale += 1
                if stale > MAX_STALE_READS:
                    raise SimulationError(f"table {self.table_id}: no seat could act at version {view['version']}")
                time.sleep(0.02)
                yield
                continue
            action = self.bot.choose(view)
            if not self.act(self.players[reader], action, int(view["version"])).ok:
                continue  # 412: the table moved on; read again and choose again
            actions += 1
            played[reader] = played.get(reader, 0) + 1
            if actions > self.config.max_actions_per_deal:
                raise SimulationError(f"table {self.table_id}: the deal did not end in {actions - 1} actions")
            reader = (reader + 1) % len(self.players)  # most often the next seat acts next
            yield

    def play_deal_holding(self, deal_no: int) -> None:
        """The `holding` and `streaming` clients: every seat plays deal `deal_no` on its own thread, from the view
        it holds."""
        absent = self.absent_from()
        stop = threading.Event()
        failures: list[BaseException] = []
        actions = [0]

        def seat(player: Player) -> None:
            bot = make_bot(self.config.bot, random.Random(f"{self.config.seed}-{self.result.index}-{player.seat}"))
            try:
                self.play_seat(player, bot, deal_no, absent.get(player.seat), stop, actions)
            except BaseException as error:  # reported by the table's thread below
                failures.append(error)
                stop.set()
                for other in self.players:  # a seat waiting on its stream stops now, not at its next message
                    if other.stream is not None:
                        other.stream.interrupt()

        threads = [threading.Thread(target=seat, args=(p,), name=f"seat-{p.seat}") for p in self.players]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        if failures:
            raise failures[0]

    def play_seat(
        self,
        player: Player,
        bot: Bot,
        deal_no: int,
        absent_after: int | None,
        stop: threading.Event,
        actions: list[int],
    ) -> None:
        """Act from the view held whenever it is this seat's turn, else wait for the next version (a long-poll,
        or the view stream's next message), until deal `deal_no` has ended. `absent_after`: the seat stops acting
        after that many actions (the clock plays for it). `actions` counts the deal's actions of every seat."""
        played = 0
        moved = time.monotonic()  # when the table last moved, as this seat saw it
        patience = 2 * self.config.turn_seconds + 30
        if self.streaming:  # a view older than one seen (still queued on the stream) is never acted on
            view = player.view if player.view is not None else self.pushed_view(player, player.seen, stop)
        else:
            view = player.view if player.view is not None else self.wait_view(player, None)
        while not stop.is_set():
            status, version = view["status"], int(view["version"])
            if status == "closed" or (int(view["deal_no"]) >= deal_no and status != "playing"):
                return
            mine = status == "playing" and view["to_act"] == view["seat"] and view["legal_actions"]
            if mine and (absent_after is None or played < absent_after):
                response = self.act(player, bot.choose(view), version)
                if response.ok:
                    played += 1
                    with self.lock:
                        actions[0] += 1
                        if actions[0] > self.config.max_actions_per_deal:
                            raise SimulationError(
                                f"table {self.table_id}: the deal did not end in {actions[0] - 1} actions"
                            )
                    moved = time.monotonic()
                    if self.streaming:
                        view = player.view if player.view is not None else self.pushed_view(player, version, stop)
                    else:
                        view = player.view if player.view is not None else self.wait_view(player, None)
                    continue
                # 412: the table moved on; its stream says to what, or read the view now
                view = self.pushed_view(player, version, stop) if self.streaming else self.wait_view(player, None)
            elif self.streaming:
                view = self.pushed_view(player, version, stop)
            else:
                view = self.wait_view(player, version + 1)
            if int(view["version"]) > version:
                moved = time.monotonic()
            elif time.monotonic() - moved > patience:
                raise SimulationError(f"table {self.table_id}: nothing happened for {patience} s at version {version}")

    def wait_view(self, player: Player, version: int | None) -> dict[str, Any]:
        """The seat's view: a long-poll until the table reaches `version` (or the wait ends), or the view now."""
        path = f"/v1/tables/{self.table_id}/view"
        if version is not None:
            path += f"?wait_for_version={version}"
        headers = {"Prefer": f"wait={LONG_POLL_WAIT_S}"}
        response = self.send("GET", path, token=player.token, headers=headers, client=player.client)
        if not response.ok:
            raise ApiError(response, f"GET {path}")
        view = response.body()
        with self.lock:
            self.known = max(self.known, int(view["version"]))
        return view

    def pushed_view(self, player: Player, version: int, stop: threading.Event) -> dict[str, Any]:
        """The seat's first view above `version` from its view stream (opened on the first call, kept open
        across deals, reconnected with Last-Event-ID when the server ends it)."""
        if player.stream is None:
            url = self.config.url(self.result.index + player.seat)
            path = f"/v1/tables/{self.table_id}/view/stream"
            player.stream = SeatStream(url, path, player.token, self.config.timeout, on_connect=self.stats.request)
        view = player.stream.next_view(max(version, player.seen), stop.is_set)
        player.seen = int(view["version"])
        with self.lock:
            self.known = max(self.known, int(view["version"]))
        return view

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


def simulate(
    config: SimulationConfig,
    on_start: Callable[[], None] | None = None,
    stop: threading.Event | None = None,
    stats: Stats | None = None,
) -> SimulationResult:
    """Play `config.tables` tables, `config.concurrency` at a time; never raises for a failed deal. Setting `stop`
    ends every table at its next step, in the middle of a deal if need be; `stats` (counted into as the tables
    play) lets a caller watch the run."""
    config.check()
    if stats is None:
        stats = Stats(deals_requested=config.tables * config.deals)
    results = [TableResult(index) for index in range(config.tables)]
    todo: queue.Queue[int] = queue.Queue()
    for index in range(config.tables):
        todo.put(index)
    deadline = None if config.duration is None else stats.started + config.duration
    players: list[TablePlayer] = []
    players_lock = threading.Lock()

    def next_table(client: HttpClient) -> TablePlayer | None:
        if (deadline is not None and time.monotonic() >= deadline) or (stop is not None and stop.is_set()):
            return None
        try:
            index = todo.get_nowait()
        except queue.Empty:
            return None
        player = TablePlayer(client, config, stats, results[index], deadline)
        with players_lock:
            players.append(player)
        return player

    def work(n: int) -> None:
        client = HttpClient(config.url(n), config.timeout)
        try:
            while (player := next_table(client)) is not None:
                player.play(stop)
        finally:
            client.close()

    def take_turns(n: int, share: int) -> None:
        """`share` tables at once on this thread and its one connection, one step of each in turn."""
        client = HttpClient(config.url(n), config.timeout)
        playing: list[Generator[None, None, None]] = []
        try:
            while True:
                while len(playing) < share and (player := next_table(client)) is not None:
                    playing.append(player.steps(stop))
                if not playing:
                    return
                for table in list(playing):
                    if next(table, _DONE) is _DONE:
                        playing.remove(table)
        finally:
            for table in playing:
                table.close()
            client.close()

    at_once = min(config.concurrency, config.tables)
    if config.threads is None:
        threads = [threading.Thread(target=work, args=(n,), name=f"simulate-{n}") for n in range(at_once)]
    else:
        count = min(config.threads, at_once)
        shares = [at_once // count + (1 if n < at_once % count else 0) for n in range(count)]
        threads = [
            threading.Thread(target=take_turns, args=(n, share), name=f"simulate-{n}") for n, share in enumerate(shares)
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
    if config.receipts_path is not None:
        kept = [receipt for result in results for receipt in result.receipts]
        config.receipts_path.write_text(json.dumps(kept, indent=1) + "\n")
    return SimulationResult(config, stats.summary(), results)
