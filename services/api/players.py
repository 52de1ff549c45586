"""POST /v1/players: open registration."""

from __future__ import annotations

from typing import Any

from services.api.deps import container
from services.api.routing import Blueprint, errors
from services.api.schemas import PlayerCreateSchema, PlayerSchema
from services.api.spec_examples import PLAYER, PLAYER_CREATE

blp = Blueprint("players", __name__, url_prefix="/v1/players", description="Registration of players")


@blp.route("", methods=["POST"])
@blp.doc(operationId="registerPlayer")
@errors(blp, 400, 429)
@blp.arguments(PlayerCreateSchema(), example=PLAYER_CREATE)
@blp.response(201, PlayerSchema, example=PLAYER)
def register(body: dict[str, Any]) -> dict[str, Any]:
    """Register a player; the bearer token in the answer is shown only this once."""
    return container().ledger.register_player(body["name"])
