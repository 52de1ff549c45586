from typing import Literal

ReceiptCheckLog = Literal['contradicts', 'matches', 'missing']

RECEIPT_CHECK_LOG_VALUES: set[ReceiptCheckLog] = { 'contradicts', 'matches', 'missing',  }

def check_receipt_check_log(value: str) -> ReceiptCheckLog:
    if value in RECEIPT_CHECK_LOG_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {RECEIPT_CHECK_LOG_VALUES!r}")
