"""Examples of the document: real answers of the service (one Cholek Tiga table of two players, captured once and
trimmed), and request bodies. tests/api/test_spec_examples.py validates each against its schema."""

from __future__ import annotations

from typing import Any

PLAYER: dict[str, Any] = {
    "id": "8b538e75-050c-430e-8312-10125ec509c6",
    "name": "alice",
    "token": "8b538e75-050c-430e-8312-10125ec509c6.ftcZtt2gNuwhrZrWe_P7q3dgKstZO7svuKzLwRsp7-E",
}

OPENED_TABLE: dict[str, Any] = {
    "id": "7fd3271a-8e80-40c4-b730-4355991c3e44",
    "game": "cholek-tiga",
    "seats": 2,
    "options": {
        "currency": "SGD",
        "honours_rank": "own",
        "in_play_bonuses": False,
        "point_value_cents": 10,
        "turn_seconds": 60,
    },
    "status": "open",
    "players": [None, None],
    "deal_no": 0,
    "to_act": None,
    "version": 1,
    "next_deal": {"deal_no": 1, "commitment": "c9be34ac70949129cf7ff53399b3da5de6e0dba4d7fbf47cd6de2a524b3d88a4"},
    "ready": [],
    "turn_deadline": None,
    "receipt": {
        "table_id": "7fd3271a-8e80-40c4-b730-4355991c3e44",
        "version": 1,
        "hash": "16c017e5ce08b82443d5c3f1f8e152b2027f8a0ef8cf536d7cd47d1b81ad5218",
        "signed_at": "2026-12-01T16:26:17.681881Z",
        "key_id": "ed25519:90b289e6b8eb91a8",
        "signature": "2NvefGnOdbFE3b3fKjiTZw6KlKXInduM2dy5V6tiUENNNP6y9P67-03wYP7yMNbdsCTGiYv2-P-aB3CL0MSYBA",
    },
}

SEAT: dict[str, Any] = {
    "seat": 0,
    "version": 2,
    "receipt": {
        "table_id": "7fd3271a-8e80-40c4-b730-4355991c3e44",
        "version": 2,
        "hash": "ac98268139d2c8f0ad51b6b1f8aabd944cb1bba80abd055cf9e1dbe32011a981",
        "signed_at": "2026-12-01T16:26:17.691140Z",
        "key_id": "ed25519:90b289e6b8eb91a8",
        "signature": "lkc_csJaxjBtkdskXkOJT8br6nVo8JdytK1NSi80mNlyZ9GPmZb2-UoGIQe6p_0uU2-x0XB9_xhgOEkJfhN9BQ",
    },
}

TABLE: dict[str, Any] = {
    "id": "7fd3271a-8e80-40c4-b730-4355991c3e44",
    "game": "cholek-tiga",
    "seats": 2,
    "options": {
        "currency": "SGD",
        "honours_rank": "own",
        "in_play_bonuses": False,
        "point_value_cents": 10,
        "turn_seconds": 60,
    },
    "status": "playing",
    "players": [
        {"id": "8b538e75-050c-430e-8312-10125ec509c6", "name": "alice"},
        {"id": "75931ed3-fe6b-4d4c-804b-76ce11178425", "name": "bob"},
    ],
    "deal_no": 1,
    "to_act": 0,
    "version": 6,
    "next_deal": None,
    "ready": [],
    "turn_deadline": "2026-12-01T16:27:17.698046Z",
    "pool": [],
    "piles": [[], []],
    "hand_sizes": [3, 3],
    "stock_remaining": 114,
    "pending": None,
    "scores": None,
    "round": 1,
    "first_seat": 0,
}

