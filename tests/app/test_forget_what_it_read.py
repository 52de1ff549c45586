"""After the database server is lost, the application forgets what it read: the server that takes over may hold
less (an asynchronous standby), and a state, seed or player kept from the lost one would decide against it."""

from __future__ import annotations

from services.bootstrap import in_memory_application


def test_the_caches_of_what_the_database_said_are_emptied() -> None:
    ledger = in_memory_application()
    player = ledger.identity.register_player("ada")
    caller = ledger.identity.authenticate(str(player["token"]))
    assert caller is not None
    table = ledger.open_table(caller, "cholek-tiga", 2, {})
    table_id = str(table["id"])
    ledger.sit(caller, table_id, 0, "seed-0")
    assert len(ledger.states) == 1 and ledger.players.for_token(str(player["token"])) is not None
    assert set(ledger.commands.seeds.seeds_for(_NoSeeds(), table_id, [1])) == {1}
    ledger.forget_what_it_read()
    assert len(ledger.states) == 0
    assert ledger.players.for_token(str(player["token"])) is None
    assert ledger.commands.seeds.seeds_for(_NoSeeds(), table_id, [1]) == {}
    # and it reads again what it needs, from the storage
    assert ledger.identity.authenticate(str(player["token"])) is not None


class _NoSeeds:
    """A store that holds no seed: what is left in the cache is what `seeds_for` answers."""

    def seeds_for(self, table_id: str, deal_numbers: list[int]) -> dict[int, bytes]:
        return {}
