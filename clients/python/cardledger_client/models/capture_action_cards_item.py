from typing import Literal

CaptureActionCardsItem = Literal['1C', '1M', '1S', '2C', '2M', '2S', '3C', '3M', '3S', '4C', '4M', '4S', '5C', '5M', '5S', '6C', '6M', '6S', '7C', '7M', '7S', '8C', '8M', '8S', '9C', '9M', '9S', 'OT', 'RF', 'WF']

CAPTURE_ACTION_CARDS_ITEM_VALUES: set[CaptureActionCardsItem] = { '1C', '1M', '1S', '2C', '2M', '2S', '3C', '3M', '3S', '4C', '4M', '4S', '5C', '5M', '5S', '6C', '6M', '6S', '7C', '7M', '7S', '8C', '8M', '8S', '9C', '9M', '9S', 'OT', 'RF', 'WF',  }

def check_capture_action_cards_item(value: str) -> CaptureActionCardsItem:
    if value in CAPTURE_ACTION_CARDS_ITEM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {CAPTURE_ACTION_CARDS_ITEM_VALUES!r}")
