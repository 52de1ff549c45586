"""Players: registration and who a bearer token is."""

from __future__ import annotations

import hmac
from typing import Any

from psycopg_pool import ConnectionPool

from domain.events import JSON
from infra import players as player_store
from infra.players import KnownPlayers
from services.app.callers import AUDITOR_CALLER, Caller


class Identity:
    def __init__(self, pool: ConnectionPool[Any], auditor_token: str | None, players: KnownPlayers) -> None:
        self.pool = pool
        self.auditor_token = auditor_token
        self.players = players

    def register_player(self, name: str) -> dict[str, JSON]:
        with self.pool.connection() as conn:
            player, token = player_store.register(conn, name)
        self.players.remember_token(player, token)
        return {"id": player.id, "name": player.name, "token": token}

    def authenticate(self, token: str) -> Caller | None:
        if self.auditor_token and hmac.compare_digest(token.encode(), self.auditor_token.encode()):
            return AUDITOR_CALLER
        player = self.players.for_token(token)
        if player is None:
            with self.pool.connection() as conn:
                player = player_store.player_for_token(conn, token)
            if player is None:
                return None
            self.players.remember_token(player, token)
        return Caller(player.id, player.name)
