"""Re-checking the record of deals: hash chain, commitment and seed, deck, replay.

The checks, each a list of `Problem`s (an event version where one can be named,
the check it belongs to, and a reason naming the values that disagree):

- hash chain: every event of the table, in version order, has version
  `previous + 1`, `prev_hash` equal to the previous event's `hash` (the genesis
  hash for version 1) and a `hash` equal to the one recomputed from its fields;
  when the walk reaches the end of the stream, the stream's head row
  (`streams.version`, `streams.last_hash`) names the last event.
- commitment: SHA-256 of the server seed revealed in `deal_ended` equals the
  commitment `deal_started` announced, which equals the one published before
  (in `table_opened` for deal 1, else in the previous `deal_ended`); the seed
  kept in `deal_seeds` is the revealed one; `next_commitment` is the SHA-256 of
  the stored seed of the next deal.
- deck: the client seeds of `deal_started` are those the players submitted,
  and every card an event took from the deck (`domain.table.revealed_cards`)
  is the card at that index of the deck recomputed from the seed (the revealed
  one and, if it differs, the stored one), the table id, the deal number and
  the client seeds; no deck index is used twice.
  The dealing events must also equal those the rules produce from that deck.
- replay: from the table's state before the deal (`infra.table_loader.load_table_before_deal`: the opening,
  the previous deal's start and end and what follows that end, not the previous deal's game events, which
  its own record replays), every event of the deal folds, the deal is over at `deal_ended`, and
  `game.outcome` gives the stored result, transfers, unit and carry.

A deal still running is checked for its chain only: its seed is secret.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from domain import table as tables
from domain.events import JSON, PRIVATE, Event
from domain.games import game_named
from domain.hashchain import GENESIS_HASH, HASH_V2, HASH_VERSIONS, canonical_json, commitment_problem, unsealed
from domain.shuffle import commitment, deal_deck
from domain.table import DEAL_STARTED, TableState
from infra.db import Conn
from infra.event_store import RecordedEvent, read_stream_in
from infra.sql.deal_events import deal_start_and_end_rows, one_deal_start_and_end_rows, stream_head
from infra.sql.deal_seeds import stored_seeds
from infra.table_loader import load_table_before_deal

CHAIN, COMMITMENT, DECK, REPLAY = "hash_chain", "commitment", "deck", "replay"
MAX_PROBLEMS_PER_CHECK = 20
READ_BATCH = 2000


@dataclass(frozen=True, slots=True)
class Problem:
    version: int | None  # the event at fault, where one can be named
    check: str  # CHAIN, COMMITMENT, DECK or REPLAY
    reason: str

    def to_json(self) -> dict[str, JSON]:
        return {"version": self.version, "check": self.check, "reason": self.reason}


@dataclass(slots=True)
class DealVerification:
    """The verdict on one deal. A check that was not run (deal still running) is None."""

    table_id: str
    deal_no: int
    ended: bool
    commitment_matches_seed: bool | None = None
    deck_matches_seed: bool | None = None
    hash_chain_intact: bool = True
    replay_matches: bool | None = None
    problems: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        checks = (self.commitment_matches_seed, self.deck_matches_seed, self.hash_chain_intact, self.replay_matches)
        return all(check is not False for check in checks) and not self.problems

    @property
    def first_bad_event(self) -> Problem | None:
        """The problem at the lowest event version (problems naming no version come last)."""
        if not self.problems:
            return None
        return min(self.problems, key=lambda p: (p.version is None, p.version or 0))

    def to_json(self) -> dict[str, JSON]:
        first = self.first_bad_event
        return {
            "checked": "chain only: the deal is still running, its seed is secret" if not self.ended else "all",
            "commitment_matches_seed": self.commitment_matches_seed,
            "deck_matches_seed": self.deck_matches_seed,
            "hash_chain_intact": self.hash_chain_intact,
            "replay_matches": self.replay_matches,
            "first_bad_event": None if first is None else {"version": first.version, "reason": first.reason},
            "problems": [p.to_json() for p in self.problems],
            "ok": self.ok,
        }


# Hash chain -------------------------------------------------------------------


class ChainWalker:
    """Feed a stream's events in version order; collects every broken link or hash."""

    def __init__(self, stream_id: str, private_shown: bool = True) -> None:
        """`private_shown`: every private block is there to check against its commitment (the auditor's
        read of the database); otherwise only the blocks shown are checked (a seat's read of a running deal)."""
        self.stream_id = stream_id
        self.private_shown = private_shown
        self.last_version = 0
        self.last_hash = GENESIS_HASH
        self.problems: list[Problem] = []

    def feed(self, event: RecordedEvent) -> None:
        v = event.version
        if event.stream_id != self.stream_id:
            self._add(v, f"event {v} belongs to stream {event.stream_id!r}, not {self.stream_id!r}")
        if v != self.last_version + 1:
            self._add(v, f"version {v} follows version {self.last_version}: versions {self.last_version + 1}.. missing")
        if event.prev_hash != self.last_hash:
            self._add(
                v,
                f"prev_hash {event.prev_hash} of version {v} is not the hash {self.last_hash} of version "
                f"{self.last_version}",
            )
        if event.hash_version not in HASH_VERSIONS:
            self._add(v, f"version {v} has hash version {event.hash_version}; known: {list(HASH_VERSIONS)}")
        else:
            recomputed = event.recomputed_hash()
            if recomputed != event.hash:
                self._add(
                    v, f"stored hash {event.hash} of version {v} ({event.type}) differs from recomputed {recomputed}"
                )
        if event.hash_version >= HASH_V2 and (self.private_shown or PRIVATE in event.data):
            problem = commitment_problem(event.data)
            if problem is not None:
                self._add(v, f"version {v} ({event.type}): {problem}")
        self.last_version = v
        self.last_hash = event.hash

    def check_head(self, conn: Conn) -> None:
        """At the end of the stream: the head row must name the last event walked."""
        head = stream_head(conn, self.stream_id)
        if head is None:
            self._add(None, f"stream {self.stream_id} has events but no head row in streams")
            return
        version, last_hash = head
        if version != self.last_version or last_hash != self.last_hash:
            self._add(
                self.last_version or None,
                f"stream head says version {version} hash {last_hash}, but the last event is "
                f"version {self.last_version} hash {self.last_hash} (events missing or rewritten)",
            )

    def _add(self, version: int | None, reason: str) -> None:
        if len(self.problems) < MAX_PROBLEMS_PER_CHECK:
            self.problems.append(Problem(version, CHAIN, reason))


