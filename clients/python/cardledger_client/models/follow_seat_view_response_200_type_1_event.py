from typing import Literal

FollowSeatViewResponse200Type1Event = Literal['error', 'view']

FOLLOW_SEAT_VIEW_RESPONSE_200_TYPE_1_EVENT_VALUES: set[FollowSeatViewResponse200Type1Event] = { 'error', 'view',  }

def check_follow_seat_view_response_200_type_1_event(value: str) -> FollowSeatViewResponse200Type1Event:
    if value in FOLLOW_SEAT_VIEW_RESPONSE_200_TYPE_1_EVENT_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {FOLLOW_SEAT_VIEW_RESPONSE_200_TYPE_1_EVENT_VALUES!r}")
