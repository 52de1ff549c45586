"""The brute-force attack on hidden cards through event hashes, as a regression test through the API.

Before hash version 2, an event's hash covered its whole data, the hidden "private" block included, and
every seat received that hash. Everything else the hash covers is known to the player whose request
dealt the cards: the table id, the event's position, type, deal and redacted data, its metadata
(`actor` = that player, `request_id` = the `X-Request-ID` that player sent) and its time. So seat 1,
sitting last with a request id of its choosing, could try every ordered draw of 3 of the 30 Cherki card
types (27,000 guesses) against the hash of seat 0's `cards_drawn` and read seat 0's cards.

This test is that attacker. Seat 1 sits last with a known request id; the sit answer carries no events,
so it reads them with GET /events. It first shows that it rebuilds every hashed field right: each event
it may fully see recomputes to its hash, and the same search run on its own `cards_drawn` (its private
block removed; its salt given when it has one) finds its own cards. Then it tries every candidate for
seat 0's draw with every formula an attacker could try (the version-1 hash over the whole data; an
unsalted commitment; the version-2 hash over such a commitment; ...) and asserts that none of them
gives any hash or commitment it received.

It uses only the API, `domain.cards` and hashlib/json (the attacker's own code), so that it runs
unchanged against the code before hash version 2, where it must fail: that API gave `occurred_at` as
Python's isoformat ("+00:00", without microseconds when they are 0) and neither metadata nor schema
and hash versions, so the timestamp's hashed text is rebuilt from either form, and the metadata from
the known actor and request id.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import time
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from domain.cards import CHERKI_TYPES
from tests.api.conftest import Api, bearer

REQUEST_ID = "seat-1-sits-" + uuid.uuid4().hex  # seat 1 sends it, so it knows it
PRIVATE, COMMITMENT, SALT = "private", "private_commitment", "salt"
HOLE = "@@hole@@"  # where a guess goes in a canonical text (as the JSON string "@@hole@@")


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def hashed_timestamp(occurred_at: str) -> str:
    """The text an event's hash covers for its time, from `occurred_at` as either API sends it."""
    return datetime.fromisoformat(occurred_at).astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def hashed_text(
    event: Mapping[str, Any], table_id: str, metadata: Mapping[str, Any], data: Any, hash_version: int
) -> str:
    """The canonical JSON an event's hash covers, from the fields a seat knows and the given data."""
    fields = {
        "stream_id": table_id,
        "version": event["position"],
        "type": event["type"],
        "schema_version": event.get("schema_version", 1),
        "deal_no": event["deal_no"],
        "data": data,
        "metadata": dict(metadata),
        "occurred_at": hashed_timestamp(event["occurred_at"]),
    }
    if hash_version != 1:
        fields["hash_version"] = hash_version
    return canonical(fields)


def split_at_hole(text: str) -> tuple[str, str]:
    before, hole, after = text.partition(canonical(HOLE))
    assert hole and canonical(HOLE) not in after, text
    return before, after


def cards_text(cards: Iterable[str]) -> str:
    """canonical(list(cards)) for card codes (plain ASCII: nothing to escape), written quickly."""
    return '["' + '","'.join(cards) + '"]'


@dataclass(frozen=True)
class Formula:
    """A guess's digest: SHA-256 of prefix + guess + suffix, where the guess is the cards' JSON list, or
    (`inner`) the JSON string of the digest `inner` gives for the cards."""

    name: str
    prefix: str
    suffix: str
    inner: Formula | None = None

    def digest(self, cards: str) -> str:
        guess = cards if self.inner is None else '"' + self.inner.digest(cards) + '"'
        return sha256_hex(self.prefix + guess + self.suffix)


def formulas(event: Mapping[str, Any], table_id: str, metadata: Mapping[str, Any], salt: str | None) -> list[Formula]:
    """Every way an attacker could think the hidden cards enter the event's hash or its commitment."""
    data = {key: value for key, value in event["data"].items() if key != PRIVATE}
    public = {key: value for key, value in data.items() if key != COMMITMENT}
    prev = event["prev_hash"]
    out: list[Formula] = []
    blocks = {"unsalted": {"cards": HOLE}, "empty salt": {"cards": HOLE, SALT: ""}}
    if salt is not None:
        blocks["salted"] = {"cards": HOLE, SALT: salt}
    for block_name, block in blocks.items():
        # The commitment of a private block, and the hash of the event holding it in place of the commitment.
        commitment = Formula(f"{block_name} commitment", *split_at_hole(canonical(block)))
        out.append(commitment)
        for version in (1, 2):
            text = hashed_text(event, table_id, metadata, {**public, COMMITMENT: HOLE}, version)
            before, after = split_at_hole(text)
            out.append(Formula(f"v{version} hash over the {block_name} commitment", prev + before, after, commitment))
        # The hash over the whole data, the block included (the version-1 form), with and without a commitment.
        for version in (1, 2):
            for name, base in (("", public), (" and commitment", data))[: 2 if COMMITMENT in data else 1]:
                text = hashed_text(event, table_id, metadata, {**base, PRIVATE: block}, version)
                before, after = split_at_hole(text)
                out.append(
                    Formula(f"v{version} hash over the data with the {block_name} block{name}", prev + before, after)
                )
    return out


