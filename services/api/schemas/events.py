"""Schemas of the events as a viewer receives them (`services.application.event_json`), one per `type`.

A `private` block (the cards dealt or drawn to a seat) is shown only to the seat that holds it while its deal is
on, then to every seated player and the auditor; a bystander and the live stream never see it. So every
`private` below is optional: its absence is the redacted form. `private_commitment` (hash version 2) stays in
every form. An event the turn clock wrote for an absent seat carries `timed_out: true`.
Payloads pass on keys they do not declare (an older event may lack a newer key, a newer one add some).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from marshmallow import INCLUDE, Schema, fields

from domain.cha_kau_tsz.dealing import HAND_DEALT, HAND_STARTED
from domain.cha_kau_tsz.decide import CARDS_PLAYED, HAND_SCORED, TRICK_WON
from domain.cholek_tiga import events as cholek
from domain.games import GAME_NAMES
from domain.table import (
    DEAL_ENDED,
    DEAL_STARTED,
    PLAYER_LEFT,
    PLAYER_READY,
    PLAYER_SEATED,
    TABLE_CLOSED,
    TABLE_OPENED,
)
from services.api.schemas.game import CARD, CHERKI_CARD, OPTIONS, RESULT, SAMPEN_CARD
from services.api.spec.types import TaggedUnionSchema, ref, tag

_INT = {"type": "integer"}
_INTS = {"type": "array", "items": _INT}
_SEAT = {"type": "integer", "minimum": 0, "description": "seat number, from 0"}
_HEX = {"type": "string", "pattern": "^[0-9a-f]{64}$"}


def _typed(schema: Mapping[str, Any], description: str = "", **kwargs: Any) -> fields.Raw:
    """A value passed on as the log holds it, documented as `schema`."""
    document = {**schema, "description": description} if description else dict(schema)
    return fields.Raw(metadata={"openapi": document}, **kwargs)


def _cards(card: Mapping[str, Any], description: str = "", **kwargs: Any) -> fields.Raw:
    return _typed({"type": "array", "items": dict(card)}, description, **kwargs)


class _Payload(Schema):
    class Meta:
        unknown = INCLUDE


class TransferDataSchema(_Payload):
    payer = _typed({"type": "string"}, "account: `seat:N`, `pool` or `player:<id>`", required=True)
    payee = _typed({"type": "string"}, required=True)
    amount = _typed({"type": "integer", "minimum": 1}, "in the deal's unit", required=True)
    reason = _typed({"type": "string"}, required=True)


class PrivateCardsSchema(_Payload):
    """The hidden part of a dealing event: only for the seat holding the cards until the deal ends."""

    cards = _cards(CARD, required=True)
    salt = _typed({"type": "string"}, "hash version 2: 64 hex digits, so the commitment cannot be guessed")


def _private() -> fields.Nested:
    return fields.Nested(PrivateCardsSchema, metadata={"description": "absent where the viewer may not see it"})


def _private_commitment() -> fields.Raw:
    return _typed(_HEX, "hash version 2: SHA-256 (hex) of the private block's canonical JSON, salt included")


def _timed_out() -> fields.Raw:
    return _typed({"type": "boolean", "const": True}, "the turn clock acted for the seat (docs/house-rules.md)")


# Table events -------------------------------------------------------------------


class TableOpenedDataSchema(_Payload):
    table_id = _typed({"type": "string", "format": "uuid"}, required=True)
    game = _typed({"type": "string", "enum": list(GAME_NAMES)}, required=True)
    seats = _typed(_INT, required=True)
    options = fields.Raw(required=True, metadata={"openapi": OPTIONS})
    commitment = _typed(_HEX, "SHA-256 of the first deal's server seed", required=True)


class PlayerSeatedDataSchema(_Payload):
    seat = _typed(_SEAT, required=True)
    player_id = _typed({"type": "string"}, required=True)
    client_seed = _typed({"type": "string"}, required=True)


class DealStartedDataSchema(_Payload):
    deal_no = _typed(_INT, required=True)
    commitment = _typed(_HEX, "SHA-256 of this deal's server seed", required=True)
    client_seeds = _typed({"type": "array", "items": {"type": "string"}}, "by seat", required=True)
    players = _typed({"type": "array", "items": {"type": ["string", "null"]}}, "the deal's players by seat")


class DealEndedDataSchema(_Payload):
    deal_no = _typed(_INT, required=True)
    server_seed = _typed({"type": "string", "pattern": "^[0-9a-f]+$"}, "hex", required=True)
    commitment = _typed(_HEX, required=True)
    client_seeds = _typed({"type": "array", "items": {"type": "string"}}, required=True)
    result = fields.Raw(required=True, metadata={"openapi": RESULT, "description": "the game's result of the deal"})
    transfers = fields.List(fields.Nested(TransferDataSchema), required=True)
    unit = _typed({"type": "string", "enum": ["cents", "points"]}, required=True)
    carry = _typed({"type": "object"}, "the game's state carried to the next deal", required=True)
    next_commitment = _typed(_HEX, required=True)


class PlayerReadyDataSchema(_Payload):
    seat = _typed(_SEAT, required=True)
    deal_no = _typed(_INT, "the deal the seat is ready for", required=True)
    client_seed = _typed({"type": "string"}, required=True)


class TableClosedDataSchema(_Payload):
    deal_no = _typed(_INT, required=True)
    seat = _typed(_SEAT, "the seat that closed it")
    reason = _typed({"type": "string"}, "`abandoned` when the service closed it")
    transfers = fields.List(fields.Nested(TransferDataSchema), metadata={"description": "the pool paid back"})
    unit = _typed({"type": "string"})


class PlayerLeftDataSchema(_Payload):
    seat = _typed(_SEAT, required=True)
    player_id = _typed({"type": "string"}, required=True)
    deal_no = _typed(_INT, required=True)
    timed_out = _timed_out()


# Cholek Tiga ------------------------------------------------------------------------


class CardsDrawnDataSchema(_Payload):
    seat = _typed(_SEAT, required=True)
    round = _typed(_INT, required=True)
    count = _typed(_INT, required=True)
    deck_indexes = _typed(_INTS, "positions of the cards in the shuffled deck", required=True)
    private = _private()
    private_commitment = _private_commitment()


class CardDiscardedDataSchema(_Payload):
    seat = _typed(_SEAT, required=True)
    card = _typed(CHERKI_CARD, required=True)
    capture = _typed({"type": ["array", "null"], "items": CHERKI_CARD}, required=True)
    timed_out = _timed_out()


class CardTurnedUpDataSchema(_Payload):
    seat = _typed(_SEAT, required=True)
    card = _typed(CHERKI_CARD, required=True)
    cards = _cards(CHERKI_CARD, required=True)
    deck_indexes = _typed(_INTS, required=True)
    can_capture = _typed({"type": "boolean"}, "true: the seat must capture with it or pass", required=True)


class TurnUpCapturedDataSchema(_Payload):
    seat = _typed(_SEAT, required=True)
    card = _typed(CHERKI_CARD, required=True)
    capture = _cards(CHERKI_CARD, required=True)


class TurnUpPassedDataSchema(_Payload):
    seat = _typed(_SEAT, required=True)
    card = _typed(CHERKI_CARD, required=True)
    timed_out = _timed_out()


class BonusPaidDataSchema(_Payload):
    seat = _typed(_SEAT, required=True)
    kind = _typed({"type": "string", "enum": ["ayam", "kandang"]}, required=True)
    card = _typed(CHERKI_CARD, required=True)
    transfers = fields.List(fields.Nested(TransferDataSchema), required=True)


# Cha Kau Tsz ------------------------------------------------------------------------


class HandStartedDataSchema(_Payload):
    hand_no = _typed(_INT, required=True)
    dealer = _typed(_SEAT, required=True)
    leader = _typed(_SEAT, required=True)
    hand_size = _typed(_INT, required=True)
    pool_game = _typed(_INT, required=True)


class HandDealtDataSchema(_Payload):
    seat = _typed(_SEAT, required=True)
    count = _typed(_INT, required=True)
    deck_indexes = _typed(_INTS, required=True)
    private = _private()
    private_commitment = _private_commitment()


class CardsPlayedDataSchema(_Payload):
    seat = _typed(_SEAT, required=True)
    cards = _cards(SAMPEN_CARD, required=True)
    lead = _typed({"type": "boolean"}, required=True)
    trick_no = _typed(_INT, required=True)
    timed_out = _timed_out()


class TrickWonDataSchema(_Payload):
    seat = _typed(_SEAT, required=True)
    tricks = _typed(_INT, "tricks credited: the number of cards led", required=True)
    trick_no = _typed(_INT, required=True)
    total = _typed(_INT, required=True)


class HandScoredDataSchema(_Payload):
    hand_no = _typed(_INT, required=True)
    tricks = _typed(_INTS, "by seat", required=True)
    most = _typed(_INT, required=True)
    payments = _typed(_INTS, "points each seat pays into the pool", required=True)
    pool_winner = _typed({"type": ["integer", "null"]}, required=True)
    pool_won = _typed(_INT, required=True)


DATA_SCHEMAS: dict[str, type[Schema]] = {
    TABLE_OPENED: TableOpenedDataSchema,
    PLAYER_SEATED: PlayerSeatedDataSchema,
    DEAL_STARTED: DealStartedDataSchema,
    DEAL_ENDED: DealEndedDataSchema,
    PLAYER_READY: PlayerReadyDataSchema,
    TABLE_CLOSED: TableClosedDataSchema,
    PLAYER_LEFT: PlayerLeftDataSchema,
    cholek.CARDS_DRAWN: CardsDrawnDataSchema,
    cholek.CARD_DISCARDED: CardDiscardedDataSchema,
    cholek.CARD_TURNED_UP: CardTurnedUpDataSchema,
    cholek.TURN_UP_CAPTURED: TurnUpCapturedDataSchema,
    cholek.TURN_UP_PASSED: TurnUpPassedDataSchema,
    cholek.BONUS_PAID: BonusPaidDataSchema,
    HAND_STARTED: HandStartedDataSchema,
    HAND_DEALT: HandDealtDataSchema,
    CARDS_PLAYED: CardsPlayedDataSchema,
    TRICK_WON: TrickWonDataSchema,
    HAND_SCORED: HandScoredDataSchema,
}
EVENT_TYPES = tuple(DATA_SCHEMAS)


class EventBaseSchema(Schema):
    """What every event has, as GET /v1/tables/{table_id}/events shows it to the caller."""

    class Meta:
        unknown = INCLUDE

    position = fields.Integer(required=True, metadata={"description": "version in the table stream"})
    global_position = fields.Integer(required=True)
    type = fields.String(required=True, metadata={"enum": list(EVENT_TYPES)})
    deal_no = fields.Integer(required=True, metadata={"description": "0 before the first deal"})
    occurred_at = fields.String(
        required=True,
        metadata={"format": "date-time", "description": "the exact text the hash covers (UTC, microseconds, Z)"},
    )
    data = fields.Dict(required=True, metadata={"description": "the payload; its shape depends on `type`"})
    metadata = fields.Dict(metadata={"description": "actor (a player id, `clock` or `auditor`) and request id"})
    schema_version = fields.Integer()
    hash_version = fields.Integer(
        metadata={"description": "1: the hash covers the whole data; 2: the private block only through its commitment"}
    )
    prev_hash = fields.String(
        required=True, allow_none=True, metadata={"description": "null where `hash` of the event before is withheld"}
    )
    hash = fields.String(
        required=True,
        allow_none=True,
        metadata={
            "description": "null for a hash-version-1 event whose private block the caller may not see "
            "(that hash covers the block whole, so it would give the cards away)"
        },
    )


def _event_schema(event_type: str, data: type[Schema]) -> type[Schema]:
    name = "".join(part.title() for part in event_type.split("_")) + "EventSchema"
    attributes = {
        "type": tag(event_type),
        "data": fields.Nested(data, required=True),
        "__doc__": f"A `{event_type}` event.",
        "__module__": __name__,
    }
    return type(name, (EventBaseSchema,), attributes)


EVENT_SCHEMAS: dict[str, type[Schema]] = {kind: _event_schema(kind, data) for kind, data in DATA_SCHEMAS.items()}


class EventSchema(TaggedUnionSchema):
    """An event as the caller may see it, by `type` (redacted forms included: see each `private`)."""

    TAG = "type"
    VARIANTS = EVENT_SCHEMAS


EVENT = ref(EventSchema)