def iter_stream(
    conn: Conn, stream_id: str, to_version: int | None = None, from_version: int = 1
) -> Iterator[RecordedEvent]:
    """A stream's events in version order, read in batches (memory bounded by one batch)."""
    start = from_version
    while True:
        batch = read_stream_in(conn, stream_id, start, to_version, READ_BATCH)
        yield from batch
        if len(batch) < READ_BATCH:
            return
        start = batch[-1].version + 1


# One deal -----------------------------------------------------------------------


def check_ended_deal(
    verdict: DealVerification,
    before: TableState | None,
    deal_events: Sequence[RecordedEvent],
    seeds: Mapping[int, bytes],
    why: str | None = None,
) -> None:
    """Run the commitment, deck and replay checks of a finished deal; fills `verdict`.

    `before` is the table's state before `deal_started` (None when it cannot be built, `why` says why);
    `deal_events` run from `deal_started` to `deal_ended`; `seeds` are the stored seeds by deal number.
    """
    problems: dict[str, list[Problem]] = {COMMITMENT: [], DECK: [], REPLAY: []}

    def add(check: str, version: int | None, reason: str) -> None:
        if len(problems[check]) < MAX_PROBLEMS_PER_CHECK:
            problems[check].append(Problem(version, check, reason))

    started, ended = deal_events[0], deal_events[-1]
    deal_no = verdict.deal_no
    if before is None:
        add(
            REPLAY,
            started.version,
            f"the table's state before version {started.version} cannot be built: {why or 'no table_opened'}",
        )
    revealed = _revealed_seed(ended, lambda reason: add(COMMITMENT, ended.version, reason))
    _check_commitment(deal_no, before, started, ended, revealed, seeds, add)
    decks = _check_deck(verdict.table_id, deal_no, before, deal_events, revealed, seeds.get(deal_no), add)
    if before is not None:
        _check_replay(before, deal_events, decks[0] if decks else None, add)
    verdict.commitment_matches_seed = not problems[COMMITMENT]
    verdict.deck_matches_seed = not problems[DECK]
    verdict.replay_matches = not problems[REPLAY]
    for found in problems.values():
        verdict.problems.extend(found)


