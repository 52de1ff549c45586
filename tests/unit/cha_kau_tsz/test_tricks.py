"""Who wins a trick (docs/rules.md, "Cha Kau Tsz"), driven through domain.table with rigged hands."""

from __future__ import annotations

import pytest

from domain.cha_kau_tsz.tricks import trick_winner

from .support import Table, only, ref_winner


def won(events: list) -> dict:  # the trick_won event's data
    [event] = only(events, "trick_won")
    return dict(event.data)


def four_players(hands: list[list[str]], leader: int = 0) -> Table:
    table = Table(4)
    table.rig(hands, leader)
    return table


def test_seed_text_sequence_example_john_wins() -> None:
    # George (0) leads 2S 3S 4S; Sally (1) holds 1H-4H but plays three other cards; Tiffany (2)
    # beats George with 4S 5S 6S; John (3) beats that with 5D 6D 7D, regardless of suit.
    table = four_players(
        [
            ["2S", "3S", "4S", "9H", "9H", "8H", "8H"],
            ["1H", "2H", "3H", "4H", "9D", "5H", "8S"],
            ["4S", "5S", "6S", "1D", "1S", "2D", "2S"],
            ["5D", "6D", "7D", "7H", "6H", "3D", "3S"],
        ]
    )
    table.play(0, "2S", "3S", "4S")
    table.play(1, "9D", "5H", "8S")
    table.play(2, "4S", "5S", "6S")
    events = table.play(3, "5D", "6D", "7D")
    assert won(events) == {"seat": 3, "tricks": 3, "trick_no": 1, "total": 3}
    assert table.state.deal.tricks == (0, 0, 0, 3)
    assert table.to_act == 3  # the winner leads next
    assert table.hand(1) == ["1H", "2H", "3H", "4H"]


def test_sally_two_three_four_of_hearts_would_not_beat_an_equal_top() -> None:
    table = four_players(
        [["2S", "3S", "4S"], ["2H", "3H", "4H"], ["1D", "2D", "3D"], ["9S", "9D", "9H"]],
    )
    table.play(0, "2S", "3S", "4S")
    table.play(1, "2H", "3H", "4H")  # equal top card: does not beat
    table.play(2, "1D", "2D", "3D")  # lower
    events = table.play(3, "9S", "9D", "9H")  # a group never counts against a sequence
    assert won(events)["seat"] == 0


def test_single_number_led_highest_of_led_suit_wins() -> None:
    table = four_players([["5S", "1D"], ["9D", "1D"], ["7S", "1H"], ["KC", "1H"]], leader=0)
    table.play(0, "5S")
    table.play(1, "9D")  # another suit never wins
    table.play(2, "7S")
    events = table.play(3, "KC")  # a picture never wins
    assert won(events) == {"seat": 2, "tricks": 1, "trick_no": 1, "total": 1}


def test_single_number_led_equal_cards_first_played_wins() -> None:
    table = four_players([["2H", "1D"], ["8H", "1D"], ["8H", "1S"], ["3H", "1S"]], leader=0)
    for seat, card in enumerate(["2H", "8H", "8H", "3H"]):
        events = table.play(seat, card)
    assert won(events)["seat"] == 1


def test_single_number_led_nobody_follows_suit_leader_wins() -> None:
    table = four_players([["1H", "1D"], ["9S", "1D"], ["JC", "1S"], ["9D", "1S"]], leader=0)
    for seat, card in enumerate(["1H", "9S", "JC", "9D"]):
        events = table.play(seat, card)
    assert won(events)["seat"] == 0


def test_picture_led_first_number_card_fixes_the_suit() -> None:
    # Leader 2 plays a picture; seat 3 plays a picture; seat 0 plays 4D (fixes diamonds);
    # seat 1 plays 9S (wrong suit, never wins) ... then an 8D would beat 4D.
    table = four_players([["4D", "1S"], ["9S", "1S"], ["QC", "1H"], ["JC", "1H"]], leader=2)
    table.play(2, "QC")
    table.play(3, "JC")
    table.play(0, "4D")
    events = table.play(1, "9S")
    assert won(events)["seat"] == 0


def test_picture_led_highest_of_the_fixed_suit_wins_first_among_equals() -> None:
    table = four_players([["KC", "1S"], ["3H", "1S"], ["7H", "1D"], ["7H", "1D"]], leader=0)
    for seat, card in enumerate(["KC", "3H", "7H", "7H"]):
        events = table.play(seat, card)
    assert won(events)["seat"] == 2


def test_picture_led_only_pictures_follow_leader_wins() -> None:
    table = four_players([["JC", "1S"], ["QC", "1S"], ["KC", "1D"], ["JC", "1D"]], leader=0)
    for seat, card in enumerate(["JC", "QC", "KC", "JC"]):
        events = table.play(seat, card)
    assert won(events)["seat"] == 0