CHOLEK_TIGA_SEAT_VIEW: dict[str, Any] = {
    "id": "7fd3271a-8e80-40c4-b730-4355991c3e44",
    "game": "cholek-tiga",
    "seats": 2,
    "options": {
        "currency": "SGD",
        "honours_rank": "own",
        "in_play_bonuses": False,
        "point_value_cents": 10,
        "turn_seconds": 60,
    },
    "status": "playing",
    "players": [
        {"id": "8b538e75-050c-430e-8312-10125ec509c6", "name": "alice"},
        {"id": "75931ed3-fe6b-4d4c-804b-76ce11178425", "name": "bob"},
    ],
    "deal_no": 1,
    "to_act": 0,
    "version": 6,
    "next_deal": None,
    "ready": [],
    "turn_deadline": "2026-12-01T16:27:17.698046Z",
    "pool": [],
    "piles": [[], []],
    "hand_sizes": [3, 3],
    "stock_remaining": 114,
    "pending": None,
    "scores": None,
    "seat": 0,
    "hand": ["1S", "5S", "7C"],
    "legal_actions": [
        {"type": "discard", "card": "1S", "capture": None},
        {"type": "discard", "card": "5S", "capture": None},
        {"type": "discard", "card": "7C", "capture": None},
    ],
    "round": 1,
    "first_seat": 0,
}

CHA_KAU_TSZ_SEAT_VIEW: dict[str, Any] = {
    "id": "3de9816c-8b38-49bc-8d3a-228f4f1af1ef",
    "game": "cha-kau-tsz",
    "seats": 2,
    "options": {
        "chip_value_cents": 10,
        "chip_values": {"blue": 10, "red": 5, "white": 1},
        "pool_target_tricks": 10,
        "turn_seconds": 60,
    },
    "status": "playing",
    "players": [
        {"id": "8b538e75-050c-430e-8312-10125ec509c6", "name": "alice"},
        {"id": "75931ed3-fe6b-4d4c-804b-76ce11178425", "name": "bob"},
    ],
    "deal_no": 1,
    "to_act": 1,
    "version": 7,
    "next_deal": None,
    "ready": [],
    "turn_deadline": "2026-12-01T16:27:17.783099Z",
    "pool": 0,
    "hand_sizes": [15, 15],
    "dealer": 0,
    "leader": 1,
    "trick": [],
    "tricks": [0, 0],
    "balances": [0, 0],
    "seat": 1,
    "hand": ["1S", "2S", "2S", "3S", "4S", "6S", "1D", "4D", "5D", "5D", "9D", "3H", "6H", "7H", "KC"],
    "legal_actions": [
        {"type": "play", "cards": ["1S"]},
        {"type": "play", "cards": ["2S"]},
        {"type": "play", "cards": ["1S", "2S", "3S", "4S"]},
    ],
    "hand_no": 1,
    "pool_game": 1,
    "hands_in_pool_game": 0,
    "trick_no": 1,
    "last_trick": None,
    "stacks": [85, 85],
    "starting_stack": 85,
    "debts": [],
}

