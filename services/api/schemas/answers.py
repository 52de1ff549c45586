"""Marshmallow schemas of every request and response; the OpenAPI document is generated from them."""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import UTC
from typing import Any

from marshmallow import EXCLUDE, INCLUDE, RAISE, Schema, ValidationError, fields, post_dump, validate, validates_schema

from domain.games import GAME_NAMES, GAMES
from infra.config import DEFAULT_LONG_POLL_SECONDS, LONG_POLL_MAX_SECONDS
from services.api.middleware.prefer import PREFER_DESCRIPTION
from services.api.schemas.events import EVENT, EVENT_TYPES, EventBaseSchema
from services.api.schemas.game import (
    ASCII_PRINTABLE,
    CARD,
    CHERKI_CARD,
    OPTIONS,
    PRINTABLE,
    RESULT,
    SAMPEN_CARD,
    ActionSchema,
    LegalActionSchema,
    TableCreateSchema,
    client_seed_field,
)
from services.api.schemas.plain import PlainDump
from services.api.spec.types import FullMatch, any_of, ref
from services.app.audit.reports import (
    LEDGER_PAGE_DEFAULT,
    LEDGER_PAGE_MAX,
    MAX_ACCOUNTS_PER_TABLE,
    SETTLEMENT_PAGE_DEFAULT,
    SETTLEMENT_PAGE_MAX,
    parse_ledger_cursor,
)

INT32_MAX = 2**31 - 1
INT63_MAX = 2**63 - 1
MAX_SEAT = max(game.max_seats for game in GAMES.values()) - 1
STATUSES = ("open", "playing", "between_deals", "closed")
__all__ = ["EVENT_TYPES", "ActionSchema", "TableCreateSchema"]  # the game-specific schemas live in schemas_game


def _int(**kwargs: Any) -> fields.Integer:
    return fields.Integer(strict=True, **kwargs)


class OpenSchema(Schema):
    """A response schema that also passes on keys it does not declare (new fields of the domain's views)."""

    KEEP_UNDECLARED = True  # what the dump plans must know of its post_dump (`services.api.schemas.plain`)

    class Meta:
        unknown = INCLUDE

    @post_dump(pass_original=True)
    def _keep_undeclared(self, data: dict[str, Any], original: Any, **_: Any) -> dict[str, Any]:
        if isinstance(original, Mapping):
            for key, value in original.items():
                if key not in self.fields and isinstance(key, str):
                    data[key] = value
        return data


# Errors ---------------------------------------------------------------------


class ProblemSchema(Schema):
    """RFC 9457 problem details, plus a stable machine `code`."""

    class Meta:
        unknown = INCLUDE

    type = fields.String(required=True, metadata={"description": "URI naming the kind of problem"})
    title = fields.String(required=True)
    status = fields.Integer(required=True)
    detail = fields.String(required=True)
    code = fields.String(required=True, metadata={"description": "stable machine string, e.g. illegal_action"})
    errors = fields.Raw(metadata={"description": "field messages of a validation error, by location and field"})


# Receipts and keys ------------------------------------------------------------

MAX_DISPUTE_RECEIPTS = 1000
_RECEIPT_TEXT = [validate.Length(min=1, max=256), FullMatch(r"^[^\r\n]*$", error="must not contain line breaks")]


NOTE_NUMBER_MAX = 10**18 - 1  # what services.api.middleware.strict_json lets through as an integer
RECEIPT_NOTE = {
    "anyOf": [
        {"type": ["string", "boolean", "null"]},
        {"type": "number", "minimum": -NOTE_NUMBER_MAX, "maximum": NOTE_NUMBER_MAX},
    ],
    "description": "a note of the client's own (a plain value), ignored",
}


