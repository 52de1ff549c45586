"""Schemas of what differs by game: card codes, table options, the body that opens a table, actions and the legal
actions of a seat view. Requests are loaded by the variant their tag names (`TaggedUnionSchema`); options and
cards are checked by the rules themselves (`domain`), which name the option or card at fault, and documented here
with the same bounds."""

from __future__ import annotations

import copy
from typing import Any

from marshmallow import INCLUDE, RAISE, Schema, fields, validate

from domain.cards import CHERKI_TYPES, SAMPEN_TYPES
from domain.cha_kau_tsz.options import (
    DEFAULT_CHIP_VALUE_CENTS,
    DEFAULT_CHIP_VALUES,
    DEFAULT_TARGETS,
    MAX_CHIP_VALUE,
    MAX_CHIP_VALUE_CENTS,
    hand_size,
)
from domain.cha_kau_tsz.rules import CHA_KAU_TSZ
from domain.cholek_tiga.options import DEFAULT_OPTIONS, HONOURS_RANKS, MAX_POINT_VALUE_CENTS
from domain.cholek_tiga.rules import CHOLEK_TIGA
from domain.table import DEFAULT_TURN_SECONDS, MAX_TURN_SECONDS, MIN_TURN_SECONDS
from services.api.spec.types import FullMatch, TaggedUnionSchema, any_of, ref, tag

PRINTABLE = FullMatch(r"^[^\x00-\x1f\x7f]*$", error="must not contain control characters")
ASCII_PRINTABLE = FullMatch(r"^[\x20-\x7e]*$", error="must be printable ASCII")
CLIENT_SEED_MAX = 256

CHERKI_CARD = {"type": "string", "enum": list(CHERKI_TYPES), "description": "a Cherki card code (docs/rules.md)"}
SAMPEN_CARD = {"type": "string", "enum": list(SAMPEN_TYPES), "description": "a Sampen card code (docs/rules.md)"}
CARD = {"type": "string", "enum": list(dict.fromkeys((*CHERKI_TYPES, *SAMPEN_TYPES))), "description": "a card code"}


def card_field(document: dict[str, Any], **kwargs: Any) -> fields.String:
    """A card code: checked by the rules (422 `unknown_card`), documented as the deck's codes."""
    return fields.String(
        validate=[validate.Length(min=1, max=8), ASCII_PRINTABLE], metadata={"openapi": document}, **kwargs
    )


def client_seed_field() -> fields.String:
    return fields.String(
        allow_none=True,
        validate=[validate.Length(max=CLIENT_SEED_MAX), PRINTABLE],
        metadata={"description": "your contribution to the next deal's shuffle (docs/rules.md); empty by default"},
    )


# Options ----------------------------------------------------------------------

TURN_SECONDS = {
    "type": "integer",
    "minimum": 0,
    "maximum": MAX_TURN_SECONDS,
    "not": {"minimum": 1, "maximum": MIN_TURN_SECONDS - 1},
    "default": DEFAULT_TURN_SECONDS,
    "description": f"the turn clock: 0 for none, else {MIN_TURN_SECONDS} to {MAX_TURN_SECONDS} seconds "
    "(docs/house-rules.md)",
}


class CholekTigaOptionsSchema(Schema):
    """Cholek Tiga's options (docs/rules.md); each has a default."""

    class Meta:
        unknown = RAISE

    honours_rank = fields.String(
        validate=validate.OneOf(HONOURS_RANKS),
        metadata={"default": DEFAULT_OPTIONS["honours_rank"], "description": "`ace`: honours capture as aces"},
    )
    point_value_cents = fields.Integer(
        strict=True,
        validate=validate.Range(min=0, max=MAX_POINT_VALUE_CENTS),
        metadata={"default": DEFAULT_OPTIONS["point_value_cents"]},
    )
    currency = fields.String(validate=validate.Regexp(r"^[A-Z]{3}$"), metadata={"default": DEFAULT_OPTIONS["currency"]})
    in_play_bonuses = fields.Boolean(metadata={"default": DEFAULT_OPTIONS["in_play_bonuses"]})
    turn_seconds = fields.Integer(strict=True, metadata={"openapi": TURN_SECONDS})


class ChipValuesSchema(Schema):
    class Meta:
        unknown = RAISE

    white = fields.Integer(strict=True, required=True, validate=validate.Range(min=1, max=MAX_CHIP_VALUE))
    red = fields.Integer(strict=True, required=True, validate=validate.Range(min=1, max=MAX_CHIP_VALUE))
    blue = fields.Integer(strict=True, required=True, validate=validate.Range(min=1, max=MAX_CHIP_VALUE))


