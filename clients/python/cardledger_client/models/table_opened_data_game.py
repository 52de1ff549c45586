from typing import Literal

TableOpenedDataGame = Literal['cha-kau-tsz', 'cholek-tiga']

TABLE_OPENED_DATA_GAME_VALUES: set[TableOpenedDataGame] = { 'cha-kau-tsz', 'cholek-tiga',  }

def check_table_opened_data_game(value: str) -> TableOpenedDataGame:
    if value in TABLE_OPENED_DATA_GAME_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {TABLE_OPENED_DATA_GAME_VALUES!r}")