class ReceiptSchema(Schema):
    """The service's signed word that a write appended the event `hash` at `version` of the table."""

    class Meta:
        unknown = EXCLUDE  # receipts kept by clients may carry notes of their own: plain values, ignored

    OPENAPI_EXTRA = {"additionalProperties": RECEIPT_NOTE}

    @validates_schema(pass_original=True)
    def _notes_are_plain_values(self, data: Any, original: Any, **_: Any) -> None:
        if not isinstance(original, Mapping):
            return
        for key, value in original.items():
            if key in self.fields:
                continue
            if isinstance(value, dict | list) or (
                isinstance(value, int | float) and not isinstance(value, bool) and abs(value) > NOTE_NUMBER_MAX
            ):
                raise ValidationError(f"a note must be a string, a number, true, false or null, not {value!r:.40}", key)

    table_id = fields.String(required=True, validate=_RECEIPT_TEXT)
    version = _int(
        required=True,
        validate=validate.Range(min=1, max=INT32_MAX),
        metadata={"description": "version of the last event the write appended"},
    )
    hash = fields.String(required=True, validate=_RECEIPT_TEXT, metadata={"description": "that event's hash"})
    signed_at = fields.String(
        required=True,
        validate=_RECEIPT_TEXT,
        metadata={"format": "date-time", "description": "RFC 3339 UTC, e.g. 2026-12-01T13:27:02.123456Z"},
    )
    key_id = fields.String(required=True, validate=_RECEIPT_TEXT, metadata={"description": "a key of GET /v1/keys"})
    signature = fields.String(
        required=True,
        validate=_RECEIPT_TEXT,
        metadata={
            "description": "base64url (no padding) Ed25519 signature over the UTF-8 bytes of "
            '"cardledger-receipt-v1\\n" + table_id + "\\n" + version + "\\n" + hash + "\\n" + signed_at'
        },
    )


class KeySchema(Schema):
    key_id = fields.String(required=True, metadata={"description": '"ed25519:" + 16 hex digits of SHA-256(public key)'})
    algorithm = fields.String(required=True, validate=validate.OneOf(("Ed25519",)))
    public_key = fields.String(required=True, metadata={"description": "base64url (no padding) of the raw 32 bytes"})
    created_at = fields.String(required=True, metadata={"format": "date-time", "description": "RFC 3339 UTC"})
    endorsed_by = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "the key_id of the key before this one in the chain; null for the first key"},
    )
    endorsement = fields.String(
        required=True,
        allow_none=True,
        metadata={
            "description": "base64url (no padding) Ed25519 signature by `endorsed_by` over the UTF-8 bytes of "
            '"cardledger-key-v1\\n" + key_id + "\\n" + public_key + "\\n" + created_at; null for the first key'
        },
    )


class KeysSchema(Schema):
    keys = fields.List(
        fields.Nested(KeySchema),
        required=True,
        metadata={"description": "oldest first: a chain, each key after the first endorsed by its predecessor"},
    )


# Players --------------------------------------------------------------------


class PlayerCreateSchema(Schema):
    class Meta:
        unknown = RAISE

    name = fields.String(required=True, validate=[validate.Length(min=1, max=64), PRINTABLE])


class PlayerSchema(Schema):
    id = fields.String(required=True, metadata={"format": "uuid"})
    name = fields.String(required=True)
    token = fields.String(required=True, metadata={"description": "bearer token; shown once, stored as a hash"})


class WhoAmISchema(Schema):
    id = fields.String(
        required=True,
        allow_none=True,
        metadata={"format": "uuid", "description": "the player's id; null for the auditor"},
    )
    name = fields.String(required=True)
    role = fields.String(required=True, validate=validate.OneOf(("player", "auditor")))


# Tables ---------------------------------------------------------------------


class PlayerRefSchema(Schema):
    id = fields.String(required=True, metadata={"format": "uuid"})
    name = fields.String(required=True, allow_none=True)


class NextDealSchema(Schema):
    deal_no = fields.Integer(required=True)
    commitment = fields.String(required=True, metadata={"description": "SHA-256 hex of the deal's server seed"})


def _shown(schema: dict[str, Any], description: str = "") -> fields.Raw:
    """A field of a view passed on as the domain made it, documented as `schema`."""
    return fields.Raw(metadata={"openapi": schema, **({"description": description} if description else {})})


_INTS = {"type": "array", "items": {"type": "integer"}}
_PLAY = {
    "type": "object",
    "properties": {"seat": {"type": "integer"}, "cards": {"type": "array", "items": SAMPEN_CARD}},
    "required": ["seat", "cards"],
}


