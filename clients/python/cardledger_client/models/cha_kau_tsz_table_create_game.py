from typing import Literal

ChaKauTszTableCreateGame = Literal['cha-kau-tsz']

CHA_KAU_TSZ_TABLE_CREATE_GAME_VALUES: set[ChaKauTszTableCreateGame] = { 'cha-kau-tsz',  }

def check_cha_kau_tsz_table_create_game(value: str) -> ChaKauTszTableCreateGame:
    if value in CHA_KAU_TSZ_TABLE_CREATE_GAME_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {CHA_KAU_TSZ_TABLE_CREATE_GAME_VALUES!r}")