Adder = Callable[[str, int | None, str], None]


def _revealed_seed(ended: RecordedEvent, fail: Callable[[str], None]) -> bytes | None:
    raw = ended.data.get("server_seed")
    try:
        seed = bytes.fromhex(str(raw))
    except ValueError:
        fail(f"deal_ended (version {ended.version}) reveals server_seed {raw!r}, which is not hex")
        return None
    if len(seed) != 32:
        fail(f"deal_ended (version {ended.version}) reveals a server seed of {len(seed)} bytes, not 32")
    return seed


def _check_commitment(
    deal_no: int,
    before: TableState | None,
    started: RecordedEvent,
    ended: RecordedEvent,
    revealed: bytes | None,
    seeds: Mapping[int, bytes],
    add: Adder,
) -> None:
    announced = started.data.get("commitment")
    if before is not None and announced != before.next_commitment:
        add(
            COMMITMENT,
            started.version,
            f"deal_started (version {started.version}) announces commitment {announced}, but {before.next_commitment} "
            f"was published for deal {deal_no}",
        )
    if ended.data.get("commitment") != announced:
        add(
            COMMITMENT,
            ended.version,
            f"deal_ended (version {ended.version}) names commitment {ended.data.get('commitment')}, deal_started "
            f"announced {announced}",
        )
    if revealed is not None and commitment(revealed) != announced:
        add(
            COMMITMENT,
            ended.version,
            f"SHA-256 of the server seed revealed at version {ended.version} is {commitment(revealed)}, "
            f"not the commitment {announced}",
        )
    stored = seeds.get(deal_no)
    if stored is None:
        add(COMMITMENT, ended.version, f"no server seed is stored in deal_seeds for deal {deal_no}")
    elif revealed is not None and stored != revealed:
        add(
            COMMITMENT,
            ended.version,
            f"the seed stored in deal_seeds for deal {deal_no} (SHA-256 {commitment(stored)}) is not the seed "
            f"revealed at version {ended.version} (SHA-256 {commitment(revealed)})",
        )
    following, published = seeds.get(deal_no + 1), ended.data.get("next_commitment")
    if following is not None and commitment(following) != published:
        add(
            COMMITMENT,
            ended.version,
            f"next_commitment {published} at version {ended.version} is not the SHA-256 {commitment(following)} "
            f"of the seed stored for deal {deal_no + 1}",
        )


def _check_deck(
    table_id: str,
    deal_no: int,
    before: TableState | None,
    deal_events: Sequence[RecordedEvent],
    revealed: bytes | None,
    stored: bytes | None,
    add: Adder,
) -> list[tuple[str, ...]]:
    """Check every card taken from the deck; returns the decks checked (revealed seed's first)."""
    started = deal_events[0]
    client_seeds = [str(s) for s in started.data.get("client_seeds", [])]
    if before is not None:
        submitted = list(before.next_client_seeds)
        if client_seeds != submitted:
            add(
                DECK,
                started.version,
                f"deal_started (version {started.version}) shuffles with client seeds {client_seeds}, but the "
                f"players submitted {submitted}",
            )
        game_name = before.game
    else:
        return []
    game = game_named(game_name)
    labelled = [("revealed", revealed)] + ([("stored", stored)] if stored is not None and stored != revealed else [])
    decks: list[tuple[str, ...]] = []
    for label, seed in labelled:
        if seed is None:
            continue
        deck = deal_deck(game.canonical_deck, seed, table_id, deal_no, client_seeds)
        decks.append(deck)
        used: dict[int, int] = {}
        for recorded in deal_events:
            for reason in _card_mismatches(recorded, deck, used, label):
                add(DECK, recorded.version, reason)
                break
    return decks


