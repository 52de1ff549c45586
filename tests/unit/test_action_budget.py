from __future__ import annotations

import pytest

from bench.action_budget import budget, render

BARE = {"server": 600_000.0, "client": 400_000.0}
ACTION = {"post": 2_000_000.0, "pushes": 1_000_000.0, "bots": 500_000.0, "relay": 500_000.0}


def test_each_component_is_counted_in_bare_requests_and_summed() -> None:
    table = budget(BARE, ACTION)
    assert table.bare_total == 1_000_000
    assert [(row.component, row.in_bare) for row in table.action] == [
        ("post", 2.0),
        ("pushes", 1.0),
        ("bots", 0.5),
        ("relay", 0.5),
    ]
    assert [row.in_bare for row in table.bare] == [0.6, 0.4]
    assert table.action_total == 4_000_000
    assert table.ratio == 0.25


def test_a_floor_is_the_ratio_with_that_component_removed() -> None:
    floors = dict(budget(BARE, ACTION).floors)
    assert floors == {"post": 0.5, "pushes": 1 / 3, "bots": 1 / 3.5, "relay": 1 / 3.5}


def test_the_target_needs_the_instructions_above_its_share() -> None:
    assert budget(BARE, ACTION).needed == 2_000_000  # 4 bare requests of work, 2 allowed at 0.5
    assert budget(BARE, ACTION, target=0.25).needed == 0
    assert budget(BARE, {"post": 1_000_000.0}).needed == 0


def test_removing_the_only_component_leaves_no_bound() -> None:
    table = budget(BARE, {"post": 1_000_000.0})
    assert table.floors == [("post", float("inf"))]
    assert "floor without post: unbounded" in render("t", table)


def test_the_printed_table_names_every_row_with_its_count_and_share() -> None:
    text = render("cholek-tiga", budget(BARE, ACTION))
    lines = text.splitlines()
    assert lines[0] == "cholek-tiga"
    assert any(line.split()[-2:] == ["2,000,000", "2.000"] and "post" in line for line in lines)
    assert any("bare request: total" in line and line.split()[-2:] == ["1,000,000", "1.000"] for line in lines)
    assert any("streaming action: total" in line and line.split()[-2:] == ["4,000,000", "4.000"] for line in lines)
    assert "ratio (actions per bare request, equal instructions): 0.250 (target 0.5)" in text
    assert "floor without post: 0.500" in text
    assert "the target needs 2,000,000 instructions per action fewer (2.000 bare requests)" in text


@pytest.mark.parametrize("bare", [{}, {"server": 0.0}])
def test_a_bare_request_without_instructions_is_refused_naming_the_counts(bare: dict[str, float]) -> None:
    with pytest.raises(ValueError, match="bare request's instructions must be positive"):
        budget(bare, ACTION)


def test_an_action_without_instructions_is_refused() -> None:
    with pytest.raises(ValueError, match=r"an action's instructions must be positive, not 0 \({}\)"):
        budget(BARE, {})