class TableSchema(PlainDump, OpenSchema):
    """Public state of a table; the game-specific fields are present while a deal exists."""

    id = fields.String(required=True, metadata={"format": "uuid"})
    game = fields.String(required=True, validate=validate.OneOf(GAME_NAMES))
    seats = fields.Integer(required=True)
    options = fields.Dict(required=True, metadata={"openapi": OPTIONS, "description": "with defaults filled in"})
    status = fields.String(required=True, validate=validate.OneOf(STATUSES))
    players = fields.List(fields.Nested(PlayerRefSchema, allow_none=True), required=True)
    deal_no = fields.Integer(required=True)
    to_act = fields.Integer(required=True, allow_none=True)
    version = fields.Integer(required=True)
    next_deal = fields.Nested(NextDealSchema, allow_none=True)
    ready = fields.List(fields.Integer())
    turn_deadline = fields.String(
        required=True,
        allow_none=True,
        metadata={
            "format": "date-time",
            "description": "RFC 3339 UTC: when the turn clock acts for the seat to act (its default action, "
            '"timed_out": true), or between deals unseats the seats not ready; null with no clock '
            "(option turn_seconds 0) or nobody to act",
        },
    )
    last_result = fields.Dict(allow_none=True, metadata={"openapi": RESULT, "description": "the last deal's result"})
    # Cholek Tiga
    pool = _shown(
        {"anyOf": [{"type": "array", "items": CHERKI_CARD}, {"type": "integer"}]},
        "Cholek Tiga: cards in the pool; Cha Kau Tsz: points in the pool",
    )
    piles = _shown({"type": "array", "items": {"type": "array", "items": CHERKI_CARD}}, "Cholek Tiga: captures by seat")
    hand_sizes = _shown(_INTS, "cards held, by seat")
    stock_remaining = _shown({"type": "integer"}, "Cholek Tiga: cards left to draw or turn up")
    pending = _shown({"anyOf": [CHERKI_CARD, {"type": "null"}]}, "Cholek Tiga: the turned-up card awaiting a decision")
    scores = _shown(
        {"type": ["array", "null"], "items": {"type": "integer"}}, "Cholek Tiga: by seat, once the deal ended"
    )
    round = _shown({"type": "integer"}, "Cholek Tiga: the round of draws")
    first_seat = _shown({"type": "integer"}, "Cholek Tiga: the seat that moved first this deal")
    # Cha Kau Tsz
    hand_no = _shown({"type": "integer"}, "Cha Kau Tsz: the hand, counted across the table")
    pool_game = _shown({"type": "integer"}, "Cha Kau Tsz: the pool game, counted across the table")
    hands_in_pool_game = _shown({"type": "integer"})
    dealer = _shown({"type": ["integer", "null"]}, "Cha Kau Tsz: the dealer's seat")
    leader = _shown({"type": ["integer", "null"]}, "Cha Kau Tsz: the seat that leads the trick, null once scored")
    trick_no = _shown({"type": ["integer", "null"]}, "Cha Kau Tsz: the current trick, null once scored")
    trick = _shown({"type": "array", "items": _PLAY}, "Cha Kau Tsz: plays of the current trick")
    last_trick = _shown(
        {
            "type": ["object", "null"],
            "properties": {
                "trick_no": {"type": "integer"},
                "plays": {"type": "array", "items": _PLAY},
                "winner": {"type": "integer"},
                "tricks": {"type": "integer"},
            },
            "required": ["trick_no", "plays", "winner", "tricks"],
        },
        "Cha Kau Tsz: the trick before, with its winner and the tricks it credited",
    )
    tricks = _shown(_INTS, "Cha Kau Tsz: tricks won this hand, by seat")
    balances = _shown(_INTS, "Cha Kau Tsz: points by seat, changes from the starting stack (negative: a debt)")
    stacks = _shown(_INTS, "Cha Kau Tsz: points each seat holds in chips")
    starting_stack = _shown({"type": "integer"}, "Cha Kau Tsz: each seat's points at the start")
    debts = _shown(
        {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"seat": {"type": "integer"}, "points": {"type": "integer"}},
                "required": ["seat", "points"],
            },
        },
        "Cha Kau Tsz: the seats in debt and what they owe",
    )


class SeatViewSchema(TableSchema):
    seat = fields.Integer(required=True)
    hand = fields.List(fields.String(metadata={"openapi": CARD}), required=True, metadata={"description": "your cards"})
    legal_actions = fields.List(
        fields.Dict(metadata={"openapi": ref(LegalActionSchema)}),
        required=True,
        metadata={"description": "complete action bodies; a Cha Kau Tsz follow is {type: play, count: k}"},
    )


class OpenedTableSchema(TableSchema):
    """The new table's public state and the receipt of its opening."""

    receipt = fields.Nested(ReceiptSchema, required=True)


LOBBY_PAGE_MAX = 100


class LobbyQuerySchema(Schema):
    class Meta:
        unknown = RAISE

    status = fields.String(validate=validate.OneOf(STATUSES))
    game = fields.String(validate=validate.OneOf(GAME_NAMES))
    after = fields.Integer(load_default=0, validate=validate.Range(min=0, max=INT63_MAX))
    limit = fields.Integer(
        load_default=20,
        validate=validate.Range(min=1, max=LOBBY_PAGE_MAX),
        metadata={"description": f"tables per page, at most {LOBBY_PAGE_MAX} (422 above)"},
    )