def _card_mismatches(recorded: RecordedEvent, deck: Sequence[str], used: dict[int, int], label: str) -> Iterator[str]:
    v = recorded.version
    try:
        taken = list(tables.revealed_cards(Event(recorded.type, recorded.data)))
    except (TypeError, ValueError) as error:
        yield f"{recorded.type} (version {v}): deck_indexes and cards do not pair up ({error})"
        return
    single = recorded.data.get("card")
    if single is not None and len(taken) == 1 and single != taken[0][1]:
        yield f"{recorded.type} (version {v}) names card {single!r} but cards {[taken[0][1]]!r}"
    for index, card in taken:
        if not isinstance(index, int) or not 0 <= index < len(deck):
            yield f"{recorded.type} (version {v}) names deck index {index!r}; the deck has indexes 0..{len(deck) - 1}"
        elif index in used:
            yield f"{recorded.type} (version {v}) takes deck index {index} again (taken at version {used[index]})"
        elif deck[index] != card:
            yield (
                f"{recorded.type} (version {v}) says deck index {index} is {card!r}; the deck recomputed from the "
                f"{label} seed has {deck[index]!r} there"
            )
        else:
            used[index] = v


def _same(a: JSON, b: JSON) -> bool:
    return canonical_json(a) == canonical_json(b)


def _in_deck_order(data: Mapping[str, JSON]) -> dict[str, JSON]:
    """A dealing event's data with its (deck index, card) pairs in deck order: Cha Kau Tsz deals written before
    hash version 2 list them in the order of the sorted hand, and stay valid records."""
    plain = dict(data)
    indexes, private = plain.get("deck_indexes"), plain.get(PRIVATE)
    if not isinstance(indexes, list) or not isinstance(private, Mapping) or not isinstance(private.get("cards"), list):
        return plain
    if len(indexes) != len(private["cards"]):
        return plain
    try:
        pairs = sorted(zip(indexes, private["cards"], strict=True))
    except TypeError:  # a tampered index that does not compare: the comparison reports it as written
        return plain
    plain["deck_indexes"] = [index for index, _ in pairs]
    plain[PRIVATE] = {**private, "cards": [card for _, card in pairs]}
    return plain


def _check_replay(
    before: TableState, deal_events: Sequence[RecordedEvent], deck: tuple[str, ...] | None, add: Adder
) -> None:
    started, ended = deal_events[0], deal_events[-1]
    game = game_named(before.game)
    try:
        state = tables.evolve(before, Event(started.type, started.data))
    except Exception as error:  # a tampered event may break the fold in any way
        add(REPLAY, started.version, f"deal_started (version {started.version}) does not fold: {error!r}")
        return
    if deck is not None:
        try:
            expected = game.start_deal(state, deck)
        except Exception as error:
            add(DECK, started.version, f"the rules cannot deal deal {state.deal_no} from the deck: {error!r}")
            expected = []
        stored = deal_events[1 : 1 + len(expected)]
        for want, got in zip(expected, stored, strict=False):
            if want.type != got.type or not _same(_in_deck_order(want.data), _in_deck_order(unsealed(got.data))):
                add(
                    DECK,
                    got.version,
                    f"dealing event at version {got.version} is {got.type} {dict(got.data)}; the rules deal "
                    f"{want.type} {dict(want.data)} from the deck",
                )
                break
    for recorded in deal_events[1:-1]:
        try:
            state = tables.evolve(state, Event(recorded.type, recorded.data))
        except Exception as error:
            add(REPLAY, recorded.version, f"{recorded.type} (version {recorded.version}) does not fold: {error!r}")
            return
    if state.deal is None or not game.is_over(state.deal):
        add(REPLAY, ended.version, f"deal_ended at version {ended.version}, but the replayed deal is not over")
        return
    try:
        outcome = game.outcome(state)
    except Exception as error:
        add(REPLAY, ended.version, f"the outcome of the replayed deal cannot be computed: {error!r}")
        return
    replayed: dict[str, JSON] = {
        "result": outcome.result,
        "transfers": [t.to_json() for t in outcome.transfers],
        "unit": game.money_unit,
        "carry": outcome.carry,
    }
    for key, value in replayed.items():
        stored_value = ended.data.get(key)
        if not _same(stored_value, value):
            add(
                REPLAY,
                ended.version,
                f"deal_ended (version {ended.version}) stores {key} {_diff(stored_value, value)}",
            )


