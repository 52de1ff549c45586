from enum import StrEnum

class VerificationProblemCheck(StrEnum):
    COMMITMENT = "commitment"
    DECK = "deck"
    HASH_CHAIN = "hash_chain"
    REPLAY = "replay"

    def __str__(self) -> str:
        return str(self.value)
