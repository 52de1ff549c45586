from typing import Literal

TableTrickItemCardsItem = Literal['1D', '1H', '1S', '2D', '2H', '2S', '3D', '3H', '3S', '4D', '4H', '4S', '5D', '5H', '5S', '6D', '6H', '6S', '7D', '7H', '7S', '8D', '8H', '8S', '9D', '9H', '9S', 'JC', 'KC', 'QC']

TABLE_TRICK_ITEM_CARDS_ITEM_VALUES: set[TableTrickItemCardsItem] = { '1D', '1H', '1S', '2D', '2H', '2S', '3D', '3H', '3S', '4D', '4H', '4S', '5D', '5H', '5S', '6D', '6H', '6S', '7D', '7H', '7S', '8D', '8H', '8S', '9D', '9H', '9S', 'JC', 'KC', 'QC',  }

def check_table_trick_item_cards_item(value: str) -> TableTrickItemCardsItem:
    if value in TABLE_TRICK_ITEM_CARDS_ITEM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {TABLE_TRICK_ITEM_CARDS_ITEM_VALUES!r}")
