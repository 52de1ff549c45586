"""Dealing (docs/rules.md, "Cha Kau Tsz"): dealer rotation, packets of 2 or 3, hidden cards, deck indexes."""

from __future__ import annotations

from collections import Counter

import pytest

from domain import table as tbl
from domain.cards import SAMPEN_DECK
from domain.redaction import PUBLIC, redact
from domain.shuffle import deal_deck

from .support import Table, only


def deal_of(table: Table, deal_no: int) -> tuple[str, ...]:
    return deal_deck(SAMPEN_DECK, table.seeds[deal_no], table.state.table_id, deal_no, table.state.deal_client_seeds)


def finish_hand(table: Table) -> None:
    """Play the running hand out: every seat plays its first card(s) (leads: the first single)."""
    while table.state.status == tbl.PLAYING:
        seat = table.to_act
        assert seat is not None
        [first, *_] = tbl.legal_actions(table.state, seat)
        count = first.get("count", 1)
        table.play(seat, *table.hand(seat)[:count])


@pytest.mark.parametrize(("seats", "size", "packet"), [(2, 15, 3), (3, 14, 2), (4, 14, 2)])
def test_packets_go_round_from_the_seat_after_the_dealer(seats: int, size: int, packet: int) -> None:
    table = Table(seats)
    for hand_no in (1, 2, 3, 4, 5):
        if hand_no > 1:
            finish_hand(table)
            table.ready_all()
        deck = deal_of(table, hand_no)
        [started] = only(table.events[-(seats + 1) :], "hand_started")
        dealer = (hand_no - 1) % seats
        assert started.data == {
            "hand_no": hand_no,
            "dealer": dealer,
            "leader": (dealer + 1) % seats,
            "hand_size": size,
            "pool_game": table.state.carry["pool_game"],
        }
        dealt = only(table.events[-seats:], "hand_dealt")
        assert [event.data["seat"] for event in dealt] == [(dealer + 1 + k) % seats for k in range(seats)]
        for position, event in enumerate(dealt):
            expected = sorted(
                r * seats * packet + position * packet + j for r in range(size // packet) for j in range(packet)
            )
            assert event.data["deck_indexes"] == expected  # in deck order, whatever the cards
            assert event.data["count"] == size
            assert [deck[i] for i in event.data["deck_indexes"]] == event.data["private"]["cards"]
            assert list(tbl.revealed_cards(event)) == list(
                zip(event.data["deck_indexes"], event.data["private"]["cards"], strict=True)
            )
            assert Counter(table.hand(event.data["seat"])) == Counter(event.data["private"]["cards"])
        view = tbl.public_view(table.state)
        assert view["dealer"] == dealer and view["leader"] == (dealer + 1) % seats
        assert table.to_act == (dealer + 1) % seats
        assert view["hand_sizes"] == [size] * seats


def test_the_public_part_of_a_dealt_hand_does_not_depend_on_its_cards() -> None:
    """Listed in the order of the sorted hand, the deck indexes told other seats where equal cards lay."""
    from domain.cha_kau_tsz.dealing import deal_events
    from domain.cha_kau_tsz.plays import ORDER

    decks = [tuple(ORDER) * 2, tuple(sorted(ORDER, reverse=True)) * 2, tuple(ORDER)[:1] * 60]
    publics = [[redact(event, PUBLIC, deal_ended=False).data for event in deal_events(3, 4, 0, deck)] for deck in decks]
    assert publics[0] == publics[1] == publics[2]


def test_the_first_packets_of_a_four_player_deal() -> None:
    table = Table(4)  # hand 1: dealer 0; seat 1 gets deck 0-1, seat 2 deck 2-3, seat 3 deck 4-5, seat 0 deck 6-7, ...
    dealt = {event.data["seat"]: sorted(event.data["deck_indexes"]) for event in only(table.events, "hand_dealt")}
    assert dealt[1][:4] == [0, 1, 8, 9]
    assert dealt[2][:4] == [2, 3, 10, 11]
    assert dealt[0][:4] == [6, 7, 14, 15]
    assert max(max(indexes) for indexes in dealt.values()) == 55  # 4 cards set aside, never emitted


def test_the_set_aside_cards_are_never_emitted() -> None:
    table = Table(2)  # 30 dealt, 30 set aside
    dealt = [i for event in only(table.events, "hand_dealt") for i in event.data["deck_indexes"]]
    assert sorted(dealt) == list(range(30))
    assert len(only(table.events, "hand_dealt")) == 2


def test_dealt_cards_are_hidden_from_every_other_seat_and_the_public() -> None:
    table = Table(3)
    for event in only(table.events, "hand_dealt"):
        owner = event.data["seat"]
        for viewer in (0, 1, 2, PUBLIC):
            shown = redact(event, viewer, deal_ended=False).data
            assert ("private" in shown) == (viewer == owner)
        assert set(redact(event, PUBLIC, deal_ended=False).data) == {"seat", "count", "deck_indexes"}
    view = tbl.public_view(table.state)
    assert "hand" not in view and "hands" not in view
    assert tbl.seat_view(table.state, 1)["hand"] == table.hand(1)
