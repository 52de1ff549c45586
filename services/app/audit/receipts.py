"""Receipts checked against this deployment's database: the CLI's `verify --receipts` and the dispute report.

The checking itself is `infra.receipts.check_receipts` (pure: receipts, the key list as GET /v1/keys
answers it, and version -> hash of the table's log), which clients that read the API instead of the
database call the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from infra.receipts import REWRITTEN_HISTORY, Receipt, ReceiptCheck, ReceiptFormatError, check_receipts, load_receipts
from infra.signing import log_hashes, public_keys


def check_table_receipts(conn: Any, table_id: str, receipts: Sequence[Receipt]) -> list[ReceiptCheck]:
    """Each receipt checked against the listed keys and `table_id`'s log (receipts of other tables: "other_table")."""
    hashes = log_hashes(conn, table_id, [r.version for r in receipts])
    return check_receipts(receipts, public_keys(conn), hashes, table_id=table_id)


def check_receipts_in(pool: Any, table_id: str, receipts: Sequence[Receipt]) -> list[ReceiptCheck]:
    """`check_table_receipts` on a connection of `pool`."""
    with pool.connection() as conn:
        return check_table_receipts(conn, table_id, receipts)


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


def receipts_text(checks: Sequence[ReceiptCheck]) -> str:
    """One line per receipt and a summary line, for the terminal."""
    lines = []
    for check in checks:
        label = "ok" if check.ok else check.verdict.upper().replace("_", " ")
        lines.append(f"receipt {check.index} (version {check.receipt.version}): {label}: {check.explanation}")
    failed = [c for c in checks if not c.ok]
    summary = f"receipts: {len(checks)} checked, {len(failed)} failed"
    if any(c.verdict == REWRITTEN_HISTORY for c in failed):
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
