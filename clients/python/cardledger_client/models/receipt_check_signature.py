from enum import StrEnum

class ReceiptCheckSignature(StrEnum):
    INVALID = "invalid"
    UNKNOWN_KEY = "unknown_key"
    VALID = "valid"

    def __str__(self) -> str:
        return str(self.value)
