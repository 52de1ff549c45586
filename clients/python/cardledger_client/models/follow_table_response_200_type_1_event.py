from enum import StrEnum

class FollowTableResponse200Type1Event(StrEnum):
    BONUS_PAID = "bonus_paid"
    CARDS_DRAWN = "cards_drawn"
    CARDS_PLAYED = "cards_played"
    CARD_DISCARDED = "card_discarded"
    CARD_TURNED_UP = "card_turned_up"
    DEAL_ENDED = "deal_ended"
    DEAL_STARTED = "deal_started"
    ERROR = "error"
    HAND_DEALT = "hand_dealt"
    HAND_SCORED = "hand_scored"
    HAND_STARTED = "hand_started"
    PLAYER_LEFT = "player_left"
    PLAYER_READY = "player_ready"
    PLAYER_SEATED = "player_seated"
    TABLE_CLOSED = "table_closed"
    TABLE_OPENED = "table_opened"
    TRICK_WON = "trick_won"
    TURN_UP_CAPTURED = "turn_up_captured"
    TURN_UP_PASSED = "turn_up_passed"

    def __str__(self) -> str:
        return str(self.value)