ACTION_RESULT: dict[str, Any] = {
    "version": 8,
    "events": [
        {
            "position": 7,
            "global_position": 7,
            "type": "card_discarded",
            "deal_no": 1,
            "occurred_at": "2026-12-01T16:26:17.745561Z",
            "data": {"seat": 0, "card": "1S", "capture": None},
            "metadata": {
                "actor": "8b538e75-050c-430e-8312-10125ec509c6",
                "request_id": "1c16909765c6405f997632e9877f9a15",
            },
            "schema_version": 1,
            "hash_version": 2,
            "prev_hash": "14857705b7eb7c82572f252011fa7fdb2c2414a798b568c93a9762867c5e0e06",
            "hash": "031d19a7aa0d32249c3ab644cc4918aa603aa35680557a740747c4eb4a9d81c5",
        },
        {
            "position": 8,
            "global_position": 8,
            "type": "card_turned_up",
            "deal_no": 1,
            "occurred_at": "2026-12-01T16:26:17.745561Z",
            "data": {"seat": 0, "card": "4M", "cards": ["4M"], "deck_indexes": [6], "can_capture": False},
            "metadata": {
                "actor": "8b538e75-050c-430e-8312-10125ec509c6",
                "request_id": "1c16909765c6405f997632e9877f9a15",
            },
            "schema_version": 1,
            "hash_version": 2,
            "prev_hash": "031d19a7aa0d32249c3ab644cc4918aa603aa35680557a740747c4eb4a9d81c5",
            "hash": "e01c26c97a3edcd61571aca4936a9e0695667fe8b569d65ef2386a21beab7eff",
        },
    ],
    "receipt": {
        "table_id": "7fd3271a-8e80-40c4-b730-4355991c3e44",
        "version": 8,
        "hash": "e01c26c97a3edcd61571aca4936a9e0695667fe8b569d65ef2386a21beab7eff",
        "signed_at": "2026-12-01T16:26:17.745650Z",
        "key_id": "ed25519:90b289e6b8eb91a8",
        "signature": "DGIXtqtWBQLMVf3YysuXWd9OLphTEm_kIzSEaWOARLQdKNLo6jx8HzhbQZ2_i3JJgpYF-JxcKItoMIYjgAS5AQ",
    },
}

EVENTS_PAGE: dict[str, Any] = {
    "events": [
        {
            "position": 1,
            "global_position": 1,
            "type": "table_opened",
            "deal_no": 0,
            "occurred_at": "2026-12-01T16:26:17.677913Z",
            "data": {
                "commitment": "c9be34ac70949129cf7ff53399b3da5de6e0dba4d7fbf47cd6de2a524b3d88a4",
                "game": "cholek-tiga",
                "options": {
                    "currency": "SGD",
                    "honours_rank": "own",
                    "in_play_bonuses": False,
                    "point_value_cents": 10,
                    "turn_seconds": 60,
                },
                "seats": 2,
                "table_id": "7fd3271a-8e80-40c4-b730-4355991c3e44",
            },
            "metadata": {
                "actor": "8b538e75-050c-430e-8312-10125ec509c6",
                "request_id": "2812b6ebfb204e0b8274b3b07c63cc22",
            },
            "schema_version": 1,
            "hash_version": 2,
            "prev_hash": "0000000000000000000000000000000000000000000000000000000000000000",
            "hash": "16c017e5ce08b82443d5c3f1f8e152b2027f8a0ef8cf536d7cd47d1b81ad5218",
        },
        {
            "position": 2,
            "global_position": 2,
            "type": "player_seated",
            "deal_no": 0,
            "occurred_at": "2026-12-01T16:26:17.691077Z",
            "data": {"client_seed": "", "player_id": "8b538e75-050c-430e-8312-10125ec509c6", "seat": 0},
            "metadata": {
                "actor": "8b538e75-050c-430e-8312-10125ec509c6",
                "request_id": "df0c19349a8a47c1a565b2cbb9a6516a",
            },
            "schema_version": 1,
            "hash_version": 2,
            "prev_hash": "16c017e5ce08b82443d5c3f1f8e152b2027f8a0ef8cf536d7cd47d1b81ad5218",
            "hash": "ac98268139d2c8f0ad51b6b1f8aabd944cb1bba80abd055cf9e1dbe32011a981",
        },
    ],
    "next_after": 2,
}

# The worked vector of docs/hashing.md, "The chain of signing keys" (seeds 00..1f and 20..3f; checked by
# tests/unit/test_key_chain.py).
KEYS: dict[str, Any] = {
    "keys": [
        {
            "key_id": "ed25519:56475aa75463474c",
            "algorithm": "Ed25519",
            "public_key": "A6EHv_POEL4dcN0Y50vAmWfk1jCbpQ1fHdyGZBJVMbg",
            "created_at": "2026-12-01T16:26:17.586823Z",
            "endorsed_by": None,
            "endorsement": None,
        },
        {
            "key_id": "ed25519:24f6ed6acbfe1009",
            "algorithm": "Ed25519",
            "public_key": "Kay64UG8yvCyLhqU000LxzYeUm0L_hLIl5S8kyKWbdc",
            "created_at": "2026-12-05T09:00:00.000000Z",
            "endorsed_by": "ed25519:56475aa75463474c",
            "endorsement": "uGJQPxn_Olfdq8xY-7kzXiq3M6WGZb3MpZV7RWncadAXRiplbneQVIzBfseFTyM9bdBUoQW5OPeTCq1stjufCw",
        },
    ]
}

