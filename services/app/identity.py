"""Players: registration and who a bearer token is."""

from __future__ import annotations

import hmac

from domain.events import JSON
from services.app.caches import KnownPlayers
from services.app.callers import AUDITOR_CALLER, Caller
from services.app.ports import Storage


class Identity:
    def __init__(self, storage: Storage, auditor_token: str | None, players: KnownPlayers) -> None:
        self.storage = storage
        self.auditor_token = auditor_token
        self.players = players

    def register_player(self, name: str) -> dict[str, JSON]:
        with self.storage.session() as conn:
            player, token = conn.register_player(name)
        self.players.remember_token(player, token)
        return {"id": player.id, "name": player.name, "token": token}

    def authenticate(self, token: str) -> Caller | None:
        if self.auditor_token and hmac.compare_digest(token.encode(), self.auditor_token.encode()):
            return AUDITOR_CALLER
        player = self.players.for_token(token)
        if player is None:
            with self.storage.session() as conn:
                player = conn.player_for_token(token)
            if player is None:
                return None
            self.players.remember_token(player, token)
        return Caller(player.id, player.name)
