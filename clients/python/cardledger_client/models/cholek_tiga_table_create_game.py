from enum import StrEnum

class CholekTigaTableCreateGame(StrEnum):
    CHOLEK_TIGA = "cholek-tiga"

    def __str__(self) -> str:
        return str(self.value)