class LobbySchema(Schema):
    tables = fields.List(fields.Nested(TableSchema), required=True)
    next_after = fields.Integer(
        required=True, allow_none=True, metadata={"description": "cursor for the next page, null on the last"}
    )


class MinVersionQuerySchema(Schema):
    PLAIN_LOAD = True  # loaded by its plan (services.api.schemas.plain), with no load hooks

    class Meta:
        unknown = RAISE

    min_version = fields.Integer(
        validate=validate.Range(min=0, max=INT32_MAX),
        metadata={
            "description": "read at least this version (read your writes). Every read is already at the "
            "table's last committed version, so this holds whenever the table has reached it"
        },
    )
    wait_for_version = fields.Integer(
        validate=validate.Range(min=0, max=INT32_MAX),
        metadata={
            "description": "long-poll: hold the answer until the table's version is at least this, or until the "
            f"server's wait (CARDLEDGER_LONG_POLL_SECONDS, default {DEFAULT_LONG_POLL_SECONDS}, at most "
            f"{LONG_POLL_MAX_SECONDS}; shorter with `Prefer: wait=<seconds>`) has passed; then answer the view "
            "as it is (304 if If-None-Match still names its version); a version committed but not yet published on "
            "the event bus is answered once it is. A wait takes one of the caller's stream slots (429 "
            "`too_many_streams`, 503 `stream_busy`, as GET /stream)"
        },
    )


class SeatRequestSchema(Schema):
    class Meta:
        unknown = RAISE

    seat = _int(
        allow_none=True,
        validate=validate.Range(min=0, max=MAX_SEAT),
        metadata={"description": "the seat to take, from 0; null or absent: the first free one"},
    )
    client_seed = client_seed_field()


class SeatSchema(Schema):
    seat = fields.Integer(required=True)
    version = fields.Integer()
    receipt = fields.Nested(ReceiptSchema, required=True)
    view = fields.Nested(
        SeatViewSchema,
        metadata={"description": "with `Prefer: return=representation`: your seat view after sitting down"},
    )


# Actions --------------------------------------------------------------------


def prefer_field() -> fields.String:
    return fields.String(
        data_key="Prefer", validate=validate.Length(max=256), metadata={"description": PREFER_DESCRIPTION}
    )


class ConditionalReadHeadersSchema(Schema):
    PLAIN_LOAD = True  # loaded by its plan (services.api.schemas.plain), with no load hooks

    class Meta:
        unknown = EXCLUDE

    if_none_match = fields.String(
        data_key="If-None-Match",
        validate=validate.Length(max=256),
        metadata={"description": 'an ETag seen before ("<version>"): 304 when the table has not changed'},
    )
    prefer = prefer_field()


class PreferHeadersSchema(Schema):
    class Meta:
        unknown = EXCLUDE

    prefer = prefer_field()


class ActionHeadersSchema(Schema):
    PLAIN_LOAD = True  # loaded by its plan (services.api.schemas.plain), with no load hooks

    class Meta:
        unknown = EXCLUDE

    idempotency_key = fields.String(
        data_key="Idempotency-Key",
        required=True,
        validate=[validate.Length(min=1, max=128), ASCII_PRINTABLE],
        metadata={"description": "at most 128 printable characters; a retry with the same key replays the answer"},
    )
    if_match = fields.String(
        data_key="If-Match",
        metadata={
            "description": 'the table version the action expects, as "<version>" (the ETag of a read); `*`: any',
            # what services.api.middleware.headers.parse_if_match accepts (400 invalid_if_match otherwise)
            "pattern": r'^(\*|"[0-9]{1,10}"|[0-9]{1,10})$',
        },
    )
    prefer = prefer_field()


class ActionResultSchema(PlainDump):
    version = fields.Integer(required=True)
    events = fields.List(fields.Raw(metadata={"openapi": EVENT}), required=True)
    receipt = fields.Nested(
        ReceiptSchema,
        required=True,
        allow_none=True,
        metadata={
            "description": "the signed receipt of the write; null only while a deal begun before hash version 2 runs "
            "(its hashes are withheld from players until it ends, and a receipt would show them)"
        },
    )
    view = fields.Nested(
        SeatViewSchema,
        metadata={
            "description": "with `Prefer: return=representation`: the caller's seat view (as GET /view answers it) "
            "at this write's version; for a replayed answer, the view now. Absent when the caller has no seat "
            "after the write (it left)"
        },
    )


# History, audit, reports ------------------------------------------------------


EVENTS_PAGE_MAX = 1000


