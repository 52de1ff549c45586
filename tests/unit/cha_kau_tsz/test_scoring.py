"""Scoring a hand, the pool and balances (docs/rules.md, "Cha Kau Tsz" and "Money and the ledger")."""

from __future__ import annotations

import pytest

from domain import table as tbl
from domain.cha_kau_tsz.options import initial_carry, parse_options
from domain.cha_kau_tsz.scoring import settle
from domain.ledger import Transfer, net_by_account

from .support import Table, only


def carry(seats: int = 4, pool: int = 0, balances: list[int] | None = None) -> dict:
    start = initial_carry(seats, parse_options({}, seats))
    start["pool"] = pool
    start["balances"] = balances if balances is not None else [0] * seats
    if balances is None and pool:
        start["balances"][0] = -pool
    return start


def test_seed_text_first_example_three_six_zero_five() -> None:
    settlement = settle([3, 6, 0, 5], carry(), target=8)
    assert settlement.payments == [3, 0, 6, 1]
    assert settlement.pool_winner is None
    assert settlement.net == [-3, 0, -6, -1]
    assert settlement.carry["pool"] == 10 and settlement.carry["balances"] == [-3, 0, -6, -1]
    assert settlement.transfers == [
        Transfer("seat:0", "pool", 3, "hand_payment"),
        Transfer("seat:2", "pool", 6, "hand_payment"),
        Transfer("seat:3", "pool", 1, "hand_payment"),
    ]


def test_seed_text_second_example_only_the_last_pays_two() -> None:
    settlement = settle([4, 4, 4, 2], carry(), target=8)
    assert settlement.payments == [0, 0, 0, 2]
    assert settlement.transfers == [Transfer("seat:3", "pool", 2, "hand_payment")]


def test_reaching_the_target_takes_the_whole_pool_after_the_payments() -> None:
    before = carry(pool=12, balances=[-2, -4, -6, 0])
    settlement = settle([9, 2, 3, 0], before, target=8)
    assert settlement.payments == [0, 7, 6, 9]
    assert settlement.pool_winner == 0
    assert settlement.pool_won == 12 + 22
    assert settlement.net == [34, -7, -6, -9]
    assert settlement.carry["balances"] == [32, -11, -12, -9]
    assert settlement.carry["pool"] == 0
    assert settlement.carry["pool_game"] == 2 and settlement.carry["hands_in_pool_game"] == 0
    assert settlement.transfers[-1] == Transfer("pool", "seat:0", 34, "pool_won")
    totals = net_by_account(settlement.transfers)
    assert sum(totals.values()) == 0 and totals["pool"] == -12


def test_below_the_target_the_pool_keeps_growing() -> None:
    settlement = settle([7, 7], carry(2, pool=5, balances=[-5, 0]), target=8)
    assert settlement.pool_winner is None and settlement.payments == [0, 0]
    assert settlement.transfers == [] and settlement.carry["pool"] == 5
    assert settlement.carry["hands_in_pool_game"] == 1 and settlement.carry["pool_game"] == 1


def test_balances_go_negative_without_limit_a_debt_is_never_an_error() -> None:
    deep = carry(2, pool=500, balances=[-400, -100])
    settlement = settle([0, 15], deep, target=10)
    assert settlement.carry["balances"] == [-415, 415]  # seat 1 takes 500 + 15
    assert settlement.carry["pool"] == 0
    loser = settle([0, 7], carry(2, pool=0, balances=[-1000, 1000]), target=10)
    assert loser.carry["balances"] == [-1007, 1000] and loser.carry["pool"] == 7


def test_a_complete_rigged_hand_ends_the_deal_with_the_settlement() -> None:
    table = Table(4)
    table.rig([["9S", "1S"], ["8S", "1D"], ["7S", "2D"], ["6S", "2H"]], leader=0)
    table.play(0, "9S")
    table.play(1, "8S")
    table.play(2, "7S")
    table.play(3, "6S")
    table.play(0, "1S")
    table.play(1, "1D")
    table.play(2, "2D")
    events = table.play(3, "2H")
    assert [event.type for event in events] == ["cards_played", "trick_won", "hand_scored", "deal_ended"]
    assert events[2].data == {
        "hand_no": 1,
        "tricks": [2, 0, 0, 0],
        "most": 2,
        "payments": [0, 2, 2, 2],
        "pool_winner": None,
        "pool_won": 0,
    }
    ended = events[3].data
    assert ended["result"]["tricks"] == [2, 0, 0, 0]
    assert ended["result"]["net"] == [0, -2, -2, -2] and ended["result"]["net_cents"] == [0, -20, -20, -20]
    assert ended["result"]["pool_winner"] is None and ended["unit"] == "points"
    assert ended["carry"]["pool"] == 6 and ended["carry"]["balances"] == [0, -2, -2, -2]
    assert sum(t["amount"] for t in ended["transfers"]) == 6
    view = tbl.public_view(table.state)
    assert view["status"] == "between_deals" and view["to_act"] is None
    assert view["pool"] == 6 and view["balances"] == [0, -2, -2, -2] and view["stacks"] == [85, 83, 83, 83]
    assert view["debts"] == [{"seat": 1, "points": 2}, {"seat": 2, "points": 2}, {"seat": 3, "points": 2}]


def play_out(table: Table) -> None:
    while table.state.status == tbl.PLAYING:
        seat = table.to_act
        assert seat is not None
        action = tbl.legal_actions(table.state, seat)[-1]  # the longest/last lead: big tricks
        if "count" in action:
            table.play(seat, *table.hand(seat)[: action["count"]])
        else:
            table.act(seat, action)


def test_pool_won_then_a_new_pool_game_with_the_same_balances() -> None:
    # Two players, target 8 of 15: every hand has a player with at least 8 tricks.
    table = Table(2, {"pool_target_tricks": 8})
    play_out(table)
    [ended] = only(table.events, "deal_ended")
    result = ended.data["result"]
    assert result["pool_winner"] is not None and result["pool_game"] == 1
    winner = result["pool_winner"]
    assert result["tricks"][winner] >= 8 and sum(result["tricks"]) == 15
    assert ended.data["carry"]["pool"] == 0 and ended.data["carry"]["pool_game"] == 2
    assert result["net"][winner] == result["pool_won"] > 0
    assert ended.data["transfers"][-1] == {
        "payer": "pool",
        "payee": f"seat:{winner}",
        "amount": result["pool_won"],
        "reason": "pool_won",
    }
    balances = ended.data["carry"]["balances"]
    table.ready_all()
    view = tbl.public_view(table.state)
    assert view["pool_game"] == 2 and view["hand_no"] == 2 and view["hands_in_pool_game"] == 0
    assert view["balances"] == balances and view["pool"] == 0
    assert [e.data["pool_game"] for e in only(table.events, "hand_started")] == [1, 2]


def test_target_above_the_tricks_won_keeps_the_pool_game() -> None:
    table = Table(2, {"pool_target_tricks": 15})
    play_out(table)
    [ended] = only(table.events, "deal_ended")
    if max(ended.data["result"]["tricks"]) < 15:
        assert ended.data["carry"]["pool_game"] == 1
        assert ended.data["carry"]["pool"] == sum(ended.data["result"]["payments"])


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_balances_plus_pool_is_zero_over_several_hands(seats: int) -> None:
    table = Table(seats)
    for _ in range(4):
        play_out(table)
        carry_now = table.state.carry
        assert sum(carry_now["balances"]) + carry_now["pool"] == 0
        table.ready_all()
