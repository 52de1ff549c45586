"""`cardledger keys add|rotate|export`: the chain of receipt signing keys, kept by the database owner.

Only the owner registers keys (migration 017 leaves the service `SELECT`): `cardledger migrate` and `up`
register the configured key when the chain is empty (`register_configured_key`); `keys add` does the same
alone; `keys rotate` registers the configured key (CARDLEDGER_SIGNING_KEY) endorsed by the chain's latest
(the old seed, from CARDLEDGER_OLD_SIGNING_KEY). `keys export` prints the keys as GET /v1/keys serves them,
the file `cardledger verify --trust-key` reads.
"""

from __future__ import annotations

import argparse
import json
import os
from typing import Any

import psycopg

from infra.config import Settings
from infra.db import connect
from infra.embedded import start_servers
from infra.signing import (
    SIGNING_KEY_VARIABLE,
    ReceiptSigner,
    UnregisteredSigningKey,
    parse_signing_key,
    public_keys,
    register_first_key,
    rotate_key,
    signing_seed,
)
from services.cli.http_client import HttpClient

OLD_KEY_VARIABLE = "CARDLEDGER_OLD_SIGNING_KEY"


class KeyCommandError(Exception):
    """What stops a keys command, in one line, with the exit status."""

    def __init__(self, message: str, status: int = 2) -> None:
        super().__init__(message)
        self.status = status


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="keys_command", required=True, metavar="COMMAND")
    sub.add_parser(
        "add",
        help="register the configured key as the chain's first (as the owner; `migrate` does it too)",
    )
    rotate = sub.add_parser(
        "rotate",
        help=f"register the configured key ({SIGNING_KEY_VARIABLE}) endorsed by the latest key (the old seed, "
        f"${OLD_KEY_VARIABLE})",
    )
    rotate.add_argument(
        "--old-key-env",
        metavar="VAR",
        default=OLD_KEY_VARIABLE,
        help="the variable holding the old key's seed (default: %(default)s)",
    )
    export = sub.add_parser("export", help="print the registered keys as JSON, the file `verify --trust-key` reads")
    export.add_argument("--url", help="read them from the API at this address (GET /v1/keys), not the database")
    export.add_argument("--key-id", help="only this key (e.g. the first, to pin)")


def register_configured_key(owner_url: str, settings: Settings) -> str:
    """As the owner: register the configured key when the chain is empty; a line saying what was done.
    UnregisteredSigningKey when the key is new and the chain is not empty (a rotation's job)."""
    try:
        signer = ReceiptSigner.from_seed(signing_seed(settings))
    except ValueError:
        return f"signing key: none configured ({SIGNING_KEY_VARIABLE}); register one with `cardledger keys add`"
    with connect(owner_url, component="migrate") as conn:
        added = register_first_key(conn, signer)
    return f"signing key {signer.key_id}: " + ("registered, the first of the chain" if added else "registered already")


def run(args: argparse.Namespace, settings: Settings) -> int:
    if args.keys_command == "export":
        return _export(args, settings)
    servers = start_servers(settings)
    try:
        if args.keys_command == "add":
            print(register_configured_key(servers.owner_url, settings))
            return 0
        return _rotate(args, settings, servers.owner_url)
    except UnregisteredSigningKey as error:
        raise KeyCommandError(f"keys {args.keys_command}: {error}", status=1) from None
    except psycopg.Error as error:
        raise KeyCommandError(f"keys {args.keys_command}: the database refused: {error}".strip(), 1) from None
    finally:
        servers.stop()


def _rotate(args: argparse.Namespace, settings: Settings, owner_url: str) -> int:
    old_text = os.environ.get(args.old_key_env, "").strip()
    if not old_text:
        raise KeyCommandError(f"keys rotate: {args.old_key_env} is not set: it holds the old key's seed")
    if settings.signing_key is None:
        raise KeyCommandError(f"keys rotate: {SIGNING_KEY_VARIABLE} is not set: it holds the new key's seed")
    try:
        old = ReceiptSigner.from_seed(parse_signing_key(old_text, args.old_key_env))
    except ValueError as error:
        raise KeyCommandError(f"keys rotate: {error}") from None
    new = ReceiptSigner.from_seed(settings.signing_key)
    if old.key_id == new.key_id:
        raise KeyCommandError(f"keys rotate: {args.old_key_env} and {SIGNING_KEY_VARIABLE} hold the same key")
    with connect(owner_url, component="migrate") as conn:
        added = rotate_key(conn, old, new)
    state = f"registered, endorsed by {old.key_id}" if added else "registered already"
    print(f"signing key {new.key_id}: {state}")
    return 0


def _export(args: argparse.Namespace, settings: Settings) -> int:
    keys = _served_keys(args.url) if args.url else _database_keys(settings)
    if args.key_id is not None:
        keys = [key for key in keys if key.get("key_id") == args.key_id]
        if not keys:
            raise KeyCommandError(f"keys export: key {args.key_id} is not registered", status=1)
    print(json.dumps({"keys": keys}, indent=2))
    return 0


def _database_keys(settings: Settings) -> list[dict[str, Any]]:
    servers = start_servers(settings)
    try:
        with connect(servers.database_url, component="cli") as conn:
            return public_keys(conn)
    except psycopg.Error as error:
        raise KeyCommandError(f"keys export: cannot read signing_keys: {error}".strip(), 1) from None
    finally:
        servers.stop()


def _served_keys(url: str) -> list[dict[str, Any]]:
    address = url.rstrip("/") + "/v1/keys"
    try:
        client = HttpClient(url.rstrip("/"), timeout=10)
        try:
            answer = client.request("GET", "/v1/keys")
        finally:
            client.close()
    except (OSError, ValueError) as error:
        raise KeyCommandError(f"keys export: cannot read {address}: {error}") from None
    if not answer.ok:
        raise KeyCommandError(f"keys export: cannot read {address}: {answer.status} {answer.code}")
    document = answer.payload
    keys = document.get("keys") if isinstance(document, dict) else None
    if not isinstance(keys, list):
        raise KeyCommandError(f'keys export: {address} did not answer {{"keys": [...]}}')
    return keys
