"""`cardledger simulate` against the real processes (`cardledger up`): both games, both bots, two tables each;
every requested deal completes without a single error answer, and the tables agree with what the bots did."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from services.cli import main as cli_main
from services.cli.simulate import main as simulate_main
from tests.e2e.bots import call
from tests.e2e.conftest import AUDITOR

pytestmark = pytest.mark.slow

CASES = [
    ("cholek-tiga", 2, "random"),
    ("cholek-tiga", 3, "greedy"),
    ("cha-kau-tsz", 2, "greedy"),
    ("cha-kau-tsz", 4, "random"),
]


@pytest.mark.parametrize(("game", "seats", "bot"), CASES, ids=[f"{g}-{n}-{b}" for g, n, b in CASES])
def test_simulate_plays_every_requested_deal(
    stack: str, game: str, seats: int, bot: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "result.json"
    argv = ["--url", stack, "--game", game, "--tables", "2", "--seats", str(seats), "--concurrency", "2"]
    argv += ["--bot", bot, "--deals", "2", "--auditor-token", AUDITOR, "--json", str(out), "--no-progress"]
    assert simulate_main(argv) == 0

    result = json.loads(out.read_text())
    summary = result["summary"]
    assert result["ok"] is True
    assert summary["deals_requested"] == summary["deals_completed"] == 4
    assert summary["deals_failed"] == 0
    assert summary["errors"] == {}
    assert summary["actions"] == sum(t["actions"] for t in result["tables"]) > 0
    assert summary["latency_ms"]["p50"] is not None
    printed = capsys.readouterr().out
    assert "deals completed" in printed and "4 / 4" in printed

    assert len(result["tables"]) == 2
    for table in result["tables"]:
        assert not table["failed"], table["error"]
        assert table["deals_completed"] == 2
        assert table["verified"] is True
        state = call("GET", f"{stack}/v1/tables/{table['table_id']}?min_version={table['version']}", token=AUDITOR)
        assert state["status"] == "between_deals" == table["status"]
        assert state["deal_no"] == 2
        assert state["version"] == table["version"]
        assert state["game"] == game and state["seats"] == seats
        deal = call("GET", f"{stack}/v1/tables/{table['table_id']}/deals/2", token=AUDITOR)
        assert deal["server_seed"] is not None and deal["verification"]["ok"] is True


HOLDING_CASES = [("cholek-tiga", 2), ("cha-kau-tsz", 3)]


@pytest.mark.parametrize("client", ["holding", "streaming"])
@pytest.mark.parametrize(("game", "seats"), HOLDING_CASES, ids=[f"{g}-{n}" for g, n in HOLDING_CASES])
def test_the_seat_clients_play_every_deal_from_the_views_they_hold(
    stack: str, game: str, seats: int, client: str, tmp_path: Path
) -> None:
    """Each seat keeps its view (holding: the one its action's answer carries, and long-polls for its turn;
    streaming: the ones its view stream pushes): every deal completes, verifies, and no request is refused (not
    even a 412: a seat acts only on its own turn)."""
    out = tmp_path / "result.json"
    argv = ["--url", stack, "--game", game, "--tables", "2", "--seats", str(seats), "--concurrency", "2"]
    argv += ["--client", client, "--deals", "2", "--auditor-token", AUDITOR, "--json", str(out), "--no-progress"]
    assert simulate_main(argv) == 0
    result = json.loads(out.read_text())
    summary = result["summary"]
    assert result["ok"] is True and result["config"]["client"] == client
    assert summary["deals_completed"] == 4 and summary["errors"] == {}
    assert summary["actions"] == sum(t["actions"] for t in result["tables"]) > 0
    for table in result["tables"]:
        assert table["verified"] is True and table["deals_completed"] == 2
        state = call("GET", f"{stack}/v1/tables/{table['table_id']}?min_version={table['version']}", token=AUDITOR)
        assert state["status"] == "between_deals" and state["deal_no"] == 2
        assert state["version"] == table["version"]


def test_simulate_through_the_cardledger_command(stack: str, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["simulate", "--url", stack, "--game", "cha-kau-tsz", "--tables", "1", "--seats", "3"]
    assert cli_main([*argv, "--concurrency", "1", "--no-progress"]) == 0
    assert "1 / 1" in capsys.readouterr().out


def test_a_failed_deal_makes_the_command_fail(capsys: pytest.CaptureFixture[str]) -> None:
    """Nothing listens on the port: the table cannot even be opened, and the exit status says so."""
    from services.cli.simulate.stack import free_port

    argv = ["--url", f"http://127.0.0.1:{free_port()}", "--game", "cholek-tiga", "--tables", "1", "--seats", "2"]
    assert simulate_main([*argv, "--concurrency", "1", "--no-progress"]) == 1
    assert "FAILED table #0" in capsys.readouterr().out


def absent_seed(probability: float, seats: int, stops_at: int) -> str:
    """A `--seed` whose first deal makes exactly seat 0 stop playing, at its `stops_at`-th turn (the runner draws
    these from the table's own generator, `Random(f"{seed}-0")`, before anything else)."""
    import random

    for n in range(100_000):
        seed = f"absent-{n}"
        rng = random.Random(f"{seed}-0")
        absent = {s: rng.randrange(20) for s in range(seats) if rng.random() < probability}
        if absent == {0: stops_at}:
            return seed
    raise AssertionError("no such seed")


@pytest.mark.parametrize("client", ["polling", "holding", "streaming"])
def test_simulate_with_an_absent_seat_counts_the_clock_s_actions(stack: str, client: str, tmp_path: Path) -> None:
    """Seat 0 never plays: the service's clock (turn_seconds 5) plays its whole deal. Every seat plays in every trick,
    so the clock always acts (a seat that stopped at a later turn could find the deal over first, in few long
    plays, and leave the clock nothing to do)."""
    out = tmp_path / "result.json"
    argv = ["--url", stack, "--game", "cha-kau-tsz", "--tables", "1", "--seats", "2", "--concurrency", "1"]
    argv += ["--absent", "0.5", "--seed", absent_seed(0.5, 2, 0), "--auditor-token", AUDITOR, "--client", client]
    assert simulate_main([*argv, "--json", str(out), "--no-progress"]) == 0
    result = json.loads(out.read_text())
    table = result["tables"][0]
    assert result["ok"] is True and table["deals_completed"] == 1 and table["verified"] is True
    deal = call("GET", f"{stack}/v1/tables/{table['table_id']}/deals/1", token=AUDITOR)
    assert deal["timed_out_actions"][1] == 0 and deal["timed_out_actions"][0] > 0
    assert result["summary"]["timed_out_actions"] == table["timed_out"] == deal["timed_out_actions"][0]


def test_tables_sharing_threads_play_every_deal_at_once(stack: str, tmp_path: Path) -> None:
    """`--threads 2` with 6 tables at once: two threads and two connections take turns between the tables, every
    deal completes and verifies, and the tables were in play together (each thread held three of them)."""
    out = tmp_path / "result.json"
    argv = ["--url", stack, "--game", "cholek-tiga", "--tables", "6", "--seats", "2", "--concurrency", "6"]
    argv += ["--threads", "2", "--deals", "2", "--auditor-token", AUDITOR, "--json", str(out), "--no-progress"]
    assert simulate_main(argv) == 0
    result = json.loads(out.read_text())
    summary = result["summary"]
    assert result["ok"] is True and result["config"]["threads"] == 2
    assert summary["deals_completed"] == 12 and summary["deals_failed"] == 0
    assert set(summary["errors"]) <= {"version_mismatch"}
    assert summary["actions"] == sum(t["actions"] for t in result["tables"]) > 0
    for table in result["tables"]:
        assert table["verified"] is True and table["deals_completed"] == 2
    # Interleaved: every table's first event came before any table's last (none was played to its end alone).
    firsts, lasts = [], []
    for table in result["tables"]:
        page = call("GET", f"{stack}/v1/tables/{table['table_id']}/events?after=0&limit=1000", token=AUDITOR)
        firsts.append(page["events"][0]["global_position"])
        lasts.append(page["events"][-1]["global_position"])
    assert max(firsts) < min(lasts)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--client", "holding"], "threads shares threads between tables with the polling client, not holding"),
        (["--absent", "0.5"], "threads cannot be combined with absent"),
    ],
)
def test_threads_is_refused_where_a_table_would_hold_up_the_others(
    extra: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["--url", "http://127.0.0.1:9", "--game", "cholek-tiga", "--tables", "2", "--seats", "2"]
    assert simulate_main([*argv, "--concurrency", "2", "--threads", "1", *extra, "--no-progress"]) == 2
    assert message in capsys.readouterr().err
