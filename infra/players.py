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
from typing import Any

import psycopg

Conn = psycopg.Connection[dict[str, Any]]


@dataclass(frozen=True, slots=True)
class Player:
    id: str
    name: str


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def register(conn: Conn, name: str) -> tuple[Player, str]:
    player_id = str(uuid.uuid4())
    token = f"{player_id}.{secrets.token_urlsafe(32)}"
    conn.execute("INSERT INTO players (id, name, token_hash) VALUES (%s, %s, %s)", (player_id, name, token_hash(token)))
    return Player(player_id, name), token


def player_for_token(conn: Conn, token: str) -> Player | None:
    player_id, _, secret = token.partition(".")
    if not secret or len(player_id) != 36:
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
