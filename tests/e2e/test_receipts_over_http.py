"""Receipts from the real processes (`cardledger up`: gunicorn with two workers): every worker signs with the
one key the stack was given, and that key is listed by GET /v1/keys."""

from __future__ import annotations

import base64
import os

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from infra.signing import SIGNING_KEY_VARIABLE, ReceiptSigner, parse_signing_key
from tests.e2e.bots import call, register

pytestmark = pytest.mark.slow


def test_every_api_worker_signs_with_the_configured_key(stack: str) -> None:
    expected = ReceiptSigner.from_seed(parse_signing_key(os.environ[SIGNING_KEY_VARIABLE]))  # tests/conftest.py
    receipts = []
    for n in range(12):  # a new connection per request: the two workers share them
        _, token = register(stack, f"receipt-{n}")
        receipts.append(call("POST", f"{stack}/v1/tables", {"game": "cholek-tiga", "seats": 2}, token)["receipt"])
    keys = {key["key_id"]: key for key in call("GET", f"{stack}/v1/keys")["keys"]}
    assert {receipt["key_id"] for receipt in receipts} == {expected.key_id}
    assert keys[expected.key_id]["public_key"] == expected.public_key
    public = Ed25519PublicKey.from_public_bytes(base64.urlsafe_b64decode(expected.public_key + "="))
    for r in receipts:
        message = f"cardledger-receipt-v1\n{r['table_id']}\n{r['version']}\n{r['hash']}\n{r['signed_at']}".encode()
        public.verify(base64.urlsafe_b64decode(r["signature"] + "=="), message)
