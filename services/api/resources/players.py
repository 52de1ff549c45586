"""POST /v1/players: open registration; GET /v1/players/me: who the bearer token names."""

from __future__ import annotations

from typing import Any

from services.api.deps import container
from services.api.middleware.auth import caller
from services.api.routing import Blueprint, RateLimit, errors, secured
from services.api.schemas.answers import PlayerCreateSchema, PlayerSchema, WhoAmISchema
from services.api.spec.examples import PLAYER, PLAYER_CREATE, WHO_AM_I

blp = Blueprint(
    "players",
    __name__,
    url_prefix="/v1/players",
    description="Registration of players",
    rate_limit=RateLimit("registration", per="address"),
)


@blp.route("", methods=["POST"])
@errors(blp, 400, 429, operationId="registerPlayer")
@blp.arguments(PlayerCreateSchema(), example=PLAYER_CREATE)
@blp.response(201, PlayerSchema, example=PLAYER)
def register(body: dict[str, Any]) -> dict[str, Any]:
    """Register a player; the bearer token in the answer is shown only this once."""
    return container().ledger.identity.register_player(body["name"])


@blp.route("/me", methods=["GET"])
@secured(blp, operationId="whoAmI")
@blp.response(200, WhoAmISchema, example=WHO_AM_I)
def me() -> dict[str, Any]:
    """The caller the bearer token names: a player (its id and name) or the auditor (id null)."""
    found = caller()
    if found.is_auditor:
        return {"id": None, "name": "auditor", "role": "auditor"}
    return {"id": found.player_id, "name": found.name, "role": "player"}