class EventsQuerySchema(Schema):
    class Meta:
        unknown = RAISE

    after = fields.Integer(load_default=0, validate=validate.Range(min=0, max=INT32_MAX))
    limit = fields.Integer(
        load_default=100,
        validate=validate.Range(min=1, max=EVENTS_PAGE_MAX),
        metadata={"description": f"events per page, at most {EVENTS_PAGE_MAX} (422 above)"},
    )


class EventsPageSchema(Schema):
    events = fields.List(fields.Raw(metadata={"openapi": EVENT}), required=True)
    next_after = fields.Integer(required=True)


def _typed(schema: dict[str, Any], description: str = "", **kwargs: Any) -> fields.Raw:
    """A value passed on as the log holds it (no conversion when dumped), documented as `schema`."""
    metadata = dict(schema)
    if description:
        metadata["description"] = description
    return fields.Raw(metadata=metadata, **kwargs)


class TransferSchema(OpenSchema):
    payer = fields.String(required=True, metadata={"description": "account: `seat:N`, `pool`, `player:<id>`"})
    payee = fields.String(required=True)
    amount = _typed({"type": "integer"}, "in the table's unit", required=True)
    reason = fields.String(required=True)


class VerificationProblemSchema(Schema):
    version = _typed({"type": "integer"}, "the event at fault, where one can be named", required=True, allow_none=True)
    check = fields.String(required=True, metadata={"enum": ["hash_chain", "commitment", "deck", "replay"]})
    reason = fields.String(required=True)


class FirstBadEventSchema(Schema):
    version = _typed({"type": "integer"}, required=True, allow_none=True)
    reason = fields.String(required=True)


class VerificationSchema(OpenSchema):
    """The verdict on one deal; a check not run (the deal still running) is null."""

    checked = fields.String(required=True, metadata={"description": "`all`, or why only the chain was checked"})
    commitment_matches_seed = fields.Boolean(required=True, allow_none=True)
    deck_matches_seed = fields.Boolean(required=True, allow_none=True)
    hash_chain_intact = fields.Boolean(required=True)
    replay_matches = fields.Boolean(required=True, allow_none=True)
    first_bad_event = fields.Nested(FirstBadEventSchema, required=True, allow_none=True)
    problems = fields.List(fields.Nested(VerificationProblemSchema), required=True)
    ok = fields.Boolean(required=True)


class DealSeedsSchema(OpenSchema):
    """Commitment, seeds and result of a deal; the server seed and the result only once it ended."""

    table_id = fields.String(required=True, metadata={"format": "uuid"})
    game = fields.String(required=True)
    deal_no = fields.Integer(required=True)
    status = fields.String(required=True, metadata={"enum": ["playing", "ended"]})
    started_version = fields.Integer(required=True)
    ended_version = fields.Integer(required=True, allow_none=True)
    commitment = _typed({"type": "string"}, "SHA-256 (hex) of the server seed", required=True)
    client_seeds = _typed({"type": "array", "items": {"type": "string"}}, required=True)
    server_seed = _typed({"type": "string"}, "hex, once the deal ended", required=True, allow_none=True)
    next_commitment = _typed({"type": "string"}, "the next deal's commitment", required=True, allow_none=True)
    result = fields.Raw(
        required=True,
        allow_none=True,
        metadata={"openapi": RESULT, "description": "the game's result of the deal, once it ended"},
    )
    net = _typed(_INTS, "by seat, in the table's unit (the result's `net`)", required=True, allow_none=True)
    unit = _typed({"type": "string"}, "the table's unit of account", required=True, allow_none=True)
    transfers = fields.List(fields.Nested(TransferSchema), required=True, allow_none=True)
    verification = fields.Nested(VerificationSchema, required=True)


class DealRecordSchema(DealSeedsSchema):
    players = _typed(
        {"type": "array", "items": {"type": ["string", "null"]}},
        "the deal's players (ids) by seat, null for an empty seat",
        required=True,
    )
    timed_out_actions = fields.List(
        fields.Integer(),
        required=True,
        metadata={"description": "by seat: the actions the turn clock took for it in this deal (timed_out events)"},
    )


# Cursors as `ledger_cursor` writes them (no leading zero), within bounds a pattern can state (18 and 9 digits).
LEDGER_CURSOR = re.compile(r"^(0|[1-9][0-9]{0,17}):[1-9][0-9]{0,8}$")


