"""GET /v1/keys: the public keys that sign write receipts (no authentication: anyone may check a receipt)."""

from __future__ import annotations

from typing import Any

from services.api.deps import container
from services.api.routing import Blueprint, RateLimit, errors
from services.api.schemas.answers import KeysSchema
from services.api.spec.examples import KEYS

blp = Blueprint(
    "keys", __name__, url_prefix="/v1/keys", description="Receipt signing keys", rate_limit=RateLimit("reads")
)


@blp.route("", methods=["GET"])
@errors(blp, 503, operationId="listKeys")
@blp.response(200, KeysSchema, example=KEYS)
def keys() -> dict[str, Any]:
    """Every Ed25519 key that has signed receipts, oldest first (old keys stay listed after a rotation).
    `public_key` is base64url (no padding) of the raw 32 bytes; `key_id` is "ed25519:" + the first 16 hex digits
    of its SHA-256. A receipt's `signature` covers the UTF-8 bytes of
    `"cardledger-receipt-v1\\n" + table_id + "\\n" + version + "\\n" + hash + "\\n" + signed_at`."""
    return {"keys": container().ledger.queries.signing_keys()}
