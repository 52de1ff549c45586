"""Benchmarks (`python -m bench`). The stacks they start sign receipts with a key made for the run, unless
CARDLEDGER_SIGNING_KEY is set (with DATABASE_URL set the API refuses to start without one)."""

import os

from infra.signing import SIGNING_KEY_VARIABLE, new_signing_key

if not os.environ.get(SIGNING_KEY_VARIABLE, "").strip():
    os.environ[SIGNING_KEY_VARIABLE] = new_signing_key()