class LedgerCursor(fields.String):
    """A ledger page's cursor, "<global_position>:<line_no>" of the last line read; loads as (int, int)."""

    default_error_messages = {"invalid_cursor": "not a ledger cursor: <global_position>:<line_no>, as next_after"}

    def _deserialize(self, value: Any, attr: str | None, data: Mapping[str, Any] | None, **kwargs: Any) -> Any:
        text = super()._deserialize(value, attr, data, **kwargs)
        if LEDGER_CURSOR.fullmatch(text) is None:
            raise self.make_error("invalid_cursor")
        try:
            return parse_ledger_cursor(text)
        except ValueError as error:
            raise self.make_error("invalid_cursor") from error


class LedgerQuerySchema(Schema):
    class Meta:
        unknown = RAISE

    after = LedgerCursor(
        metadata={
            "description": "the previous page's `next_after` (`<global_position>:<line_no>` of its last line): "
            "the page starts after that line",
            "pattern": LEDGER_CURSOR.pattern,
        },
    )
    limit = fields.Integer(
        load_default=LEDGER_PAGE_DEFAULT,
        validate=validate.Range(min=1, max=LEDGER_PAGE_MAX),
        metadata={"description": f"lines per page, at most {LEDGER_PAGE_MAX} (422 above)"},
    )


class LedgerLineSchema(OpenSchema):
    global_position = fields.Integer(required=True, metadata={"description": "of the event the line comes from"})
    line_no = fields.Integer(required=True, metadata={"description": "the line's place in its event, from 1"})
    version = fields.Integer(required=True, metadata={"description": "the event's position in the table stream"})
    event_type = fields.String(required=True)
    deal_no = fields.Integer(required=True)
    account = fields.String(required=True, metadata={"description": '"seat:N" or "pool"'})
    player_id = fields.String(required=True, allow_none=True, metadata={"format": "uuid"})
    amount = fields.Integer(required=True, metadata={"description": "negative for the payer, positive for the payee"})
    unit = fields.String(required=True)
    amount_cents = fields.Integer(required=True)
    reason = fields.String(required=True)
    occurred_at = fields.String(required=True, metadata={"format": "date-time"})


class LedgerTotalSchema(Schema):
    account = fields.String(required=True)
    player_id = fields.String(required=True, allow_none=True, metadata={"format": "uuid"})
    amount = fields.Integer(required=True)
    amount_cents = fields.Integer(required=True)


class LedgerSchema(OpenSchema):
    """A page of the table's ledger lines, with the totals of the whole table (every line, not just the page's)."""

    table_id = fields.String(required=True, metadata={"format": "uuid"})
    game = fields.String(required=True)
    unit = fields.String(required=True)
    lines = fields.List(fields.Nested(LedgerLineSchema), required=True, metadata={"description": "in log order"})
    totals = fields.List(
        fields.Nested(LedgerTotalSchema), required=True, metadata={"description": "by account, the whole table"}
    )
    sum_amount = fields.Integer(required=True, metadata={"description": "the whole table"})
    sum_cents = fields.Integer(required=True, metadata={"description": "the whole table"})
    balanced = fields.Boolean(required=True, metadata={"description": "the whole table's lines sum to zero"})
    line_count = fields.Integer(required=True, metadata={"description": "lines of the whole table"})
    next_after = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "cursor of the next page (pass it as `after`), null on the last"},
    )


class SettlementCsvQuerySchema(Schema):
    class Meta:
        unknown = RAISE

    player_id = fields.UUID()
    table_id = fields.UUID()
    date_from = fields.AwareDateTime(data_key="from", default_timezone=UTC)
    date_to = fields.AwareDateTime(data_key="to", default_timezone=UTC)
    after = fields.UUID(
        metadata={"description": "the previous page's `next_after` (a table id): the page starts after that table"}
    )
    limit = fields.Integer(
        load_default=SETTLEMENT_PAGE_DEFAULT,
        validate=validate.Range(min=1, max=SETTLEMENT_PAGE_MAX),
        metadata={
            "description": f"tables per page, at most {SETTLEMENT_PAGE_MAX} (422 above); a table has at most "
            f"{MAX_ACCOUNTS_PER_TABLE} rows for its deals (its seats and the pool), so a page has at most "
            f"{MAX_ACCOUNTS_PER_TABLE * SETTLEMENT_PAGE_MAX} of them, and, when the period holds the closing of "
            "an abandoned Cha Kau Tsz table whose pool was refunded, one row more per player refunded "
            "(account `player:<id>`; at most one per seat unless seats changed hands while the pool was carried)"
        },
    )


class SettlementQuerySchema(SettlementCsvQuerySchema):
    format = fields.String(load_default="json", validate=validate.OneOf(("json", "csv")))


