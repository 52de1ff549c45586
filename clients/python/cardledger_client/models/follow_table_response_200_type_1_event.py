from typing import Literal

FollowTableResponse200Type1Event = Literal['bonus_paid', 'card_discarded', 'card_turned_up', 'cards_drawn', 'cards_played', 'deal_ended', 'deal_started', 'error', 'hand_dealt', 'hand_scored', 'hand_started', 'player_left', 'player_ready', 'player_seated', 'table_closed', 'table_opened', 'trick_won', 'turn_up_captured', 'turn_up_passed']

FOLLOW_TABLE_RESPONSE_200_TYPE_1_EVENT_VALUES: set[FollowTableResponse200Type1Event] = { 'bonus_paid', 'card_discarded', 'card_turned_up', 'cards_drawn', 'cards_played', 'deal_ended', 'deal_started', 'error', 'hand_dealt', 'hand_scored', 'hand_started', 'player_left', 'player_ready', 'player_seated', 'table_closed', 'table_opened', 'trick_won', 'turn_up_captured', 'turn_up_passed',  }

def check_follow_table_response_200_type_1_event(value: str) -> FollowTableResponse200Type1Event:
    if value in FOLLOW_TABLE_RESPONSE_200_TYPE_1_EVENT_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {FOLLOW_TABLE_RESPONSE_200_TYPE_1_EVENT_VALUES!r}")