DEAL_RECORD: dict[str, Any] = {
    "table_id": "7fd3271a-8e80-40c4-b730-4355991c3e44",
    "game": "cholek-tiga",
    "deal_no": 1,
    "status": "ended",
    "started_version": 4,
    "ended_version": 174,
    "commitment": "c9be34ac70949129cf7ff53399b3da5de6e0dba4d7fbf47cd6de2a524b3d88a4",
    "client_seeds": ["", ""],
    "server_seed": "3d5df71d9bb07add47800d30b6df9edbfba92994dd7e04f97d2f66713008ce94",
    "next_commitment": "e49723ba03b4132d5dafd0f1220d68bcc223cd5639e10554487316ed2eac1f71",
    "result": {
        "leftover_pool": ["9M", "8C", "9S", "7S"],
        "net": [-60, 60],
        "piles": [["2M", "2C", "2M", "4C", "4C", "4M"], ["WF", "RF", "WF", "9M", "9C", "9S"]],
        "scores": [49, 55],
    },
    "net": [-60, 60],
    "unit": "cents",
    "transfers": [
        {"payer": "seat:0", "payee": "seat:1", "amount": 60, "reason": "points"},
        {"payer": "seat:1", "payee": "seat:0", "amount": 100, "reason": "ang_pow"},
        {"payer": "seat:0", "payee": "seat:1", "amount": 100, "reason": "ang_pow"},
    ],
    "verification": {
        "checked": "all",
        "commitment_matches_seed": True,
        "deck_matches_seed": True,
        "hash_chain_intact": True,
        "replay_matches": True,
        "first_bad_event": None,
        "problems": [],
        "ok": True,
    },
    "players": ["8b538e75-050c-430e-8312-10125ec509c6", "75931ed3-fe6b-4d4c-804b-76ce11178425"],
    "timed_out_actions": [0, 0],
}

LEDGER: dict[str, Any] = {
    "table_id": "7fd3271a-8e80-40c4-b730-4355991c3e44",
    "game": "cholek-tiga",
    "unit": "cents",
    "lines": [
        {
            "global_position": 181,
            "line_no": 1,
            "version": 174,
            "event_type": "deal_ended",
            "deal_no": 1,
            "account": "seat:0",
            "player_id": "8b538e75-050c-430e-8312-10125ec509c6",
            "amount": -60,
            "unit": "cents",
            "amount_cents": -60,
            "reason": "points",
            "occurred_at": "2026-12-01T16:26:18.639969+00:00",
        },
        {
            "global_position": 181,
            "line_no": 2,
            "version": 174,
            "event_type": "deal_ended",
            "deal_no": 1,
            "account": "seat:1",
            "player_id": "75931ed3-fe6b-4d4c-804b-76ce11178425",
            "amount": 60,
            "unit": "cents",
            "amount_cents": 60,
            "reason": "points",
            "occurred_at": "2026-12-01T16:26:18.639969+00:00",
        },
    ],
    "totals": [
        {"account": "seat:0", "player_id": "8b538e75-050c-430e-8312-10125ec509c6", "amount": -60, "amount_cents": -60},
        {"account": "seat:1", "player_id": "75931ed3-fe6b-4d4c-804b-76ce11178425", "amount": 60, "amount_cents": 60},
    ],
    "sum_amount": 0,
    "sum_cents": 0,
    "balanced": True,
    "line_count": 6,
    "next_after": "181:2",
}

