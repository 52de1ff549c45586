"""Bots play complete deals of both games over HTTP against the real processes
(`cardledger up`: gunicorn, relay, projection workers), and the results, the
ledger and the reports agree with the pure domain replaying the same events."""

from __future__ import annotations

import random
import time

import pytest

from domain.events import Event
from domain.table import fold
from tests.e2e.bots import call, open_and_fill, play_deal
from tests.e2e.conftest import AUDITOR

pytestmark = pytest.mark.slow

CASES = [("cholek-tiga", 2), ("cholek-tiga", 3), ("cha-kau-tsz", 2), ("cha-kau-tsz", 3), ("cha-kau-tsz", 4)]


def all_events(base_url: str, table_id: str) -> list[dict]:  # type: ignore[type-arg]
    events: list[dict] = []  # type: ignore[type-arg]
    after = 0
    while True:
        page = call("GET", f"{base_url}/v1/tables/{table_id}/events?after={after}&limit=500", token=AUDITOR)
        if not page["events"]:
            return events
        events += page["events"]
        after = page["next_after"]


def wait_for_ledger(base_url: str, table_id: str, lines: int, token: str) -> dict:  # type: ignore[type-arg]
    """The table's ledger once it holds `lines` lines (a deal where every player ties moves no money)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        ledger = call("GET", f"{base_url}/v1/tables/{table_id}/ledger", token=token)
        if len(ledger["lines"]) >= lines:
            return ledger  # type: ignore[no-any-return]
        time.sleep(0.2)
    raise AssertionError(f"ledger of {table_id} did not reach {lines} lines")


@pytest.mark.parametrize(("game", "seats"), CASES, ids=[f"{g}-{n}" for g, n in CASES])
def test_bots_play_a_complete_deal_and_everything_agrees(stack: str, game: str, seats: int) -> None:
    rng = random.Random(f"{game}{seats}")
    table_id, seated = open_and_fill(stack, game, seats)
    actions, version = play_deal(stack, table_id, seated, rng)
    assert actions > 0

    table = call("GET", f"{stack}/v1/tables/{table_id}?min_version={version}", token=seated[0].token)
    assert table["status"] == "between_deals"

    # The lobby is a projection built by the workers: the table shows there too, with its new status.
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        lobby = call("GET", f"{stack}/v1/tables?game={game}&limit=100", token=seated[0].token)
        listed = [t for t in lobby["tables"] if t["id"] == table_id]
        if listed and listed[0]["status"] == "between_deals":
            break
        time.sleep(0.2)
    else:
        raise AssertionError(f"table {table_id} did not reach the lobby as between_deals")

    # The domain, replaying the full log (open to the auditor after the deal), reaches the same state.
    events = all_events(stack, table_id)
    state = fold(None, (Event(e["type"], e["data"]) for e in events))
    assert state.version == table["version"] == events[-1]["position"]
    ended = [e for e in events if e["type"] == "deal_ended"]
    assert len(ended) == 1
    result = ended[0]["data"]["result"]

    record = call("GET", f"{stack}/v1/tables/{table_id}/deals/1", token=seated[1].token)
    assert record["verification"]["ok"] is True, record["verification"]
    assert record["server_seed"] == ended[0]["data"]["server_seed"]
    assert record["result"]["net"] == result["net"]

    # The ledger (two lines per transfer in the log) balances and matches the deal's net by seat.
    transfers = sum(len(e["data"].get("transfers", ())) for e in events)
    ledger = wait_for_ledger(stack, table_id, 2 * transfers, AUDITOR)
    assert len(ledger["lines"]) == 2 * transfers
    assert ledger["balanced"] is True
    by_player: dict[str, int] = {}
    for line in ledger["lines"]:
        if line.get("player_id"):
            by_player[line["player_id"]] = by_player.get(line["player_id"], 0) + line["amount"]
    for seat in seated:
        assert by_player.get(seat.player_id, 0) == result["net"][seat.seat]

    # Each player's settlement report shows the same net for this table.
    for seat in seated:
        report = call(
            "GET", f"{stack}/v1/reports/settlement?table_id={table_id}&player_id={seat.player_id}", token=seat.token
        )
        rows = [r for r in report["rows"] if r["player_id"] == seat.player_id and r["table_id"] == table_id]
        assert len(rows) == 1
        assert rows[0]["net_amount"] == result["net"][seat.seat]
