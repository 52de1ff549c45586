from typing import Literal

ReceiptCheckSignature = Literal['invalid', 'unknown_key', 'valid']

RECEIPT_CHECK_SIGNATURE_VALUES: set[ReceiptCheckSignature] = { 'invalid', 'unknown_key', 'valid',  }

def check_receipt_check_signature(value: str) -> ReceiptCheckSignature:
    if value in RECEIPT_CHECK_SIGNATURE_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {RECEIPT_CHECK_SIGNATURE_VALUES!r}")
