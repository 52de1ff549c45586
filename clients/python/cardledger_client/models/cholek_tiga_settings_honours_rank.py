from typing import Literal

CholekTigaSettingsHonoursRank = Literal['ace', 'own']

CHOLEK_TIGA_SETTINGS_HONOURS_RANK_VALUES: set[CholekTigaSettingsHonoursRank] = { 'ace', 'own',  }

def check_cholek_tiga_settings_honours_rank(value: str) -> CholekTigaSettingsHonoursRank:
    if value in CHOLEK_TIGA_SETTINGS_HONOURS_RANK_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {CHOLEK_TIGA_SETTINGS_HONOURS_RANK_VALUES!r}")
