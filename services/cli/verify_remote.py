"""`cardledger verify --url URL --token TOKEN --table ID`: verify a table through its public REST API alone.

Nothing is trusted but the API's answers and the published algorithms (`domain.hashchain`,
`domain.shuffle`, the rules of `domain/`); the service's own verdict (`verification` of a deal record)
is not read. As the player or auditor the token names, it reads

- `GET /v1/tables/{id}/events` page by page (`after`, `limit`), every event of the table;
- `GET /v1/tables/{id}/view` (a seated player's seat; the auditor and others get 403, which is fine);
- `GET /v1/tables/{id}/ledger` page by page (`after`, `limit`), the table's ledger lines (403 for a player who
  is not seated: an error); the ledger is a read model a little behind the log, so while it has not reached the
  last event read that carries transfers, it is read on for up to `LEDGER_WAIT_SECONDS`;
- `GET /v1/tables/{id}/deals/{n}` for every deal: commitment, client seeds and (once ended) server seed;

and checks, reusing the database audit's own checks (`services.app.audit.verify`) on the events as shown:

1. hash chain: positions 1, 2, ... in order, each `prev_hash` the hash before it (the genesis hash first),
   each hash recomputed from the event (hash version 1 or 2, `domain.hashchain`); a version-2 private
   block shown must match its `private_commitment`, and once its deal ended every block must be shown;
2. each ended deal: the revealed server seed's SHA-256 is the commitment published for it (in
   `table_opened` or the previous `deal_ended`) and announced by `deal_started`; the deal record names
   the same commitment, client seeds and seed; every card an event took from the deck is the card at
   that index of the deck recomputed from seed, table id, deal number and client seeds; the dealing
   events are those the rules deal from that deck;
3. replay: the deal folds from the table's state before it and `game.outcome` gives the result,
   transfers, unit and carry that `deal_ended` states;
4. ledger: the lines are the transfers the events carry (two per transfer, payer debited, payee
   credited, as `infra.projections.ledger` derives them) and sum to zero;
5. a deal still running: its chain (and the private blocks the viewer may see) is checked, the rest is
   reported as pending, not as a failure;
6. `--receipts FILE`: each signed receipt against the log's version -> hash map (`check_receipts`).

Exit codes for the CLI: 0 verified, 1 a check failed (the first failing event or check is named, with
the values that disagree), 2 the table could not be verified (network error, an error answer such as
401/403/404, an answer that is not JSON or not of the documented shape).
"""

from __future__ import annotations

import json
import time
import urllib.parse
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from http import HTTPStatus
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, TypeGuard

from domain.events import JSON, PRIVATE, Event
from domain.hashchain import HASH_V1, canonical_json, canonical_timestamp
from domain.ledger import PLAYER_PREFIX
from domain.table import (
    DEAL_ENDED,
    DEAL_STARTED,
    PLAYER_LEFT,
    PLAYER_SEATED,
    TABLE_OPENED,
    TableState,
    deal_transfers,
)
from infra.event_store import RecordedEvent
from infra.key_chain import PinnedKey, trusted_keys
from infra.receipts import PROVES_NOTHING, ReceiptFormatError
from infra.receipts import check_receipts as check_signed
from infra.table_loader import fold_recorded, from_last_finished_deal
from services.app.audit.receipts import read_receipts_file
from services.app.audit.verify import CHAIN, COMMITMENT, DECK, REPLAY, ChainWalker, DealVerification, check_ended_deal
from services.cli.http_client import MAX_BODY_BYTES, AnswerTooLarge, HttpClient, Response

if TYPE_CHECKING:
    from infra.receipts import Receipt

PAGE_SIZE = 500  # events per GET /events (the API allows 1..1000)
LEDGER_PAGE_SIZE = 1000  # lines per GET /ledger (the API allows 1..1000)
LEDGER_WAIT_SECONDS = 10.0  # how long the ledger may take to reach the events read
TIMEOUT_SECONDS = 30.0

FORMAT, RECORD, LEDGER, RECEIPTS = "format", "deal_record", "ledger", "receipts"
NOT_YOURS: Any = object()  # a deal record the API rightly refuses this viewer (403)
AUDITOR_SEAT = -1  # the auditor's "seat" in every deal: it may see every block, and holds none
CHECK_ORDER = (FORMAT, CHAIN, RECORD, COMMITMENT, DECK, REPLAY, LEDGER, RECEIPTS)
CENTS = "cents"


# HTTP ---------------------------------------------------------------------------------


