"""`cardledger verify --url` on ordinary tables says "tampered" (exit 1) only on evidence.

Tables of both games and 2, 3 and 4 seats play several deals through the API; then every seated player's token
verifies every table, stopped between deals and in the middle of one, and must exit 0. A player who left keeps
the right to verify every deal they played (labelled as the seat they held), and a check that cannot be made
for want of something the viewer may not see is "not checkable", never a failure."""

from __future__ import annotations

import json
import random

import pytest

from tests.api.conftest import AUDITOR_TOKEN, Api, play_deal, seated_table
from tests.api.test_remote_verify import Verify, base_url, verify

__all__ = ["base_url", "verify"]


def ready_all(api: Api, table_id: str, tokens: list[str]) -> None:
    for token in tokens:
        api.act(token, table_id, {"type": "ready"})


@pytest.mark.slow
@pytest.mark.parametrize(
    ("game", "seats"), [("cholek-tiga", 2), ("cholek-tiga", 3), ("cha-kau-tsz", 2), ("cha-kau-tsz", 4)]
)
def test_every_seated_player_verifies_every_table_between_deals_and_mid_deal(
    api: Api, base_url: str, verify: Verify, game: str, seats: int
) -> None:
    rng = random.Random(f"{game}-{seats}")
    table_id, tokens = seated_table(api, game, seats)
    for deal in range(3):
        play_deal(api, table_id, tokens, rng)
        for token in tokens:  # between deals
            code, out, err = verify(base_url, token, table_id)
            assert code == 0, f"between deals {deal + 1} and {deal + 2}, {out}{err}"
            assert "as seat" in out.splitlines()[0]
        ready_all(api, table_id, tokens)
        play_deal(api, table_id, tokens, rng, moves=3)
        for token in tokens:  # in the middle of the next deal
            code, out, err = verify(base_url, token, table_id)
            assert code == 0, f"in deal {deal + 2}, {out}{err}"
    code, out, err = verify(base_url, AUDITOR_TOKEN, table_id)
    assert code == 0 and "as the auditor" in out.splitlines()[0], out + err


@pytest.mark.parametrize("game", ["cholek-tiga", "cha-kau-tsz"])
def test_a_player_who_left_verifies_every_deal_they_played(api: Api, base_url: str, verify: Verify, game: str) -> None:
    rng = random.Random(game)
    table_id, tokens = seated_table(api, game, 2)
    play_deal(api, table_id, tokens, rng)
    leaver = tokens[1]
    api.act(leaver, table_id, {"type": "leave"})
    newcomer = api.register("newcomer")[1]
    api.sit(newcomer, table_id, 1)  # the seat changes hands; sitting counts as ready
    api.act(tokens[0], table_id, {"type": "ready"})
    play_deal(api, table_id, [tokens[0], newcomer], rng, moves=3)

    code, out, err = verify(base_url, leaver, table_id, "--json")
    shown = json.loads(out)
    assert code == 0, json.dumps(shown, indent=1) + err
    assert shown["viewer"] == "seat 1 of deal 1", shown["viewer"]
    assert shown["deals_checked"] == 1
