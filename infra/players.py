"""Players and their bearer tokens. Only a SHA-256 of each token is stored.

A token is "<player id>.<secret>": the id finds the row, and the hash of the
whole token is compared with `hmac.compare_digest`, so the comparison takes
the same time however much of a guessed token is right.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import uuid
from dataclasses import dataclass

from infra.db import Conn


@dataclass(frozen=True, slots=True)
class Player:
    id: str
    name: str


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_player(name: str) -> tuple[Player, str]:
    """A new player and its token, not yet stored."""
    player_id = str(uuid.uuid4())
    return Player(player_id, name), f"{player_id}.{secrets.token_urlsafe(32)}"


def token_player_id(token: str) -> str | None:
    """The player id a token names, or None when it is not shaped as a token."""
    player_id, _, secret = token.partition(".")
    return player_id if secret and len(player_id) == 36 else None


def register(conn: Conn, name: str) -> tuple[Player, str]:
    player, token = new_player(name)
    conn.execute("INSERT INTO players (id, name, token_hash) VALUES (%s, %s, %s)", (player.id, name, token_hash(token)))
    return player, token


def player_for_token(conn: Conn, token: str) -> Player | None:
    player_id = token_player_id(token)
    if player_id is None:
        return None
    row = conn.execute("SELECT id, name, token_hash FROM players WHERE id = %s", (player_id,)).fetchone()
    if row is None:
        return None
    if not hmac.compare_digest(str(row["token_hash"]), token_hash(token)):
        return None
    return Player(str(row["id"]), str(row["name"]))


def players_by_id(conn: Conn, ids: list[str]) -> dict[str, Player]:
    rows = conn.execute("SELECT id, name FROM players WHERE id = ANY(%s)", (ids,)).fetchall()
    return {str(r["id"]): Player(str(r["id"]), str(r["name"])) for r in rows}
