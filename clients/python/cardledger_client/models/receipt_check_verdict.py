from typing import Literal

ReceiptCheckVerdict = Literal['bad_signature', 'ok', 'rewritten_history', 'unknown_key']

RECEIPT_CHECK_VERDICT_VALUES: set[ReceiptCheckVerdict] = { 'bad_signature', 'ok', 'rewritten_history', 'unknown_key',  }

def check_receipt_check_verdict(value: str) -> ReceiptCheckVerdict:
    if value in RECEIPT_CHECK_VERDICT_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {RECEIPT_CHECK_VERDICT_VALUES!r}")
