"""Receipts checked against this deployment's database: the CLI's `verify --receipts` and the dispute report.

The checking itself is `infra.receipts.check_receipts` (pure: receipts, the key list as GET /v1/keys
answers it, and version -> hash of the table's log), which clients that read the API instead of the
database call the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from infra.key_chain import PinnedKey, TrustedKeys, trusted_keys
from infra.receipts import (
    PROVES_NOTHING,
    REWRITTEN_HISTORY,
    Receipt,
    ReceiptCheck,
    ReceiptFormatError,
    check_receipts,
    load_receipts,
)
from infra.signing import log_deals, log_hashes, public_keys


def check_table_receipts(
    conn: Any,
    table_id: str,
    receipts: Sequence[Receipt],
    pinned: Sequence[PinnedKey] | None = None,
    withheld_deal: Callable[[int], bool] = lambda deal_no: False,
) -> tuple[TrustedKeys, list[ReceiptCheck]]:
    """Each receipt checked against the trusted keys (`pinned` and the keys endorsed from them, or every listed
    key when None) and `table_id`'s log (receipts of other tables: "other_table"). A receipt at a version of a
    deal whose hashes the reader may not see (`withheld_deal`) is "withheld": its hash is neither read nor told."""
    versions = [r.version for r in receipts if r.table_id == table_id]
    deals = log_deals(conn, table_id, versions)
    hidden_deals = {deal_no for deal_no in set(deals.values()) if withheld_deal(deal_no)}  # once per deal
    withheld = {version for version, deal_no in deals.items() if deal_no in hidden_deals}
    hashes = log_hashes(conn, table_id, [version for version in versions if version not in withheld])
    trusted = trusted_keys(public_keys(conn), pinned)
    checks = check_receipts(receipts, trusted.keys, hashes, table_id=table_id, pinned=trusted.pinned, withheld=withheld)
    return trusted, checks


def check_receipts_in(
    pool: Any, table_id: str, receipts: Sequence[Receipt], pinned: Sequence[PinnedKey] | None = None
) -> tuple[TrustedKeys, list[ReceiptCheck]]:
    """`check_table_receipts` on a connection of `pool`."""
    with pool.connection() as conn:
        return check_table_receipts(conn, table_id, receipts, pinned)


def receipts_exit_status(checks: Sequence[ReceiptCheck]) -> int:
    """1 when a receipt proves the history rewritten (the only evidence a receipt gives); 2 when receipts were
    given and none could be checked (each proves nothing); else 0."""
    if any(check.verdict == REWRITTEN_HISTORY for check in checks):
        return 1
    if checks and all(check.verdict in PROVES_NOTHING for check in checks):
        return 2
    return 0


def read_receipts_file(path: str | Path) -> list[Receipt]:
    """The receipts of a JSON file (a list of receipt objects); ReceiptFormatError names the file, entry and field."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ReceiptFormatError(f"{path}: cannot read the receipts file ({error})") from None
    try:
        return load_receipts(text)
    except ReceiptFormatError as error:
        raise ReceiptFormatError(f"{path}: {error}") from None


def receipts_text(checks: Sequence[ReceiptCheck], trusted: TrustedKeys | None = None) -> str:
    """One line per receipt and a summary line, for the terminal (after the keys' line, when given)."""
    lines = [] if trusted is None else [trusted.note]
    for check in checks:
        label = "ok" if check.ok else check.verdict.upper().replace("_", " ")
        lines.append(f"receipt {check.index} (version {check.receipt.version}): {label}: {check.explanation}")
    proofs = [c for c in checks if c.verdict == REWRITTEN_HISTORY]
    nothing = [c for c in checks if c.verdict in PROVES_NOTHING]
    summary = f"receipts: {len(checks)} checked, {len(proofs)} prove a rewritten history, {len(nothing)} prove nothing"
    if proofs:
        summary += "; the log contradicts receipts the service signed: its history was rewritten"
    return "\n".join([*lines, summary])


def receipts_section(checks: Sequence[ReceiptCheck]) -> dict[str, Any]:
    """The `receipts` section of the dispute report: the checks of the receipts for its table."""
    mine = [c for c in checks if c.log != "other_table"]
    failed = [c for c in mine if not c.ok]
    return {
        "checked": len(mine),
        "failed": len(failed),
        "ok": not failed,
        "rewritten_history": any(c.verdict == REWRITTEN_HISTORY for c in mine),
        "ignored_other_tables": len(checks) - len(mine),
        "results": [c.to_json() for c in mine],
    }
