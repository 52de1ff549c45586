from enum import StrEnum

class ReceiptCheckVerdict(StrEnum):
    BAD_SIGNATURE = "bad_signature"
    OK = "ok"
    REWRITTEN_HISTORY = "rewritten_history"
    UNKNOWN_KEY = "unknown_key"

    def __str__(self) -> str:
        return str(self.value)
