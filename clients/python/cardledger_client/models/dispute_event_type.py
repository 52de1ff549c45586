from typing import Literal

DisputeEventType = Literal['bonus_paid', 'card_discarded', 'card_turned_up', 'cards_drawn', 'cards_played', 'deal_ended', 'deal_started', 'hand_dealt', 'hand_scored', 'hand_started', 'player_left', 'player_ready', 'player_seated', 'table_closed', 'table_opened', 'trick_won', 'turn_up_captured', 'turn_up_passed']

DISPUTE_EVENT_TYPE_VALUES: set[DisputeEventType] = { 'bonus_paid', 'card_discarded', 'card_turned_up', 'cards_drawn', 'cards_played', 'deal_ended', 'deal_started', 'hand_dealt', 'hand_scored', 'hand_started', 'player_left', 'player_ready', 'player_seated', 'table_closed', 'table_opened', 'trick_won', 'turn_up_captured', 'turn_up_passed',  }

def check_dispute_event_type(value: str) -> DisputeEventType:
    if value in DISPUTE_EVENT_TYPE_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {DISPUTE_EVENT_TYPE_VALUES!r}")