def _diff(stored: JSON, replayed: JSON) -> str:
    if isinstance(stored, dict) and isinstance(replayed, dict):
        keys = sorted(k for k in stored.keys() | replayed.keys() if not _same(stored.get(k), replayed.get(k)))
        return "; ".join(f"{k}: stored {stored.get(k)!r}, replayed {replayed.get(k)!r}" for k in keys)
    return f"{stored!r}, the replay gives {replayed!r}"


# Deals of a table ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DealBounds:
    deal_no: int
    started_version: int
    ended_version: int | None  # None while running


def deal_bounds(conn: Conn, table_id: str, deal_no: int | None = None) -> list[DealBounds]:
    """Where each deal of the table (or the one asked for) starts and ends, by the stored deal numbers."""
    rows = (
        deal_start_and_end_rows(conn, table_id)
        if deal_no is None
        else one_deal_start_and_end_rows(conn, table_id, deal_no)
    )
    starts: dict[int, int] = {}
    ends: dict[int, int] = {}
    for row in rows:
        target = starts if row["type"] == DEAL_STARTED else ends
        target.setdefault(int(row["deal_no"]), int(row["version"]))
    return [DealBounds(n, starts[n], ends.get(n)) for n in sorted(starts)]


def verify_deal(conn: Conn, table_id: str, bounds: DealBounds) -> DealVerification:
    """Verify one deal: its events' chain from the event just before it (its link to the table's history), and
    (when ended) commitment, deck and replay.

    The history before that link is not walked again, so a deal record costs the same on a table's first deal
    and on its thousandth; `cardledger verify` (and `--url`, for a player) walks whole tables."""
    verdict = DealVerification(table_id, bounds.deal_no, ended=bounds.ended_version is not None)
    walker = ChainWalker(table_id)
    link = bounds.started_version - 1
    deal_events: list[RecordedEvent] = []
    for event in iter_stream(conn, table_id, bounds.ended_version, from_version=max(1, link)):
        if event.version == link:  # the link: checked for its own hash, then the deal's events must follow it
            walker.last_version, walker.last_hash = link - 1, event.prev_hash
        walker.feed(event)
        if event.version >= bounds.started_version:
            deal_events.append(event)
    if bounds.ended_version is None:
        walker.check_head(conn)
    verdict.problems.extend(walker.problems)
    verdict.hash_chain_intact = not walker.problems
    if bounds.ended_version is not None:
        check_with_state(conn, verdict, deal_events, stored_seeds(conn, table_id, [bounds.deal_no, bounds.deal_no + 1]))
    return verdict


def check_with_state(
    conn: Conn, verdict: DealVerification, deal_events: Sequence[RecordedEvent], seeds: Mapping[int, bytes]
) -> None:
    started = deal_events[0]
    try:
        before = load_table_before_deal(conn, verdict.table_id, verdict.deal_no, started.version - 1)
        unbuildable = None
    except Exception as error:  # earlier tampering can make the state unbuildable
        before, unbuildable = None, repr(error)
    check_ended_deal(verdict, before, deal_events, seeds, unbuildable)
