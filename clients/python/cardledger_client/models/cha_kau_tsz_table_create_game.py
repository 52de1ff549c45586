from enum import StrEnum

class ChaKauTszTableCreateGame(StrEnum):
    CHA_KAU_TSZ = "cha-kau-tsz"

    def __str__(self) -> str:
        return str(self.value)
