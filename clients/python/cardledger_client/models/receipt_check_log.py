from enum import StrEnum

class ReceiptCheckLog(StrEnum):
    CONTRADICTS = "contradicts"
    MATCHES = "matches"
    MISSING = "missing"

    def __str__(self) -> str:
        return str(self.value)