SETTLEMENT: dict[str, Any] = {
    "period": {
        "from": None,
        "to": None,
        "bounds": "from inclusive, to exclusive; deals are dated by their deal_ended event, a closing's "
        "pool refund by its table_closed event",
    },
    "player_id": "8b538e75-050c-430e-8312-10125ec509c6",
    "table_id": "7fd3271a-8e80-40c4-b730-4355991c3e44",
    "currency_unit": "cents",
    "rows": [
        {
            "player_id": "8b538e75-050c-430e-8312-10125ec509c6",
            "name": "alice",
            "shown_as": "alice",
            "account": "seat:0",
            "table_id": "7fd3271a-8e80-40c4-b730-4355991c3e44",
            "game": "cholek-tiga",
            "unit": "cents",
            "net_amount": -60,
            "net_cents": -60,
            "currency": "SGD",
            "deals": 1,
        }
    ],
    "players": [{"player_id": "8b538e75-050c-430e-8312-10125ec509c6", "name": "alice", "net_cents": -60, "tables": 1}],
    "tables": [
        {"table_id": "7fd3271a-8e80-40c4-b730-4355991c3e44", "game": "cholek-tiga", "deals": 1, "net_cents_shown": -60}
    ],
    "total_cents": -60,
    "deals": 1,
    "balance_cents": 0,
    "balanced": True,
    "balanced_scope": "every account (seats and the pool) of the tables in this report",
    "consistent_with_deal_results": True,
    "discrepancies": [],
    "next_after": None,
    "log_position": {"tx_id": "1047", "global_position": 212},
}

# Request bodies ---------------------------------------------------------------------

PLAYER_CREATE = {"name": "alice"}
WHO_AM_I: dict[str, Any] = {"id": "3ff592bc-6a86-4a55-9c1e-1f4a8b1f0d2e", "name": "alice", "role": "player"}

TABLE_CREATE = {
    "cholek-tiga": {
        "summary": "Cholek Tiga for two, 10 cents a point",
        "value": {"game": "cholek-tiga", "seats": 2, "options": {"point_value_cents": 10, "honours_rank": "own"}},
    },
    "cha-kau-tsz": {
        "summary": "Cha Kau Tsz for three, the pool won at 9 tricks",
        "value": {"game": "cha-kau-tsz", "seats": 3, "options": {"pool_target_tricks": 9, "turn_seconds": 120}},
    },
}

SEAT_REQUEST = {
    "first-free": {"summary": "the first free seat", "value": {}},
    "chosen": {"summary": "seat 1, with a seed of my own", "value": {"seat": 1, "client_seed": "my lucky words"}},
}

ACTIONS = {
    "discard": {"summary": "Cholek Tiga: discard, capturing nothing", "value": {"type": "discard", "card": "7C"}},
    "discard-capture": {
        "summary": "Cholek Tiga: discard 7C, taking a pair of sevens from the pool",
        "value": {"type": "discard", "card": "7C", "capture": ["7M", "7S"]},
    },
    "capture": {"summary": "Cholek Tiga: take the turned-up card", "value": {"type": "capture", "cards": ["4C", "4S"]}},
    "pass": {"summary": "Cholek Tiga: leave the turned-up card", "value": {"type": "pass"}},
    "play": {"summary": "Cha Kau Tsz: lead a sequence", "value": {"type": "play", "cards": ["1S", "2S", "3S"]}},
    "ready": {"summary": "between deals: ready", "value": {"type": "ready", "client_seed": "another seed"}},
    "close": {"summary": "between deals: close the table", "value": {"type": "close"}},
    "leave": {"summary": "before or between deals: leave", "value": {"type": "leave"}},
}

DISPUTE_RECEIPTS = {
    "table_id": OPENED_TABLE["id"],
    "deal_no": 1,
    "receipts": [OPENED_TABLE["receipt"], ACTION_RESULT["receipt"]],
}
