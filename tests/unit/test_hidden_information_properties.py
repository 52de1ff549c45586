"""Hidden information in the recorded events, over random deals of both games (no database).

Tables are played by random legal actions through `domain.table`; each command's events are recorded as
the store records them (`EventStore.prepare`: numbered, salted, sealed and chained from the stream's head,
with the metadata `CardLedger._new_event` writes). For every event, every viewer that does not hold its
private block (the other seats, and the public) gets it as the API shows it while the deal is on
(`event_json`, deal not over), and:

(a) its hash recomputes from what that viewer received alone (and the table id, which is in the URL), so
    the hash carries nothing of the hidden cards beyond their commitment;
(b) no candidate for the hidden cards (the true ones, reordered, and random hands of the same size) is
    confirmed: no unsalted commitment and no version-1-style hash of a candidate is among the strings the
    viewer received, and neither the salt nor the private block's text is among them (and no salt is used
    twice);
(c) the public part of a dealing event (`hand_dealt`, `cards_drawn`) does not depend on the cards: it is the
    same at two tables with the same setup and different server seeds, and its `deck_indexes` are in
    ascending deck order (listed in the order of a sorted hand, they would tell where its equal cards lie).
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Iterator, Mapping
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain import table as tbl
from domain.cha_kau_tsz.dealing import HAND_DEALT, HAND_STARTED
from domain.cholek_tiga.events import CARD_TURNED_UP, CARDS_DRAWN
from domain.cholek_tiga.state import DECK_SIZE, DRAW_SIZE
from domain.events import PRIVATE, Event
from domain.games import game_named
from domain.hashchain import (
    GENESIS_HASH,
    HASH_V1,
    HASH_V2,
    PRIVATE_COMMITMENT,
    SALT,
    canonical_text,
    commitment_problem,
    event_hash,
    hashed_fields,
    private_commitment,
)
from domain.redaction import PUBLIC, Viewer
from infra.event_store import EventStore, NewEvent, RecordedEvent
from services.app.answers import event_json
from tests.play import random_action

TABLE_ID = "5d0c1a4e-7f4b-4c1e-9d7a-2b1f0e3c4a5d"
SEATS = {"cholek-tiga": (2, 3), "cha-kau-tsz": (2, 3, 4)}
DEALING = (CARDS_DRAWN, HAND_DEALT)


def seeds_from(base: bytes, deals: int) -> dict[int, bytes]:
    return {deal_no: hashlib.sha256(base + bytes([deal_no])).digest() for deal_no in range(1, deals + 2)}


def record_table(
    game: str, seats: int, seeds: Mapping[int, bytes], rng: random.Random, deals: int
) -> list[RecordedEvent]:
    """A table's stream over `deals` deals of random play, each command's events recorded as the store does."""
    players = [f"player-{seat}" for seat in range(seats)]
    recorded: list[RecordedEvent] = []
    head = GENESIS_HASH

    def append(state: tbl.TableState | None, events: list[Event], actor: str) -> tbl.TableState:
        nonlocal head
        deal_no = 0 if state is None else state.deal_no
        new = []
        for event in events:  # as CardLedger._annotate and _new_event write them
            if event.type == tbl.DEAL_STARTED:
                deal_no = int(event.data["deal_no"])
            metadata = {"actor": actor, "request_id": f"{rng.getrandbits(128):032x}"}
            new.append(NewEvent(event.type, event.data, deal_no, metadata))
        pending = EventStore.prepare(TABLE_ID, len(recorded), new, head)
        recorded.extend(pending.events)
        head = pending.hashes[-1]
        return tbl.fold(state, events)

    opened = tbl.open_table(TABLE_ID, game, seats, {}, seeds[1])
    state = append(None, [opened], players[0])
    for seat, player in enumerate(players):
        state = append(state, tbl.decide(state, tbl.Sit(player, seat), seeds), player)
    for deal in range(deals):
        steps = 0
        while (seat := tbl.to_act(state)) is not None:
            state = append(
                state, tbl.decide(state, tbl.Act(seat, random_action(state, seat, rng)), seeds), players[seat]
            )
            steps += 1
            assert steps < 2000, "the deal did not end"
        if deal < deals - 1:
            for seat, player in enumerate(players):
                state = append(state, tbl.decide(state, tbl.Act(seat, {"type": "ready"}), seeds), player)
    return recorded


def strings_in(node: Any) -> Iterator[str]:
    if isinstance(node, str):
        yield node
    elif isinstance(node, Mapping):
        for key, value in node.items():
            yield key
            yield from strings_in(value)
    elif isinstance(node, list):
        for item in node:
            yield from strings_in(item)


def recomputed(shown: Mapping[str, Any], data: Mapping[str, Any] | None = None, version: int | None = None) -> str:
    """The hash of an event from the fields a viewer received (with other data or hash version: a guess's)."""
    fields: dict[str, Any] = {
        "stream_id": TABLE_ID,
        "version": shown["position"],
        "type": shown["type"],
        "schema_version": shown["schema_version"],
        "deal_no": shown["deal_no"],
        "data": dict(shown["data"] if data is None else data),  # as given: a guess's data keeps its private block
        "metadata": shown["metadata"],
        "occurred_at": shown["occurred_at"],
    }
    version = shown["hash_version"] if version is None else version
    if version != HASH_V1:
        fields["hash_version"] = version
    return event_hash(shown["prev_hash"], fields)


def guesses(shown: Mapping[str, Any], cards: list[str]) -> Iterator[tuple[str, str]]:
    """(formula, digest) for every way a viewer could try to confirm that the hidden cards are `cards`."""
    data = dict(shown["data"])
    public = {key: value for key, value in data.items() if key != PRIVATE_COMMITMENT}
    for name, block in (("unsalted", {"cards": cards}), ("empty salt", {"cards": cards, SALT: ""})):
        commitment = private_commitment(block)
        yield f"{name} commitment", commitment
        yield f"{name} commitment as text", hashlib.sha256(canonical_text(block["cards"]).encode()).hexdigest()
        for version in (HASH_V1, HASH_V2):
            yield (
                f"v{version} hash over the {name} commitment",
                recomputed(shown, {**public, PRIVATE_COMMITMENT: commitment}, version),
            )
            for with_commitment, base in (("", public), (" and commitment", data)):
                yield (
                    f"v{version} hash over the data with the {name} block{with_commitment}",
                    recomputed(shown, {**base, PRIVATE: block}, version),
                )


def viewers(event: RecordedEvent, seats: int) -> list[Viewer]:
    """Who must not see the event's private block while its deal is on (everyone, when it has none)."""
    owner = event.data.get("seat") if PRIVATE in event.data else None
    return [seat for seat in range(seats) if seat != owner] + [PUBLIC]


def check_hidden(events: list[RecordedEvent], seats: int, deck: tuple[str, ...], rng: random.Random) -> None:
    """(a) and (b) for every event and every viewer without its private block."""
    shown_to = {viewer: [event_json(event, viewer, False) for event in events] for viewer in [*range(seats), PUBLIC]}
    received = {viewer: set(strings_in(shown)) for viewer, shown in shown_to.items()}
    texts = {viewer: json.dumps(shown, ensure_ascii=False) for viewer, shown in shown_to.items()}
    salts = [event.data[PRIVATE][SALT] for event in events if PRIVATE in event.data]
    assert len(set(salts)) == len(salts), "a salt used twice"
    assert all(len(salt) == 64 and not salt.strip("0123456789abcdef") for salt in salts)
    for index, event in enumerate(events):
        assert event.hash_version == HASH_V2
        private = event.data.get(PRIVATE)
        if private is not None:
            owner = event_json(event, int(event.data["seat"]), False)["data"]
            assert owner[PRIVATE] == private and commitment_problem(owner) is None
        for viewer in viewers(event, seats):
            shown = shown_to[viewer][index]
            # (a) the hash, from what the viewer received
            assert recomputed(shown) == event.hash, (viewer, shown)
            assert (
                event_hash(
                    shown["prev_hash"],
                    hashed_fields(
                        TABLE_ID,
                        shown["position"],
                        shown["type"],
                        shown["schema_version"],
                        shown["deal_no"],
                        shown["data"],
                        shown["metadata"],
                        shown["occurred_at"],
                        shown["hash_version"],
                    ),
                )
                == event.hash
            )
            if private is None:
                continue
            assert PRIVATE not in shown["data"] and PRIVATE_COMMITMENT in shown["data"]
            # (b) no candidate is confirmed, the true cards included
            cards = list(private["cards"])
            candidates = [cards, sorted(cards), cards[::-1]]
            candidates += [rng.sample(deck, len(cards)) for _ in range(3)]
            for candidate in candidates:
                for formula, digest in guesses(shown, candidate):
                    assert digest not in received[viewer], f"{viewer} confirms {candidate} by the {formula}"
            assert private[SALT] not in texts[viewer], f"{viewer} received the salt of {event.type} {index + 1}"
            assert canonical_text(dict(private)) not in texts[viewer]


def dealing_parts(events: list[RecordedEvent]) -> dict[tuple[Any, ...], dict[str, Any]]:
    """The public part of each dealing event, as a non-owner sees it without the (random) commitment, keyed by
    what it may depend on: the kind of event, the seat, the dealer (or first seat to draw) and the round. Only
    the first round of a Cholek Tiga deal: later draws follow the play."""
    parts: dict[tuple[Any, ...], dict[str, Any]] = {}
    dealer = None
    for event in events:
        if event.type == HAND_STARTED:
            dealer = event.data["dealer"]
        elif event.type == tbl.DEAL_STARTED:
            dealer = None
        if event.type not in DEALING or event.data.get("round", 1) != 1:
            continue
        if event.type == CARDS_DRAWN and dealer is None:
            dealer = event.data["seat"]  # the first seat to draw in the deal
        shown = event_json(event, PUBLIC, False)["data"]
        public = {key: value for key, value in shown.items() if key != PRIVATE_COMMITMENT}
        parts[(event.type, event.data["seat"], dealer, event.data.get("round"))] = public
    return parts


def check_deck_indexes(events: list[RecordedEvent]) -> None:
    """Every dealing event lists its deck indexes in ascending order; a Cholek Tiga draw takes the next
    `count` cards of the stock, so its public part follows from the public events before it."""
    taken = 0
    for event in events:
        data = event_json(event, PUBLIC, False)["data"]
        if event.type == tbl.DEAL_STARTED:
            taken = 0
        if event.type in DEALING:
            indexes = data["deck_indexes"]
            assert indexes == sorted(set(indexes)) and len(indexes) == data["count"], data
        if event.type == CARDS_DRAWN:
            assert data["count"] == min(DRAW_SIZE, DECK_SIZE - taken)
            assert data["deck_indexes"] == list(range(taken, taken + data["count"])), data
        if event.type in (CARDS_DRAWN, CARD_TURNED_UP):
            taken = max(data["deck_indexes"]) + 1


@st.composite
def setups(draw: st.DrawFn, game: str) -> tuple[int, bytes, bytes, int, int]:
    seats = draw(st.sampled_from(SEATS[game]))
    first = draw(st.binary(min_size=16, max_size=16))
    second = draw(st.binary(min_size=16, max_size=16).filter(lambda seed: seed != first))
    return seats, first, second, draw(st.integers(0, 2**32)), draw(st.integers(1, 2))


@pytest.mark.parametrize("game", sorted(SEATS))
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_a_viewer_without_the_private_block_learns_nothing_of_the_hidden_cards(game: str, data: st.DataObject) -> None:
    seats, first, second, play_seed, deals = data.draw(setups(game))
    rng = random.Random(play_seed)
    deck = game_named(game).canonical_deck
    tables = [record_table(game, seats, seeds_from(base, deals), rng, deals) for base in (first, second)]
    for events in tables:
        assert any(PRIVATE in event.data for event in events)
        check_hidden(events, seats, deck, rng)
        check_deck_indexes(events)
    # (c) two tables alike but for their seeds: the same public dealing parts wherever they deal alike
    one, other = (dealing_parts(events) for events in tables)
    common = one.keys() & other.keys()
    assert any(key[0] in DEALING for key in common)
    for key in common:
        assert one[key] == other[key], key
