"""The application's caches of what never changes once committed: server seeds (`KnownSeeds`) and players with
their token hashes (`KnownPlayers`). Each answers from memory what it has seen and leaves the rest to the
store's ports (`services.app.ports`). The application's third cache, of folded table states, is
`services.app.folded_states.FoldedStates`."""

from __future__ import annotations

import hmac
from collections.abc import Iterable, Mapping

from infra.config import DEFAULT_CACHE_PLAYERS, CacheSizes
from infra.lru import Lru
from infra.players import Player, token_hash
from services.app.ports import Seeds


class KnownSeeds:
    """Seeds this process has seen committed: a stored seed never changes, so it need not be read twice.

    Only `remember` seeds after the transaction that read or made them has committed; a seed made in a
    transaction that rolled back must never be used.
    """

    def __init__(self, size: int = CacheSizes().seeds) -> None:
        self._seeds: Lru[tuple[str, int], bytes] = Lru(size)

    def clear(self) -> None:
        self._seeds.clear()

    def seeds_for(self, stored: Seeds, table_id: str, deal_numbers: Iterable[int]) -> dict[int, bytes]:
        """As `stored.seeds_for`, without asking it when every seed is known."""
        return self.lookup(stored, table_id, deal_numbers)[0]

    def lookup(
        self, stored: Seeds, table_id: str, deal_numbers: Iterable[int]
    ) -> tuple[dict[int, bytes], dict[int, bytes]]:
        """`seeds_for`, and the part of it `stored` gave (empty when every seed was known): what is left to
        `remember` once committed."""
        wanted = sorted({n for n in deal_numbers if n >= 1})
        known = {n: seed for n in wanted if (seed := self._seeds.get((table_id, n))) is not None}
        if len(known) == len(wanted):
            return known, {}
        read = stored.seeds_for(table_id, [n for n in wanted if n not in known])
        return known | read, read

    def remember(self, table_id: str, seeds: Mapping[int, bytes]) -> None:
        for deal_no, seed in seeds.items():
            self._seeds.put((table_id, deal_no), seed)


class KnownPlayers:
    """Players this process has seen, and the token hash of each: a player's id, name and token never change,
    so a known token is checked without a query (with the same constant-time comparison)."""

    def __init__(self, size: int = DEFAULT_CACHE_PLAYERS) -> None:
        self._players: Lru[str, Player] = Lru(size)
        self._token_hashes: Lru[str, str] = Lru(size)

    def clear(self) -> None:
        self._players.clear()
        self._token_hashes.clear()

    def for_token(self, token: str) -> Player | None:
        """The player of `token` when this process has seen it accepted before; None means "ask the store"."""
        player_id = token.partition(".")[0]
        known_hash = self._token_hashes.get(player_id)
        if known_hash is None or not hmac.compare_digest(known_hash, token_hash(token)):
            return None
        return self._players.get(player_id)

    def remember_token(self, player: Player, token: str) -> None:
        self.remember(player)
        self._token_hashes.put(player.id, token_hash(token))

    def remember(self, player: Player) -> None:
        self._players.put(player.id, player)

    def known(self, ids: list[str]) -> dict[str, Player]:
        return {p: player for p in ids if (player := self._players.get(p)) is not None}