def test_group_led_higher_group_of_same_size_wins_equal_does_not() -> None:
    table = four_players(
        [
            ["5S", "5D", "5H", "1S"],
            ["5S", "5D", "5H", "1S"],  # equal rank: does not beat
            ["8S", "8D", "8H", "1D"],  # higher: beats
            ["6S", "6D", "6H", "1D"],  # higher than the lead, not than the best so far
        ]
    )
    table.play(0, "5S", "5D", "5H")
    table.play(1, "5S", "5D", "5H")
    table.play(2, "8S", "8D", "8H")
    events = table.play(3, "6S", "6D", "6H")
    assert won(events) == {"seat": 2, "tricks": 3, "trick_no": 1, "total": 3}


def test_followers_whose_cards_form_no_valid_combination_never_win() -> None:
    table = four_players(
        [
            ["2S", "2D", "2H", "2H", "1S"],
            ["9S", "9S", "9H", "9H", "1S"],  # lacks D: not a group
            ["7S", "8S", "9S", "KC", "1D"],  # a sequence, but a group was led
            ["9D", "9H", "KC", "JC", "1D"],  # pictures only go with aces
        ]
    )
    table.play(0, "2S", "2D", "2H", "2H")
    table.play(1, "9S", "9S", "9H", "9H")
    table.play(2, "7S", "8S", "9S", "KC")
    events = table.play(3, "9D", "9H", "KC", "JC")
    assert won(events) == {"seat": 0, "tricks": 4, "trick_no": 1, "total": 4}


def test_sequence_followers_need_a_sequence_of_the_same_length() -> None:
    table = four_players(
        [
            ["1S", "2S", "3S", "4S", "9D"],
            ["6H", "7H", "8H", "9H", "9D"],  # a sequence of the same length (any suit): beats
            ["9S", "9S", "8S", "7S", "1D"],  # repeated rank: no sequence
            ["5D", "6D", "7D", "9D", "2D"],  # gap: no sequence
        ]
    )
    table.play(0, "1S", "2S", "3S", "4S")
    table.play(1, "6H", "7H", "8H", "9H")
    table.play(2, "9S", "9S", "8S", "7S")
    events = table.play(3, "5D", "6D", "7D", "9D")
    assert won(events)["seat"] == 1


def test_ace_group_with_pictures_led_and_a_follower_ace_group_never_beats_it() -> None:
    # The seven cards of the seed text; the follower's own seven-card ace group is a group of the
    # same size but the same rank (1), so it does not beat the lead.
    ace_group = ["1S", "1D", "1H", "JC", "QC", "KC", "KC"]
    table = Table(2)
    table.rig([[*ace_group, "9S"], ["1S", "1D", "1H", "JC", "QC", "JC", "QC", "9D"]], leader=0)
    table.play(0, *ace_group)
    events = table.play(1, "1S", "1D", "1H", "JC", "QC", "JC", "QC")
    assert won(events) == {"seat": 0, "tricks": 7, "trick_no": 1, "total": 7}


def test_a_number_group_beats_an_ace_group_with_pictures_of_the_same_size() -> None:
    table = Table(2)
    table.rig([["1S", "1D", "1H", "JC", "9S"], ["2S", "2D", "2H", "2H", "9D"]], leader=1)
    table.play(1, "2S", "2D", "2H", "2H")
    events = table.play(0, "1S", "1D", "1H", "JC")  # same size, rank 1 < 2: does not beat
    assert won(events)["seat"] == 1
    table2 = Table(2)
    table2.rig([["1S", "1D", "1H", "JC", "9S"], ["2S", "2D", "2H", "2H", "9D"]], leader=0)
    table2.play(0, "1S", "1D", "1H", "JC")
    events = table2.play(1, "2S", "2D", "2H", "2H")  # same size, higher rank: beats
    assert won(events)["seat"] == 1


def test_winner_credited_with_as_many_tricks_as_cards_led_and_leads_next() -> None:
    table = Table(3)
    table.rig(
        [["3D", "4D", "5D", "6D", "1S"], ["9S", "9H", "9D", "8D", "1S"], ["1H", "1H", "2H", "2H", "1D"]], leader=0
    )
    table.play(0, "3D", "4D", "5D", "6D")
    table.play(1, "9S", "9H", "9D", "8D")
    events = table.play(2, "1H", "1H", "2H", "2H")
    assert won(events) == {"seat": 0, "tricks": 4, "trick_no": 1, "total": 4}
    assert table.to_act == 0
    assert table.state.deal.trick == ()
    events = table.play(0, "1S")
    assert events[0].data == {"seat": 0, "cards": ["1S"], "lead": True, "trick_no": 2}


@pytest.mark.parametrize(
    ("plays", "winner"),
    [
        ([(0, ["5S"]), (1, ["5S"]), (2, ["4S"])], 0),
        ([(1, ["QC"]), (2, ["1H"]), (0, ["2H"])], 0),
        ([(1, ["QC"]), (2, ["KC"]), (0, ["JC"])], 1),
        ([(2, ["1S", "2S", "3S"]), (0, ["2D", "3D", "4D"]), (1, ["3H", "4H", "5H"])], 1),
        ([(2, ["1S", "1D", "1H"]), (0, ["3D", "3S", "3H"]), (1, ["3H", "3S", "3D"])], 0),
    ],
)
def test_trick_winner_matches_the_reference(plays: list, winner: int) -> None:
    assert trick_winner(plays) == winner == ref_winner(plays)