class SettlementPeriodSchema(Schema):
    from_ = fields.String(
        data_key="from",
        attribute="from",
        required=True,
        allow_none=True,
        metadata={"format": "date-time", "description": "inclusive"},
    )
    to = fields.String(required=True, allow_none=True, metadata={"format": "date-time", "description": "exclusive"})
    bounds = fields.String(required=True)


class SettlementRowSchema(Schema):
    player_id = fields.String(
        required=True, allow_none=True, metadata={"format": "uuid", "description": "null on the pool's row"}
    )
    name = fields.String(required=True, allow_none=True)
    account = fields.String(required=True, metadata={"description": "`seat:N`, `pool` or `player:<id>`"})
    table_id = fields.String(required=True, metadata={"format": "uuid"})
    game = fields.String(required=True)
    unit = fields.String(required=True, metadata={"description": "the table's unit of account"})
    net_amount = fields.Integer(required=True, metadata={"description": "in the table's unit"})
    net_cents = fields.Integer(required=True)
    currency = fields.String(
        required=True,
        allow_none=True,
        metadata={
            "description": "the money `net_cents` is in, as the table's options name it (ISO 4217); null: none named"
        },
    )
    shown_as = fields.String(
        required=True,
        allow_none=True,
        metadata={
            "description": "the name, with the first 8 digits of the id when another player of the report has it"
        },
    )
    deals = fields.Integer(required=True)


class SettlementPlayerSchema(Schema):
    player_id = fields.String(required=True, metadata={"format": "uuid"})
    name = fields.String(required=True, allow_none=True)
    net_cents = fields.Integer(required=True)
    tables = fields.Integer(required=True, metadata={"description": "tables the player has rows at"})


class SettlementTableSchema(Schema):
    table_id = fields.String(required=True, metadata={"format": "uuid"})
    game = fields.String(required=True)
    deals = fields.Integer(required=True)
    net_cents_shown = fields.Integer(required=True, metadata={"description": "the sum of the rows shown"})


class SettlementDiscrepancySchema(Schema):
    table_id = fields.String(required=True, metadata={"format": "uuid"})
    deal_no = fields.Integer(required=True)
    result_net = fields.List(fields.Integer(), required=True)
    transfers_net = fields.List(fields.Integer(), required=True)


class LogPositionSchema(Schema):
    tx_id = fields.String(required=True, metadata={"description": "the writing transaction's id, as text (xid8)"})
    global_position = fields.Integer(required=True)


class SettlementSchema(OpenSchema):
    """A page of the report: the tables that settled deals in the period or were closed in it with their pool
    refunded, in table id order; one row per account of a table (`seat:N`, `pool`, and `player:<id>` for each
    player a closing refunded). Every figure (rows, players, tables, totals, balance, discrepancies) covers the
    tables of this page."""

    period = fields.Nested(SettlementPeriodSchema, required=True)
    player_id = fields.String(required=True, allow_none=True, metadata={"format": "uuid"})
    table_id = fields.String(required=True, allow_none=True, metadata={"format": "uuid"})
    currency_unit = fields.String(required=True)
    rows = fields.List(fields.Nested(SettlementRowSchema), required=True)
    players = fields.List(fields.Nested(SettlementPlayerSchema), required=True)
    tables = fields.List(fields.Nested(SettlementTableSchema), required=True)
    total_cents = fields.Integer(required=True, metadata={"description": "the sum of the rows shown"})
    deals = fields.Integer(required=True)
    balance_cents = fields.Integer(required=True, metadata={"description": "every account of the tables: 0"})
    balanced = fields.Boolean(required=True)
    balanced_scope = fields.String(required=True)
    consistent_with_deal_results = fields.Boolean(required=True)
    discrepancies = fields.List(fields.Nested(SettlementDiscrepancySchema), required=True)
    next_after = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "cursor of the next page (a table id, pass it as `after`), null on the last"},
    )
    log_position = fields.Nested(
        LogPositionSchema,
        required=True,
        metadata={
            "description": "how far the report read the event log: the settlement read model held every event up "
            "to this place in commit order (writing transaction, global position), maybe more; an event committed "
            "after it, or held back while an older transaction of the database server runs, is not in it yet"
        },
    )


class DisputePageQuerySchema(Schema):
    class Meta:
        unknown = RAISE

    table_id = fields.UUID(required=True)
    deal_no = fields.Integer(required=True, validate=validate.Range(min=1, max=INT32_MAX))


class DisputeQuerySchema(DisputePageQuerySchema):
    format = fields.String(validate=validate.OneOf(("json", "html")))


class DisputePlayerSchema(Schema):
    id = fields.String(required=True, metadata={"format": "uuid"})
    name = fields.String(required=True, allow_none=True)