def search(
    event: Mapping[str, Any], table_id: str, metadata: Mapping[str, Any], targets: set[str], salt: str | None = None
) -> tuple[list[tuple[str, tuple[str, ...]]], int, float, float | None]:
    """Every (formula, cards) among all ordered draws of `count` card types whose digest is in `targets`; the
    number of guesses; the seconds the whole search took, and those to the first hit (None: no hit)."""
    candidates = list(formulas(event, table_id, metadata, salt))
    # A guess replaces the JSON string HOLE where the canonical JSON of its value would be (a value's place in
    # sorted-key JSON does not depend on the value), so the splice gives the canonical JSON of the whole guess.
    assert all(cards_text(cards) == canonical(list(cards)) for cards in [("1C",), ("OT", "WF", "RF"), ("9M", "9M")])
    found = []
    guesses = 0
    started = time.perf_counter()
    first_hit = None
    for cards in itertools.product(CHERKI_TYPES, repeat=event["data"]["count"]):
        text = cards_text(cards)
        for formula in candidates:
            guesses += 1
            if formula.digest(text) in targets:
                found.append((formula.name, cards))
                first_hit = first_hit or time.perf_counter() - started
    return found, guesses, time.perf_counter() - started, first_hit


def received_digests(events: Iterable[Mapping[str, Any]]) -> set[str]:
    """Every hash and commitment a seat received."""
    out = set()
    for event in events:
        out |= {event["hash"], event["prev_hash"]}
        if COMMITMENT in event["data"]:
            out.add(event["data"][COMMITMENT])
    return out


def post(api: Api, path: str, token: str, body: Mapping[str, Any], **headers: str) -> dict[str, Any]:
    response = api.client.post(path, json=dict(body), headers={**bearer(token), **headers})
    assert response.status_code == 201, response.get_json()
    answer: dict[str, Any] = response.get_json()
    return answer


def test_a_seat_cannot_brute_force_another_seats_draw_from_the_hashes_it_receives(api: Api) -> None:
    _, zero = api.register("seat-0")
    one_id, one = api.register("seat-1")
    table_id = api.open_table(zero, game="cholek-tiga", seats=2)["id"]
    before = post(api, f"/v1/tables/{table_id}/seats", zero, {"seat": 0})["version"]
    sat = post(api, f"/v1/tables/{table_id}/seats", one, {"seat": 1}, **{"X-Request-ID": REQUEST_ID})
    assert sat["seat"] == 1
    page = api.client.get(f"/v1/tables/{table_id}/events?after={before}&limit=1000", headers=bearer(one))
    assert page.status_code == 200, page.get_json()
    dealt = page.get_json()["events"]  # the events of seat 1's request: it seated seat 1 and dealt
    assert dealt and all(event["position"] > before for event in dealt)
    assert any(event["type"] == "deal_started" for event in dealt)
    metadata = {"actor": one_id, "request_id": REQUEST_ID}

    # Seat 1 rebuilds every hashed field right: each event it may fully see recomputes to its hash.
    withheld = [e for e in dealt if e["type"] == "cards_drawn" and e["data"]["seat"] == 0 and PRIVATE not in e["data"]]
    own = [e for e in dealt if e["type"] == "cards_drawn" and e["data"]["seat"] == 1]
    assert withheld and own and all(PRIVATE in e["data"] for e in own)
    for previous, event in itertools.pairwise(dealt):
        assert event["prev_hash"] == previous["hash"]
    for event in dealt:
        if "metadata" in event:
            assert event["metadata"] == metadata
        version = event.get("hash_version", 1)
        if "hash_version" in event:
            assert hashed_timestamp(event["occurred_at"]) == event["occurred_at"]
        if version == 1 and event in withheld:
            continue  # its hash covers seat 0's cards (what the search below finds)
        data = event["data"] if version == 1 else {k: v for k, v in event["data"].items() if k != PRIVATE}
        text = hashed_text(event, table_id, metadata, data, version)
        assert sha256_hex(event["prev_hash"] + text) == event["hash"], event

    # The search works: run on seat 1's own draw, its private block taken out (its salt given), it finds it.
    mine = own[0]
    hidden = {**mine, "data": {k: v for k, v in mine["data"].items() if k != PRIVATE}}
    found, *_ = search(
        hidden,
        table_id,
        metadata,
        {mine["hash"], mine["data"].get(COMMITMENT)} - {None},
        mine["data"][PRIVATE].get(SALT),
    )
    assert {cards for _, cards in found} == {tuple(mine["data"][PRIVATE]["cards"])}, found

    # The attack: no guess of seat 0's cards gives any hash or commitment seat 1 received.
    targets = received_digests(dealt)
    for event in withheld:
        found, guesses, seconds, first_hit = search(event, table_id, metadata, targets)
        hand = api.view(zero, table_id)["hand"]
        assert not found, (
            f"seat 1 found seat 0's hidden cards {found} (seat 0's hand: {hand}) from the hash of event "
            f"{event['position']} (hash version {event.get('hash_version', 1)}): first hit after "
            f"{first_hit:.3f} s, all {guesses} guesses in {seconds:.3f} s"
        )
