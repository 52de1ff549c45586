from typing import Literal

CholekTigaOptionsHonoursRank = Literal['ace', 'own']

CHOLEK_TIGA_OPTIONS_HONOURS_RANK_VALUES: set[CholekTigaOptionsHonoursRank] = { 'ace', 'own',  }

def check_cholek_tiga_options_honours_rank(value: str) -> CholekTigaOptionsHonoursRank:
    if value in CHOLEK_TIGA_OPTIONS_HONOURS_RANK_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {CHOLEK_TIGA_OPTIONS_HONOURS_RANK_VALUES!r}")