class DisputeEventSchema(OpenSchema, EventBaseSchema):  # type: ignore[misc]
    """An event of a step, as GET /v1/tables/{table_id}/events shows it to the caller, plus the replay."""

    actor = _typed({"type": ["string", "null"]}, required=True)
    seat = _typed({"type": ["integer", "null"]}, required=True)
    timed_out = fields.Boolean(required=True)
    replay_error = fields.String(metadata={"description": "where the replay stopped (tampered data)"})
    public_state_after = _typed(
        {"type": ["object", "null"], "additionalProperties": True},
        "the public table view after the event (varies by game), null once the replay stopped",
        required=True,
    )


class ReplayErrorSchema(Schema):
    """What the replay of a tampered log could not compute."""

    error = fields.String(required=True)


class DisputeStepSchema(OpenSchema):
    """One write transaction (an action and what it caused), replayed."""

    step = fields.Integer(required=True)
    actor = _typed({"type": ["string", "null"]}, "the player (or `clock`) who wrote it", required=True)
    seat = fields.Integer(required=True, allow_none=True)
    to_act_before = fields.Raw(
        required=True,
        allow_none=True,
        metadata={
            "openapi": any_of({"type": "integer"}, ref(ReplayErrorSchema)),
            "description": "the seat to act before the step; null when nobody was",
        },
    )
    legal_alternatives = fields.Raw(
        required=True,
        allow_none=True,
        metadata={
            "openapi": any_of({"type": "array", "items": ref(LegalActionSchema)}, ref(ReplayErrorSchema)),
            "description": "the legal choices of the acting seat, once the deal has ended (null before)",
        },
    )
    timed_out = fields.Boolean(required=True)
    events = fields.List(fields.Nested(DisputeEventSchema), required=True)


class DisputeSchema(DealSeedsSchema):
    seats = fields.Integer(required=True)
    options = fields.Dict(
        required=True, metadata={"openapi": OPTIONS, "description": "the table's options (docs/rules.md)"}
    )
    players = fields.List(
        fields.Nested(DisputePlayerSchema, allow_none=True),
        required=True,
        metadata={"description": "by seat, null for an empty seat"},
    )
    viewer = fields.String(required=True, metadata={"description": "`auditor` or `seat N`"})
    alternatives_note = fields.String(required=True, allow_none=True)
    steps = fields.List(fields.Nested(DisputeStepSchema), required=True)


class DisputeReceiptsRequestSchema(Schema):
    class Meta:
        unknown = RAISE

    table_id = fields.UUID(required=True)
    deal_no = _int(required=True, validate=validate.Range(min=1, max=INT32_MAX))
    receipts = fields.List(
        fields.Nested(ReceiptSchema),
        required=True,
        validate=validate.Length(max=MAX_DISPUTE_RECEIPTS),
        metadata={"description": f"receipts kept by the caller (at most {MAX_DISPUTE_RECEIPTS})"},
    )


class ReceiptCheckSchema(Schema):
    index = fields.Integer(required=True, metadata={"description": "the receipt's place in the submitted list"})
    receipt = fields.Nested(ReceiptSchema, required=True)
    signature = fields.String(required=True, validate=validate.OneOf(("valid", "invalid", "unknown_key")))
    log = fields.String(required=True, validate=validate.OneOf(("matches", "contradicts", "missing")))
    log_hash = fields.String(
        required=True, allow_none=True, metadata={"description": "the log's hash at the receipt's version"}
    )
    verdict = fields.String(
        required=True,
        validate=validate.OneOf(("ok", "rewritten_history", "bad_signature", "unknown_key")),
        metadata={"description": "rewritten_history: a valid signature on what the log no longer holds"},
    )
    ok = fields.Boolean(required=True)
    explanation = fields.String(required=True)


class ReceiptsSectionSchema(Schema):
    checked = fields.Integer(required=True)
    failed = fields.Integer(required=True)
    ok = fields.Boolean(required=True)
    rewritten_history = fields.Boolean(required=True)
    ignored_other_tables = fields.Integer(required=True, metadata={"description": "receipts of other tables"})
    results = fields.List(fields.Nested(ReceiptCheckSchema), required=True)


class DisputeWithReceiptsSchema(DisputeSchema):
    receipts = fields.Nested(ReceiptsSectionSchema, required=True)


# Operations -----------------------------------------------------------------


class HealthSchema(Schema):
    status = fields.String(required=True)


class ReadySchema(Schema):
    status = fields.String(required=True, validate=validate.OneOf(("ready", "unavailable")))
    checks = fields.Dict(keys=fields.String(), values=fields.Dict(), required=True)
