from typing import Literal

OpenedTablePilesItemItem = Literal['1C', '1M', '1S', '2C', '2M', '2S', '3C', '3M', '3S', '4C', '4M', '4S', '5C', '5M', '5S', '6C', '6M', '6S', '7C', '7M', '7S', '8C', '8M', '8S', '9C', '9M', '9S', 'OT', 'RF', 'WF']

OPENED_TABLE_PILES_ITEM_ITEM_VALUES: set[OpenedTablePilesItemItem] = { '1C', '1M', '1S', '2C', '2M', '2S', '3C', '3M', '3S', '4C', '4M', '4S', '5C', '5M', '5S', '6C', '6M', '6S', '7C', '7M', '7S', '8C', '8M', '8S', '9C', '9M', '9S', 'OT', 'RF', 'WF',  }

def check_opened_table_piles_item_item(value: str) -> OpenedTablePilesItemItem:
    if value in OPENED_TABLE_PILES_ITEM_ITEM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {OPENED_TABLE_PILES_ITEM_ITEM_VALUES!r}")