_TARGETS = {seats: (hand_size(seats) // 2 + 1, hand_size(seats)) for seats in range(2, CHA_KAU_TSZ.max_seats + 1)}


class ChaKauTszOptionsSchema(Schema):
    """Cha Kau Tsz's options (docs/rules.md); each has a default."""

    class Meta:
        unknown = RAISE

    pool_target_tricks = fields.Integer(
        strict=True,
        validate=validate.Range(min=min(low for low, _ in _TARGETS.values()), max=max(h for _, h in _TARGETS.values())),
        metadata={
            "description": "tricks that win the pool: more than half the hand and at most all of it ("
            + "; ".join(f"{low} to {high} with {seats} players" for seats, (low, high) in _TARGETS.items())
            + "); default "
            + ", ".join(f"{target} with {seats}" for seats, target in DEFAULT_TARGETS.items())
        },
    )
    chip_values = fields.Nested(
        ChipValuesSchema, metadata={"default": dict(DEFAULT_CHIP_VALUES), "description": "points of each colour"}
    )
    chip_value_cents = fields.Integer(
        strict=True,
        validate=validate.Range(min=0, max=MAX_CHIP_VALUE_CENTS),
        metadata={"default": DEFAULT_CHIP_VALUE_CENTS},
    )
    turn_seconds = fields.Integer(strict=True, metadata={"openapi": TURN_SECONDS})


def _as_set(schema: type[Schema], name: str, game: str) -> type[Schema]:
    """`schema` as a table holds its options: every one present, defaults filled in (but `turn_seconds`, absent
    at a table opened before the turn clock)."""
    declared = {}
    for key, field in schema().declared_fields.items():
        declared[key] = copy.copy(field)
        declared[key].required = key != "turn_seconds"
    settings = Schema.from_dict(declared, name=name)
    settings.__doc__ = f"{game}'s options as the table has them: every one, defaults filled in."
    return settings


CholekTigaSettingsSchema = _as_set(CholekTigaOptionsSchema, "CholekTigaSettingsSchema", "Cholek Tiga")
ChaKauTszSettingsSchema = _as_set(ChaKauTszOptionsSchema, "ChaKauTszSettingsSchema", "Cha Kau Tsz")
OPTIONS = any_of(ref(CholekTigaSettingsSchema), ref(ChaKauTszSettingsSchema))


def _options_field(schema: type[Schema]) -> fields.Dict:
    return fields.Dict(
        keys=fields.String(),
        load_default=dict,
        metadata={
            "openapi": ref(schema),
            "description": "per-table settings; unknown or out-of-range ones are a 422 naming them",
        },
    )


# Opening a table ------------------------------------------------------------------


class CholekTigaTableCreateSchema(Schema):
    class Meta:
        unknown = RAISE

    game = tag(CHOLEK_TIGA.name)
    seats = fields.Integer(
        strict=True, required=True, validate=validate.Range(min=CHOLEK_TIGA.min_seats, max=CHOLEK_TIGA.max_seats)
    )
    options = _options_field(CholekTigaOptionsSchema)


class ChaKauTszTableCreateSchema(Schema):
    class Meta:
        unknown = RAISE

    # The bound of pool_target_tricks depends on the seats; the rules refuse the rest (422).
    OPENAPI_EXTRA = {
        "if": {"properties": {"seats": {"const": 2}}},
        "else": {"properties": {"options": {"properties": {"pool_target_tricks": {"maximum": _TARGETS[3][1]}}}}},
    }

    game = tag(CHA_KAU_TSZ.name)
    seats = fields.Integer(
        strict=True, required=True, validate=validate.Range(min=CHA_KAU_TSZ.min_seats, max=CHA_KAU_TSZ.max_seats)
    )
    options = _options_field(ChaKauTszOptionsSchema)


class TableCreateSchema(TaggedUnionSchema):
    """The game, its number of players and its options."""

    TAG = "game"
    VARIANTS = {CHOLEK_TIGA.name: CholekTigaTableCreateSchema, CHA_KAU_TSZ.name: ChaKauTszTableCreateSchema}


# Actions ------------------------------------------------------------------------


class DiscardActionSchema(Schema):
    """Cholek Tiga: discard a card of your hand, taking with it a pair from the pool (`capture`) or nothing."""

    class Meta:
        unknown = RAISE

    type = tag("discard")
    card = card_field(CHERKI_CARD, required=True)
    capture = fields.List(
        card_field(CHERKI_CARD),
        allow_none=True,
        validate=validate.Length(equal=2),
        metadata={"description": "the two pool cards taken with the discard; null or absent: none"},
    )


class CaptureActionSchema(Schema):
    """Cholek Tiga: take the pending turned-up card with two pool cards."""

    class Meta:
        unknown = RAISE

    type = tag("capture")
    cards = fields.List(card_field(CHERKI_CARD), required=True, validate=validate.Length(equal=2))


class PassActionSchema(Schema):
    """Cholek Tiga: leave the pending turned-up card in the pool."""

    class Meta:
        unknown = RAISE

    type = tag("pass")


HAND_MAX = 32


class PlayActionSchema(Schema):
    """Cha Kau Tsz: lead a combination, or follow with as many cards as were led."""

    class Meta:
        unknown = RAISE

    type = tag("play")
    cards = fields.List(card_field(SAMPEN_CARD), required=True, validate=validate.Length(min=1, max=HAND_MAX))


class ReadyActionSchema(Schema):
    """Between deals: ready for the next one (the deal starts when every seat is ready)."""

    class Meta:
        unknown = RAISE

    type = tag("ready")
    client_seed = client_seed_field()


class CloseActionSchema(Schema):
    """Between deals: close the table."""

    class Meta:
        unknown = RAISE

    type = tag("close")


class LeaveActionSchema(Schema):
    """Before the first deal or between deals: give up your seat."""

    class Meta:
        unknown = RAISE

    type = tag("leave")


class ActionSchema(TaggedUnionSchema):
    """One action, by `type`: discard, capture and pass are Cholek Tiga's plays, play is Cha Kau Tsz's; ready,
    close and leave are for between deals at either game."""

    PLAIN_LOAD = True  # loaded by its plan (services.api.schemas.plain), with no load hooks

    TAG = "type"
    VARIANTS = {
        "discard": DiscardActionSchema,
        "capture": CaptureActionSchema,
        "pass": PassActionSchema,
        "play": PlayActionSchema,
        "ready": ReadyActionSchema,
        "close": CloseActionSchema,
        "leave": LeaveActionSchema,
    }


class PlayChoiceSchema(Schema):
    """Cha Kau Tsz: on lead, a complete body (`cards`); on a follow, how many cards to play (`count`)."""

    type = tag("play")
    cards = fields.List(card_field(SAMPEN_CARD), metadata={"description": "on lead: a legal lead"})
    count = fields.Integer(metadata={"description": "on a follow: play this many cards of your hand"})


class LegalActionSchema(TaggedUnionSchema):
    """An action the seat may post now; a complete body except a Cha Kau Tsz follow (`count`)."""

    TAG = "type"
    VARIANTS = {**ActionSchema.VARIANTS, "play": PlayChoiceSchema}


# Results of a deal ------------------------------------------------------------------

_INTS = {"type": "array", "items": {"type": "integer"}}


def _result_field(schema: dict[str, Any], description: str, required: bool = False) -> fields.Raw:
    return fields.Raw(required=required, metadata={"openapi": schema, "description": description})


class CholekTigaResultSchema(Schema):
    """How a Cholek Tiga deal ended."""

    class Meta:
        unknown = INCLUDE

    scores = _result_field(_INTS, "points by seat", required=True)
    net = _result_field(_INTS, "cents by seat: points and ang pow settled, in-play bonuses included", required=True)
    leftover_pool = _result_field({"type": "array", "items": CHERKI_CARD}, "cards left in the pool")
    piles = _result_field({"type": "array", "items": {"type": "array", "items": CHERKI_CARD}}, "captures by seat")


class ChaKauTszResultSchema(Schema):
    """How a Cha Kau Tsz hand ended."""

    class Meta:
        unknown = INCLUDE

    tricks = _result_field(_INTS, "tricks by seat", required=True)
    payments = _result_field(_INTS, "points each seat paid into the pool", required=True)
    net = _result_field(_INTS, "points by seat: the payments, and the pool to its winner", required=True)
    hand_no = _result_field({"type": "integer"}, "the hand, counted across the table")
    pool_game = _result_field({"type": "integer"}, "the pool game it belonged to")
    pool_winner = _result_field({"type": ["integer", "null"]}, "the seat that won the pool, if one did")
    pool_won = _result_field({"type": "integer"}, "points the winner took from the pool")
    net_cents = _result_field(_INTS, "`net` in cents (chip_value_cents a point)")
    balances = _result_field(_INTS, "points by seat after the hand, changes from the starting stack")
    pool = _result_field({"type": "integer"}, "points in the pool after the hand")


RESULT = any_of(ref(CholekTigaResultSchema), ref(ChaKauTszResultSchema))
