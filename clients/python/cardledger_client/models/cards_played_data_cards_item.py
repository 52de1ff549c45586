from typing import Literal

CardsPlayedDataCardsItem = Literal['1D', '1H', '1S', '2D', '2H', '2S', '3D', '3H', '3S', '4D', '4H', '4S', '5D', '5H', '5S', '6D', '6H', '6S', '7D', '7H', '7S', '8D', '8H', '8S', '9D', '9H', '9S', 'JC', 'KC', 'QC']

CARDS_PLAYED_DATA_CARDS_ITEM_VALUES: set[CardsPlayedDataCardsItem] = { '1D', '1H', '1S', '2D', '2H', '2S', '3D', '3H', '3S', '4D', '4H', '4S', '5D', '5H', '5S', '6D', '6H', '6S', '7D', '7H', '7S', '8D', '8H', '8S', '9D', '9H', '9S', 'JC', 'KC', 'QC',  }

def check_cards_played_data_cards_item(value: str) -> CardsPlayedDataCardsItem:
    if value in CARDS_PLAYED_DATA_CARDS_ITEM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {CARDS_PLAYED_DATA_CARDS_ITEM_VALUES!r}")