class RemoteError(Exception):
    """The API could not be asked, or answered with an error or something else than the documented JSON."""

    def __init__(self, message: str, status: int | None = None, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.code = code

    def to_json(self) -> dict[str, JSON]:
        return {"message": self.message, "status": self.status, "code": self.code}


class ApiClient:
    """GET JSON from the cardledger API with a bearer token, on the command line's HTTP client (which follows no
    redirect: following one would send the bearer token to another address)."""

    def __init__(self, base_url: str, token: str, timeout: float = TIMEOUT_SECONDS) -> None:
        parts = urllib.parse.urlsplit(base_url.strip())
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise RemoteError(f"--url must be an http:// or https:// address, not {base_url!r}")
        self.base_url = base_url.strip().rstrip("/")
        self.token = token
        self.timeout = timeout
        try:
            self._client = HttpClient(self.base_url, timeout)
        except ValueError:
            raise RemoteError(f"--url must be an http:// or https:// address, not {base_url!r}") from None

    def get(self, path: str, query: Mapping[str, int | str] | None = None, allow: Iterable[int] = ()) -> Any:
        """The JSON answer to GET `path`; an error status in `allow` returns `None` instead of raising."""
        shown = path + (f"?{urllib.parse.urlencode(query)}" if query else "")
        try:
            response = self._client.request("GET", shown, token=self.token)
        except AnswerTooLarge:
            raise RemoteError(f"GET {shown}: the answer is larger than {MAX_BODY_BYTES} bytes") from None
        except (TimeoutError, BlockingIOError):
            raise RemoteError(f"GET {shown}: no answer from {self.base_url} within {self.timeout:g} s") from None
        except OSError as error:
            raise RemoteError(f"cannot reach {self.base_url}: {error}") from None
        except ValueError as error:
            raise RemoteError(f"GET {shown} failed: {error}") from None
        if response.status in allow:
            return None
        if not response.ok:
            raise _error_answer(shown, response)
        if isinstance(response.payload, (dict, list)):
            return response.payload
        content_type = response.headers.get("content-type", "")
        begins = response.payload[:60] if isinstance(response.payload, str) else response.payload
        raise RemoteError(
            f"GET {shown}: the answer is not JSON (Content-Type {content_type or 'none'!r}, "
            f"begins {begins!r}); is --url the cardledger API?"
        )


def _error_answer(path: str, response: Response) -> RemoteError:
    """An error status as one line: the API's problem details (code and detail) when it sent them."""
    status = response.status
    if 300 <= status < 400:
        where = response.headers.get("location", "?")
        return RemoteError(f"GET {path}: redirected ({status}) to {where}; pass that address as --url", status)
    problem = response.payload
    if isinstance(problem, dict) and "detail" in problem:
        code = str(problem.get("code") or "")
        return RemoteError(f"GET {path}: {status} {code}: {problem['detail']}", status, code or None)
    try:
        phrase = HTTPStatus(status).phrase
    except ValueError:  # a status HTTP does not name
        phrase = ""
    return RemoteError(f"GET {path}: {status} {phrase}".rstrip(), status)


# The verdict ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Finding:
    check: str  # one of CHECK_ORDER
    version: int | None  # the event at fault, where one can be named
    event_type: str | None
    deal_no: int | None
    reason: str

    def sort_key(self) -> tuple[bool, bool, int, int]:
        """Events that do not match their own hash, link or commitment come first (lowest position first): such
        an event was altered, and the checks that read its content (deck, replay) fail because of it, at it or
        at earlier events (a forged seed makes every dealt card look wrong). Then the rest by position."""
        order = CHECK_ORDER.index(self.check) if self.check in CHECK_ORDER else len(CHECK_ORDER)
        return (self.check not in (FORMAT, CHAIN), self.version is None, self.version or 0, order)

    def to_json(self) -> dict[str, JSON]:
        return {
            "check": self.check,
            "position": self.version,
            "type": self.event_type,
            "deal_no": self.deal_no,
            "reason": self.reason,
        }

    def render(self) -> str:
        where = "" if self.version is None else f"event {self.version} ({self.event_type}) "
        deal = "" if self.deal_no is None else f"deal {self.deal_no} "
        return f"{where}{deal}{self.check}: {self.reason}"


@dataclass(slots=True)
class DealSummary:
    deal_no: int
    status: str  # "ended" or "running"
    started_position: int
    ended_position: int | None
    checks: dict[str, bool | str] = field(default_factory=dict)  # check -> passed, or "pending"

    def to_json(self) -> dict[str, JSON]:
        return {
            "deal_no": self.deal_no,
            "status": self.status,
            "started_position": self.started_position,
            "ended_position": self.ended_position,
            "checks": dict(self.checks),
        }


@dataclass(slots=True)
class RemoteVerification:
    url: str
    table_id: str
    viewer: str = "unknown"
    events_checked: int = 0
    hash_versions: dict[int, int] = field(default_factory=dict)
    head_position: int = 0
    head_hash: str | None = None
    deals: list[DealSummary] = field(default_factory=list)
    ledger_lines: int = 0
    receipts: list[dict[str, JSON]] | None = None  # the check of each receipt; None: no --receipts
    keys_note: str | None = None  # how the receipts' keys were trusted (pinned, or as served)
    findings: list[Finding] = field(default_factory=list)
    pending: list[str] = field(default_factory=list)
    not_checkable: list[str] = field(default_factory=list)  # checks that could not be made, with the reason
    chain: dict[int, str] = field(default_factory=dict)  # position -> hash, as shown and checked

    @property
    def ok(self) -> bool:
        return not self.findings

    @property
    def ended_deals(self) -> int:
        return sum(1 for d in self.deals if d.status == "ended")

    def first_failure(self) -> Finding | None:
        return min(self.findings, key=Finding.sort_key) if self.findings else None

    def to_json(self) -> dict[str, JSON]:
        first = self.first_failure()
        return {
            "ok": self.ok,
            "url": self.url,
            "table_id": self.table_id,
            "viewer": self.viewer,
            "events_checked": self.events_checked,
            "hash_versions": {str(k): v for k, v in sorted(self.hash_versions.items())},
            "head": {"position": self.head_position, "hash": self.head_hash},
            "deals_checked": self.ended_deals,
            "deals": [d.to_json() for d in self.deals],
            "ledger_lines": self.ledger_lines,
            "receipts": self.receipts,
            "keys": self.keys_note,
            "not_checkable": list(self.not_checkable),
            "first_failure": None if first is None else first.to_json(),
            "failures": [f.to_json() for f in sorted(self.findings, key=Finding.sort_key)],
            "pending": list(self.pending),
        }

    def render(self, more: int = 10) -> str:
        """A few lines for a terminal: the verdict, the first failure, then a few more."""
        running = [d.deal_no for d in self.deals if d.status == "running"]
        versions = ", ".join(f"v{k}: {v}" for k, v in sorted(self.hash_versions.items())) or "none"
        lines = [
            f"table {self.table_id} at {self.url}, as {self.viewer}",
            f"  events checked: {self.events_checked} (hash versions {versions}); head: position "
            f"{self.head_position} hash {self.head_hash or '-'}",
            f"  deals checked: {self.ended_deals} ended (commitment, seed, deck, dealing, replay)"
            + (f"; running: deal {', '.join(map(str, running))} (chain only)" if running else ""),
            f"  ledger lines checked: {self.ledger_lines}"
            + ("" if self.receipts is None else f"; receipts checked: {len(self.receipts)}"),
        ]
        if self.keys_note is not None:
            lines.append(f"  {self.keys_note}")
        lines += [f"  pending: {p}" for p in self.pending]
        lines += [f"  not checkable: {n}" for n in self.not_checkable]
        first = self.first_failure()
        if first is None:
            lines.append("OK: every check holds")
            return "\n".join(lines)
        lines.append(f"FAILED at {first.render()}")
        others = [f for f in sorted(self.findings, key=Finding.sort_key) if f is not first]
        lines += [f"  also: {f.render()}" for f in others[:more]]
        if len(others) > more:
            lines.append(f"  ... and {len(others) - more} more (--json lists them all)")
        return "\n".join(lines)


# Reading the table -----------------------------------------------------------------------


def fetch_events(api: ApiClient, table_id: str, page_size: int = PAGE_SIZE, after: int = 0) -> list[Any]:
    """Every event of the table after position `after` as the API shows it, page by page (`after`, `limit`)."""
    shown: list[Any] = []
    while True:
        path = f"/v1/tables/{_quoted(table_id)}/events"
        page = api.get(path, {"after": after, "limit": page_size})
        events = page.get("events") if isinstance(page, dict) else None
        next_after = page.get("next_after") if isinstance(page, dict) else None
        if not isinstance(events, list) or not _is_int(next_after):
            raise RemoteError(f"GET {path}?after={after}: the answer is not a page of events ({_short(page)})")
        shown += events
        if not events or len(events) < page_size:
            return shown
        if next_after <= after:
            raise RemoteError(f"GET {path}?after={after}: next_after {next_after} does not move past {after}")
        after = next_after


def fetch_ledger(
    api: ApiClient,
    table_id: str,
    newest: int | None,
    page_size: int | None = None,
    wait: float | None = None,
) -> dict[str, Any]:
    """Every ledger line of the table as the API shows it, page by page (`after` = the page's `next_after`,
    `limit`), as {"lines": [...]}. `newest` is the version of the last event read whose transfers make lines: the
    ledger is a projection of the log, a little behind it, so until it shows a line of that event, the pages
    after its last line are read again, for at most `wait` seconds (then the check names what is missing).
    A server without pages (no `next_after`) answers every line at once."""
    path = f"/v1/tables/{_quoted(table_id)}/ledger"
    page_size = page_size or LEDGER_PAGE_SIZE
    lines: list[Any] = []
    after: str | None = None
    deadline = time.monotonic() + (LEDGER_WAIT_SECONDS if wait is None else wait)
    while True:
        query: dict[str, int | str] = {"limit": page_size} if after is None else {"limit": page_size, "after": after}
        page = api.get(path, query)
        shown = page.get("lines") if isinstance(page, dict) else None
        next_after = page.get("next_after") if isinstance(page, dict) else None
        if not isinstance(shown, list) or not (next_after is None or isinstance(next_after, str)):
            raise RemoteError(f"GET {path}: the answer is not a page of ledger lines ({_short(page)})")
        lines += shown
        if next_after is not None:
            if next_after == after or not shown:
                raise RemoteError(f"GET {path}?after={after}: next_after {next_after!r} does not move on")
            after = next_after
            continue
        if newest is None or _reaches(lines, newest) or time.monotonic() >= deadline:
            return {"lines": lines}
        last = lines[-1] if lines else None
        if last is not None and not (
            isinstance(last, dict) and _is_int(last.get("global_position")) and _is_int(last.get("line_no"))
        ):
            return {"lines": lines}  # no cursor to read on from: the check names the line
        time.sleep(0.2)
        after = None if last is None else f"{last['global_position']}:{last['line_no']}"


def _reaches(lines: Sequence[Any], version: int) -> bool:
    """Some line comes from the event at `version` or a later one."""
    return any(isinstance(line, dict) and _is_int(line.get("version")) and line["version"] >= version for line in lines)


def _quoted(text: str) -> str:
    return urllib.parse.quote(text, safe="")


def _is_int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _short(value: Any, limit: int = 120) -> str:
    text = json.dumps(value, ensure_ascii=False, default=repr)
    return text if len(text) <= limit else text[: limit - 3] + "..."


_EVENT_FIELDS: tuple[tuple[str, type], ...] = (
    ("position", int),
    ("type", str),
    ("deal_no", int),
    ("occurred_at", str),
    ("data", dict),
    ("metadata", dict),
    ("schema_version", int),
    ("hash_version", int),
    ("prev_hash", str),
    ("hash", str),
)


_JSON_NAMES = {int: "integer", str: "string", dict: "object"}
# The API withholds hashes (and prev_hashes) of a running deal that holds a version-1 private block: that hash
# covers the block whole, and every later hash chains from it. They come once the deal has ended.
_WITHHOLDABLE = frozenset({"hash", "prev_hash"})


def parse_event(raw: Any, table_id: str) -> RecordedEvent | str:
    """The API's JSON of one event as a RecordedEvent of stream `table_id`, or why it cannot be one."""
    if not isinstance(raw, dict):
        return f"an event is a {type(raw).__name__}, not an object"
    for name, kind in _EVENT_FIELDS:
        value = raw.get(name)
        if value is None and name in _WITHHOLDABLE and name in raw:
            continue  # withheld while a deal holding a version-1 private block runs (checked once it ends)
        if value is None:
            return f"the event has no {name!r} (the hash cannot be recomputed without it)"
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            return f"the event's {name!r} is {_short(value)}, not a JSON {_JSON_NAMES[kind]}"
    text = str(raw["occurred_at"])
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return f"occurred_at {text!r} is not an ISO 8601 time"
    if moment.tzinfo is None:
        return f"occurred_at {text!r} has no time zone"
    if canonical_timestamp(moment) != text:
        # The hash covers the canonical text; a time written otherwise is not what was hashed.
        return f"occurred_at {text!r} is not in the canonical form {canonical_timestamp(moment)!r} the hash covers"
    global_position = raw.get("global_position")
    return RecordedEvent(
        global_position=global_position if _is_int(global_position) else 0,
        stream_id=table_id,
        version=int(raw["position"]),
        type=str(raw["type"]),
        schema_version=int(raw["schema_version"]),
        deal_no=int(raw["deal_no"]),
        data=dict(raw["data"]),
        metadata=dict(raw["metadata"]),
        occurred_at=moment,
        prev_hash=raw["prev_hash"] or "",  # "" where withheld: the walker links it to the withheld hash before
        hash=raw["hash"] or "",
        tx_id=0,
        hash_version=int(raw["hash_version"]),
    )


# Verification --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Deal:
    deal_no: int
    started: int  # index in the events list
    ended: int | None


def verify_remote(
    api: ApiClient,
    table_id: str,
    receipts: Sequence[Receipt] | None = None,
    page_size: int = PAGE_SIZE,
    pinned: Sequence[PinnedKey] | None = None,
) -> RemoteVerification:
    """Verify table `table_id` through the API; raises RemoteError when it cannot be read."""
    report = RemoteVerification(api.base_url, table_id)
    raw_events = fetch_events(api, table_id, page_size)
    reader = _reader(api, table_id)

    events = _parsed(report, raw_events, table_id)
    # A deal that ended while the pages were read was read in part as running, its hands hidden: read it again.
    stale = _hidden_in_ended_deals(events, reader)
    if stale:
        again = {e.version: e for e in _parsed(report, fetch_events(api, table_id, page_size, stale - 1), table_id)}
        events = [again.get(e.version, e) if e.version >= stale else e for e in events]
    if not raw_events:
        report.findings.append(Finding(FORMAT, None, None, None, f"table {table_id} shows no events"))
    report.viewer = reader.label(events)
    types = {e.version: e.type for e in events}
    try:
        expected = expected_ledger_lines(events)
        newest = int(expected[-1]["version"]) if expected else None
    except UnreadableTransfers:
        newest = None  # the ledger check names the event
    ledger = fetch_ledger(api, table_id, newest)  # 403 for a player without a seat: an error
    deals = _deals(events)
    ended = {d.deal_no for d in deals if d.ended is not None}

    hidden_in = _check_chain(report, events, ended, reader.seats(events), types)
    records = _deal_records(api, table_id, deals)
    for deal in deals:
        _check_deal(report, events, deal, records, types, hidden_in.get(deal.deal_no, 0))
    report.ledger_lines = _check_ledger(report, events, ledger, types)
    if receipts is not None:
        check_receipts(report, api, receipts, types, pinned)  # against `report.chain`, the log's version -> hash
    return report


def _parsed(report: RemoteVerification, raw_events: Sequence[Any], table_id: str) -> list[RecordedEvent]:
    """The events shown, parsed; one that is not an event as documented is a format finding."""
    events: list[RecordedEvent] = []
    for index, raw in enumerate(raw_events):
        parsed = parse_event(raw, table_id)
        if isinstance(parsed, str):
            position = raw.get("position") if isinstance(raw, dict) and _is_int(raw.get("position")) else None
            kind = raw.get("type") if isinstance(raw, dict) else None
            report.findings.append(
                Finding(FORMAT, position, str(kind) if kind is not None else None, None, f"{parsed} (item {index})")
            )
            continue
        events.append(parsed)
    return events


@dataclass(frozen=True, slots=True)
class _Reader:
    """Who reads: the auditor, or a player (its id; its seat at the table now, when it has one)."""

    auditor: bool
    player_id: str | None
    seat_now: int | None

    def seats(self, events: Sequence[RecordedEvent]) -> dict[int, int | None]:
        """deal -> the reader's seat in it: the seat it played (deal_started names the players), else its seat
        now (a seated player sees every ended deal), else None."""
        if self.auditor:
            return {e.deal_no: AUDITOR_SEAT for e in events if e.type == DEAL_STARTED}
        played = self.played(events)
        return {e.deal_no: played.get(e.deal_no, self.seat_now) for e in events if e.type == DEAL_STARTED}

    def played(self, events: Sequence[RecordedEvent]) -> dict[int, int]:
        found: dict[int, int] = {}
        for event in events:
            players = event.data.get("players") if event.type == DEAL_STARTED else None
            if isinstance(players, list) and self.player_id in players:
                found.setdefault(event.deal_no, players.index(self.player_id))
        return found

    def label(self, events: Sequence[RecordedEvent]) -> str:
        if self.auditor:
            return "the auditor"
        played = self.played(events)
        if not played:
            return f"seat {self.seat_now}" if self.seat_now is not None else "a player without a seat (public view)"
        by_seat: dict[int, list[int]] = {}
        for deal_no, seat in sorted(played.items()):
            by_seat.setdefault(seat, []).append(deal_no)
        parts = []
        for seat, deals in by_seat.items():
            named = f"deal {deals[0]}" if len(deals) == 1 else f"deals {_ranges(deals)}"
            parts.append(f"seat {seat} of {named}")
        return ", ".join(parts)


def _ranges(numbers: Sequence[int]) -> str:
    """1, 2, 3, 5 -> "1-3, 5"."""
    runs: list[list[int]] = []
    for number in numbers:
        if runs and number == runs[-1][-1] + 1:
            runs[-1].append(number)
        else:
            runs.append([number])
    return ", ".join(str(run[0]) if len(run) == 1 else f"{run[0]}-{run[-1]}" for run in runs)


def _reader(api: ApiClient, table_id: str) -> _Reader:
    """Who the token names (GET /v1/players/me) and its seat now (GET /view; 403 without one)."""
    me = api.get("/v1/players/me", allow=(403, 404))
    view = api.get(f"/v1/tables/{_quoted(table_id)}/view", allow=(403,))
    seat = view.get("seat") if isinstance(view, dict) and _is_int(view.get("seat")) else None
    if isinstance(me, dict):
        player = me.get("id") if isinstance(me.get("id"), str) else None
        return _Reader(me.get("role") == "auditor", player, seat)
    return _Reader(seat is None, None, seat)  # a server without /players/me: as before, a seat or the auditor


def _hidden_in_ended_deals(events: Sequence[RecordedEvent], reader: _Reader) -> int | None:
    """The first position of an ended deal's event whose private block is not shown although the reader may see
    it (read while the deal still ran), or None."""
    ended = {e.deal_no for e in events if e.type == DEAL_ENDED}
    seats = reader.seats(events)
    for event in events:
        if event.deal_no not in ended or PRIVATE in event.data or "private_commitment" not in event.data:
            continue
        if reader.auditor or seats.get(event.deal_no) is not None:
            return event.version
    return None


def _deals(events: Sequence[RecordedEvent]) -> list[_Deal]:
    """Where each deal starts and ends, by the deal numbers the events carry (the first of each)."""
    starts: dict[int, int] = {}
    ends: dict[int, int] = {}
    for index, event in enumerate(events):
        if event.type == DEAL_STARTED:
            starts.setdefault(event.deal_no, index)
        elif event.type == DEAL_ENDED:
            ends.setdefault(event.deal_no, index)
    return [_Deal(n, starts[n], ends.get(n) if ends.get(n, -1) > starts[n] else None) for n in sorted(starts)]


def _check_chain(
    report: RemoteVerification,
    events: Sequence[RecordedEvent],
    ended: set[int],
    seats: Mapping[int, int | None],
    types: Mapping[int, str],
) -> dict[int, int]:
    """Positions, links and hashes (`ChainWalker`), and the private blocks shown against their commitments.
    `seats`: the viewer's seat in each deal (None: it does not hold one). A private block not shown cannot be
    checked: that is said ("pending" while its deal runs, "not checkable" after), never taken for tampering.
    Returns, by deal, the private blocks not shown."""
    walker = ChainWalker(report.table_id)
    hidden: dict[int, int] = {}  # deal -> private blocks not shown to the viewer
    withheld = [event for event in events if not event.hash or not event.prev_hash]
    if withheld:
        first = withheld[0]
        # Only a running deal's hashes may be withheld, from its first event on: the walk stops there.
        if first.deal_no in ended or any(e.deal_no != first.deal_no for e in events if e.version >= first.version):
            report.findings.append(
                _finding(CHAIN, first.version, "a hash is withheld outside a running deal", types, events)
            )
        report.pending.append(
            f"deal {first.deal_no} is running and holds version-1 private blocks: the hashes of its "
            f"{sum(1 for e in events if e.version >= first.version)} event(s) from position {first.version} on are "
            "withheld until it ends"
        )
        events = [event for event in events if event.version < first.version]
    for event in events:
        over = event.deal_no in ended or event.deal_no == 0
        seat = seats.get(event.deal_no)
        # After its deal, every private block is shown to its players, the seated and the auditor (seat -1 here),
        # and must be there; to anyone else it is not shown, and cannot be checked.
        walker.private_shown = over and seat is not None
        already = len(walker.problems)
        walker.feed(event)
        if PRIVATE not in event.data and not walker.private_shown and (over or _may_hide_private(event, seat)):
            if event.hash_version == HASH_V1:
                # A version-1 hash covers the private block, which this viewer may not see until the deal ends.
                fresh = walker.problems[already:]
                kept = [p for p in fresh if "differs from recomputed" not in p.reason]
                if len(kept) != len(fresh):
                    del walker.problems[already:]
                    walker.problems.extend(kept)
                    hidden[event.deal_no] = hidden.get(event.deal_no, 0) + 1
            elif "private_commitment" in event.data:
                hidden[event.deal_no] = hidden.get(event.deal_no, 0) + 1
        report.hash_versions[event.hash_version] = report.hash_versions.get(event.hash_version, 0) + 1
        report.chain[event.version] = event.hash
    for problem in walker.problems:
        report.findings.append(_finding(CHAIN, problem.version, problem.reason, types, events))
    for deal_no, count in sorted(hidden.items()):
        if deal_no in ended:
            report.not_checkable.append(
                f"deal {deal_no}: {count} private block(s) are not shown to this viewer, so their commitments, the "
                "deal's deck and its replay cannot be checked (a player of the deal or the auditor can)"
            )
        else:
            report.pending.append(
                f"deal {deal_no} is running: {count} private block(s) hidden from this viewer are checked once it ends"
            )
    report.events_checked = len(events)
    if events:
        report.head_position, report.head_hash = events[-1].version, events[-1].hash
    return hidden


def _may_hide_private(event: RecordedEvent, seat: int | None) -> bool:
    """Whether the API may rightly leave this running deal's event's private block out for the viewer: it
    shows a block to the seat that holds it (`data.seat`) while the deal runs, to nobody else."""
    return seat is None or event.data.get("seat") != seat


def _finding(
    check: str, version: int | None, reason: str, types: Mapping[int, str], events: Sequence[RecordedEvent]
) -> Finding:
    deal_no = next((e.deal_no for e in events if e.version == version), None) if version is not None else None
    return Finding(check, version, types.get(version) if version is not None else None, deal_no, reason)


def _deal_records(api: ApiClient, table_id: str, deals: Sequence[_Deal]) -> dict[int, Any]:
    """The deal record of each deal the events start; None for one the API does not know (404: a finding)."""
    records: dict[int, Any] = {}
    for deal in deals:
        try:
            record = api.get(f"/v1/tables/{_quoted(table_id)}/deals/{deal.deal_no}", allow=(404,))
        except RemoteError as error:
            if error.status != 403:
                raise
            records[deal.deal_no] = NOT_YOURS  # a deal the reader did not play, at a table it has left
            continue
        if record is not None and not isinstance(record, dict):
            raise RemoteError(f"GET /v1/tables/{table_id}/deals/{deal.deal_no}: not a deal record ({_short(record)})")
        records[deal.deal_no] = record
    return records


def _record_seed(record: Mapping[str, Any]) -> bytes | None:
    raw = record.get("server_seed")
    if not isinstance(raw, str):
        return None
    try:
        return bytes.fromhex(raw)
    except ValueError:
        return None


def _check_deal(
    report: RemoteVerification,
    events: Sequence[RecordedEvent],
    deal: _Deal,
    records: Mapping[int, Any],
    types: Mapping[int, str],
    hidden_blocks: int = 0,
) -> None:
    started = events[deal.started]
    record = records.get(deal.deal_no)
    summary = DealSummary(
        deal.deal_no,
        "running" if deal.ended is None else "ended",
        started.version,
        None if deal.ended is None else events[deal.ended].version,
    )
    report.deals.append(summary)

    def add(check: str, version: int | None, reason: str) -> None:
        report.findings.append(Finding(check, version, types.get(version or 0), deal.deal_no, reason))

    if record is NOT_YOURS:
        for check in (RECORD, COMMITMENT, DECK, REPLAY):
            summary.checks[check] = "not checkable"
        report.not_checkable.append(
            f"deal {deal.deal_no}: its record is not shown to this viewer (it did not play the deal and has no seat "
            "at the table now), so its commitment, deck and replay cannot be checked"
        )
        return

    # The deal record must name what deal_started announced: the deck is recomputed from the record's inputs.
    record_ok = record is not None
    if record is None:
        add(RECORD, started.version, f"GET /deals/{deal.deal_no} answers 404, but deal_started announces the deal")
        record = {}
    for key in ("commitment", "client_seeds"):
        if record and canonical_json(record.get(key)) != canonical_json(started.data.get(key)):
            record_ok = False
            add(
                RECORD,
                started.version,
                f"GET /deals/{deal.deal_no} names {key} {_short(record.get(key))}, but deal_started (position "
                f"{started.version}) announced {_short(started.data.get(key))}",
            )
    summary.checks[RECORD] = record_ok
    if deal.ended is None:
        for check in (COMMITMENT, DECK, REPLAY):
            summary.checks[check] = "pending"
        report.pending.append(
            f"deal {deal.deal_no} is running (from position {started.version}): its seed is secret, so commitment, "
            "deck and replay are checked once it ends"
        )
        return
    if hidden_blocks:
        for check in (COMMITMENT, DECK, REPLAY):
            summary.checks[check] = "not checkable"
        return  # said by the chain check (report.not_checkable)
    deal_events = list(events[deal.started : deal.ended + 1])
    seeds: dict[int, bytes] = {}
    for number in (deal.deal_no, deal.deal_no + 1):
        following = records.get(number)
        seed = _record_seed(following) if isinstance(following, Mapping) else None
        if seed is not None:
            seeds[number] = seed
    if deal.deal_no not in seeds:  # check_ended_deal names it as a commitment failure
        summary.checks[RECORD] = False
    before, why = _state_before(events, deal)
    verdict = DealVerification(report.table_id, deal.deal_no, ended=True)
    try:
        check_ended_deal(verdict, before, deal_events, seeds, why)
    except Exception as error:  # data shaped against the rules can break a check anywhere
        verdict.problems.clear()
        add(REPLAY, started.version, f"the checks of deal {deal.deal_no} stopped on the data shown: {error!r}")
        summary.checks.update({COMMITMENT: False, DECK: False, REPLAY: False})
        return
    for problem in verdict.problems:
        reason = problem.reason.replace("stored in deal_seeds", "in the deal record (GET /deals)")
        add(problem.check, problem.version, reason)
    summary.checks.update(
        {
            COMMITMENT: verdict.commitment_matches_seed is not False,
            DECK: verdict.deck_matches_seed is not False,
            REPLAY: verdict.replay_matches is not False,
        }
    )


def _state_before(events: Sequence[RecordedEvent], deal: _Deal) -> tuple[TableState | None, str | None]:
    """The table's state before `deal_started`, folded as `infra.table_loader.load_table` folds it: the opening
    and seatings, then from the `deal_ended` before the previous deal on (so an earlier bad deal does not stop
    a later one's check)."""
    earlier = events[: deal.started]
    head = [e for e in earlier if e.deal_no == 0]
    recent = [e for e in earlier if e.deal_no != 0]
    try:
        return fold_recorded(head + from_last_finished_deal(recent)), None
    except Exception as error:  # an earlier bad event can make the state unbuildable
        return None, repr(error)


def _check_ledger(
    report: RemoteVerification, events: Sequence[RecordedEvent], ledger: Any, types: Mapping[int, str]
) -> int:
    """The ledger's lines against the transfers the events carry; they must also sum to zero. Returns the number
    of lines checked (lines newer than the last event read are left for the next run)."""
    lines = ledger.get("lines") if isinstance(ledger, dict) else None
    if not isinstance(lines, list):
        raise RemoteError(
            f"GET /v1/tables/{report.table_id}/ledger: the answer has no list of lines ({_short(ledger)})"
        )
    last = events[-1].version if events else 0
    shown = [
        line
        for line in lines
        if not (isinstance(line, dict) and _is_int(line.get("version")) and line["version"] > last)
    ]
    try:
        expected = expected_ledger_lines(events)
    except UnreadableTransfers as error:
        report.findings.append(_finding(LEDGER, error.version, error.reason, types, events))
        return 0

    def add(version: int | None, reason: str) -> None:
        report.findings.append(_finding(LEDGER, version, reason, types, events))

    for index, (want, got) in enumerate(zip(expected, shown, strict=False)):
        if not isinstance(got, dict):
            add(want["version"], f"ledger line {index + 1} is {_short(got)}, not an object")
            return len(shown)
        wrong = [key for key, value in want.items() if canonical_json(got.get(key)) != canonical_json(value)]
        if wrong:
            differences = "; ".join(
                f"{key}: ledger {_short(got.get(key))}, events {_short(want[key])}" for key in wrong
            )
            add(want["version"], f"ledger line {index + 1} differs from the transfer the event carries: {differences}")
            return len(shown)
    if len(shown) != len(expected):
        if len(shown) > len(expected):
            extra = shown[len(expected)]
            version = extra.get("version") if isinstance(extra, dict) and _is_int(extra.get("version")) else None
            add(
                version,
                f"the ledger has {len(shown)} lines, the events' transfers make {len(expected)}; "
                f"line {len(expected) + 1} is {_short(extra)}",
            )
        else:
            missing = expected[len(shown)]
            add(
                missing["version"],
                f"the ledger has {len(shown)} lines, the events' transfers make {len(expected)}; "
                f"missing from line {len(shown) + 1}: {_short(missing)}",
            )
        return len(shown)
    totals: dict[str, int] = {}
    cents = 0
    for line in shown:
        unit = str(line.get("unit"))
        totals[unit] = totals.get(unit, 0) + int(line.get("amount") or 0)
        cents += int(line.get("amount_cents") or 0)
    unbalanced = {unit: total for unit, total in totals.items() if total != 0}
    if unbalanced or cents != 0:
        add(None, f"the ledger does not sum to zero: amount by unit {unbalanced or totals}, amount_cents {cents}")
    return len(shown)


class UnreadableTransfers(ValueError):
    def __init__(self, version: int, reason: str) -> None:
        super().__init__(reason)
        self.version = version
        self.reason = reason


def expected_ledger_lines(events: Iterable[RecordedEvent]) -> list[dict[str, JSON]]:
    """The ledger lines the events' transfers make, as `infra.projections.ledger.ledger_lines` derives them:
    per transfer the payer debited, then the payee credited; account "seat:N" is the player seated there (the
    players of the deal: seats change hands only between deals), "player:ID" is player ID; the unit is the
    event's `unit` ("cents" when absent), converted at the table's `chip_value_cents`."""
    seated: dict[int, str] = {}
    options: Mapping[str, JSON] = {}
    lines: list[dict[str, JSON]] = []
    for event in events:
        if event.type == TABLE_OPENED and isinstance(event.data.get("options"), dict):
            options = event.data["options"]
        elif event.type == PLAYER_SEATED and _is_int(event.data.get("seat")):
            seated[int(event.data["seat"])] = str(event.data.get("player_id"))
        elif event.type == PLAYER_LEFT and _is_int(event.data.get("seat")):
            seated.pop(int(event.data["seat"]), None)
        if "transfers" not in event.data:
            continue
        try:
            transfers = deal_transfers(Event(event.type, event.data))
            unit = str(event.data.get("unit") or CENTS)
            factor = 1 if unit == CENTS else int(options.get("chip_value_cents", 0) or 0)
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise UnreadableTransfers(event.version, f"its transfers are not transfers: {error!r}") from None
        for transfer in transfers:
            for account, amount in transfer.entries():
                seat = int(account.removeprefix("seat:")) if account.startswith("seat:") else None
                named = account.removeprefix(PLAYER_PREFIX) if account.startswith(PLAYER_PREFIX) else None
                lines.append(
                    {
                        "version": event.version,
                        "event_type": event.type,
                        "deal_no": event.deal_no,
                        "account": account,
                        "player_id": named if seat is None else seated.get(seat),
                        "amount": amount,
                        "unit": unit,
                        "amount_cents": amount * factor,
                        "reason": transfer.reason,
                    }
                )
    return lines


# Receipts ---------------------------------------------------------------------------------------


def check_receipts(
    report: RemoteVerification,
    api: ApiClient,
    receipts: Sequence[Receipt],
    types: Mapping[int, str],
    pinned: Sequence[PinnedKey] | None = None,
) -> None:
    """`--receipts FILE`: each signed receipt ("cardledger-receipt-v1", Ed25519) under a trusted key (`pinned`
    and the keys the chain of `GET /v1/keys` endorses from them; every served key when nothing is pinned)
    against the version -> hash map of the log as read and checked here (`infra.receipts.check_receipts`).
    Only a valid signature over a hash the log no longer holds at that position (or a position the log lacks)
    is a failure: it proves the log was rewritten. A receipt under a key not trusted, or whose signature is not
    valid, proves nothing: it is reported as not checkable."""
    answer = api.get("/v1/keys")
    keys = answer.get("keys") if isinstance(answer, dict) else None
    if not isinstance(keys, list) or not all(isinstance(key, dict) for key in keys):
        raise RemoteError(f"GET /v1/keys: the answer has no list of keys ({_short(answer)})")
    trusted = trusted_keys(keys, pinned)
    report.keys_note = trusted.note
    checks = check_signed(receipts, trusted.keys, report.chain, table_id=report.table_id, pinned=trusted.pinned)
    report.receipts = [check.to_json() for check in checks]
    for check in checks:
        if check.verdict in PROVES_NOTHING:
            report.not_checkable.append(f"receipt {check.index}: {check.verdict}: {check.explanation}")
        elif not check.ok:
            version = check.receipt.version
            report.findings.append(
                Finding(
                    RECEIPTS,
                    version,
                    types.get(version),
                    _deal_of(report, version),
                    f"receipt {check.index}: {check.verdict}: {check.explanation}",
                )
            )


def _deal_of(report: RemoteVerification, version: int) -> int | None:
    started = [d.deal_no for d in report.deals if d.started_position <= version]
    return started[-1] if started else None


def read_receipts(path: Path) -> list[Receipt]:
    """The receipts of a JSON file; RemoteError (exit 2) naming the file, entry and field when it is not one."""
    try:
        return read_receipts_file(path)
    except ReceiptFormatError as error:
        raise RemoteError(f"--receipts {error}") from None


# The command ---------------------------------------------------------------------------------------


def run(
    url: str,
    token: str,
    table_id: str,
    as_json: bool,
    receipts: Path | None,
    out: IO[str],
    err: IO[str],
    pinned: Sequence[PinnedKey] | None = None,
) -> int:
    """`cardledger verify --url`: print the verdict; 0 verified, 1 a check failed, 2 could not verify."""
    try:
        signed = None if receipts is None else read_receipts(receipts)
        api = ApiClient(url, token)
        report = verify_remote(api, table_id, signed, pinned=pinned)
    except RemoteError as error:
        return _cannot_verify(error, url, table_id, as_json, out, err)
    except Exception as error:  # answers shaped against the documented API must not end in a traceback
        why = RemoteError(f"the verification stopped on an answer it cannot read: {error!r}")
        return _cannot_verify(why, url, table_id, as_json, out, err)
    if as_json:
        print(json.dumps(report.to_json(), indent=2, ensure_ascii=False), file=out)
    else:
        print(report.render(), file=out)
    return 0 if report.ok else 1


def _cannot_verify(error: RemoteError, url: str, table_id: str, as_json: bool, out: IO[str], err: IO[str]) -> int:
    if as_json:
        print(json.dumps({"ok": False, "table_id": table_id, "url": url, "error": error.to_json()}), file=out)
    print(f"cardledger: error: verify: {' '.join(error.message.split())}", file=err)
    return 2
