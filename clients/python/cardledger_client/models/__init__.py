""" Contains all the data models used in inputs/outputs """

from .action_result import ActionResult
from .bonus_paid_data import BonusPaidData
from .bonus_paid_data_card import BonusPaidDataCard
from .bonus_paid_data_kind import BonusPaidDataKind
from .bonus_paid_event import BonusPaidEvent
from .bonus_paid_event_metadata import BonusPaidEventMetadata
from .bonus_paid_event_type import BonusPaidEventType
from .capture_action import CaptureAction
from .capture_action_cards_item import CaptureActionCardsItem
from .capture_action_type import CaptureActionType
from .card_discarded_data import CardDiscardedData
from .card_discarded_data_capture_type_0_item import CardDiscardedDataCaptureType0Item
from .card_discarded_data_card import CardDiscardedDataCard
from .card_discarded_event import CardDiscardedEvent
from .card_discarded_event_metadata import CardDiscardedEventMetadata
from .card_discarded_event_type import CardDiscardedEventType
from .card_turned_up_data import CardTurnedUpData
from .card_turned_up_data_card import CardTurnedUpDataCard
from .card_turned_up_data_cards_item import CardTurnedUpDataCardsItem
from .card_turned_up_event import CardTurnedUpEvent
from .card_turned_up_event_metadata import CardTurnedUpEventMetadata
from .card_turned_up_event_type import CardTurnedUpEventType
from .cards_drawn_data import CardsDrawnData
from .cards_drawn_event import CardsDrawnEvent
from .cards_drawn_event_metadata import CardsDrawnEventMetadata
from .cards_drawn_event_type import CardsDrawnEventType
from .cards_played_data import CardsPlayedData
from .cards_played_data_cards_item import CardsPlayedDataCardsItem
from .cards_played_event import CardsPlayedEvent
from .cards_played_event_metadata import CardsPlayedEventMetadata
from .cards_played_event_type import CardsPlayedEventType
from .cha_kau_tsz_options import ChaKauTszOptions
from .cha_kau_tsz_result import ChaKauTszResult
from .cha_kau_tsz_settings import ChaKauTszSettings
from .cha_kau_tsz_table_create import ChaKauTszTableCreate
from .cha_kau_tsz_table_create_game import ChaKauTszTableCreateGame
from .chip_values import ChipValues
from .cholek_tiga_options import CholekTigaOptions
from .cholek_tiga_options_honours_rank import CholekTigaOptionsHonoursRank
from .cholek_tiga_result import CholekTigaResult
from .cholek_tiga_result_leftover_pool_item import CholekTigaResultLeftoverPoolItem
from .cholek_tiga_result_piles_item_item import CholekTigaResultPilesItemItem
from .cholek_tiga_settings import CholekTigaSettings
from .cholek_tiga_settings_honours_rank import CholekTigaSettingsHonoursRank
from .cholek_tiga_table_create import CholekTigaTableCreate
from .cholek_tiga_table_create_game import CholekTigaTableCreateGame
from .close_action import CloseAction
from .close_action_type import CloseActionType
from .deal_ended_data import DealEndedData
from .deal_ended_data_carry import DealEndedDataCarry
from .deal_ended_data_unit import DealEndedDataUnit
from .deal_ended_event import DealEndedEvent
from .deal_ended_event_metadata import DealEndedEventMetadata
from .deal_ended_event_type import DealEndedEventType
from .deal_record import DealRecord
from .deal_record_status import DealRecordStatus
from .deal_started_data import DealStartedData
from .deal_started_event import DealStartedEvent
from .deal_started_event_metadata import DealStartedEventMetadata
from .deal_started_event_type import DealStartedEventType
from .discard_action import DiscardAction
from .discard_action_capture_type_0_item import DiscardActionCaptureType0Item
from .discard_action_card import DiscardActionCard
from .discard_action_type import DiscardActionType
from .dispute import Dispute
from .dispute_event import DisputeEvent
from .dispute_event_data import DisputeEventData
from .dispute_event_metadata import DisputeEventMetadata
from .dispute_event_public_state_after_type_0 import DisputeEventPublicStateAfterType0
from .dispute_event_type import DisputeEventType
from .dispute_player import DisputePlayer
from .dispute_receipts_request import DisputeReceiptsRequest
from .dispute_status import DisputeStatus
from .dispute_step import DisputeStep
from .dispute_with_receipts import DisputeWithReceipts
from .dispute_with_receipts_status import DisputeWithReceiptsStatus
from .events_page import EventsPage
from .first_bad_event import FirstBadEvent
from .follow_seat_view_response_200_type_1 import FollowSeatViewResponse200Type1
from .follow_seat_view_response_200_type_1_event import FollowSeatViewResponse200Type1Event
from .follow_table_response_200_type_1 import FollowTableResponse200Type1
from .follow_table_response_200_type_1_event import FollowTableResponse200Type1Event
from .get_dispute_report_format import GetDisputeReportFormat
from .get_settlement_report_format import GetSettlementReportFormat
from .hand_dealt_data import HandDealtData
from .hand_dealt_event import HandDealtEvent
from .hand_dealt_event_metadata import HandDealtEventMetadata
from .hand_dealt_event_type import HandDealtEventType
from .hand_scored_data import HandScoredData
from .hand_scored_event import HandScoredEvent
from .hand_scored_event_metadata import HandScoredEventMetadata
from .hand_scored_event_type import HandScoredEventType
from .hand_started_data import HandStartedData
from .hand_started_event import HandStartedEvent
from .hand_started_event_metadata import HandStartedEventMetadata
from .hand_started_event_type import HandStartedEventType
from .health import Health
from .key import Key
from .key_algorithm import KeyAlgorithm
from .keys import Keys
from .leave_action import LeaveAction
from .leave_action_type import LeaveActionType
from .ledger import Ledger
from .ledger_line import LedgerLine
from .ledger_total import LedgerTotal
from .list_tables_game import ListTablesGame
from .list_tables_status import ListTablesStatus
from .lobby import Lobby
from .log_position import LogPosition
from .next_deal import NextDeal
from .opened_table import OpenedTable
from .opened_table_debts_item import OpenedTableDebtsItem
from .opened_table_game import OpenedTableGame
from .opened_table_last_trick_type_0 import OpenedTableLastTrickType0
from .opened_table_last_trick_type_0_plays_item import OpenedTableLastTrickType0PlaysItem
from .opened_table_last_trick_type_0_plays_item_cards_item import OpenedTableLastTrickType0PlaysItemCardsItem
from .opened_table_pending_type_0 import OpenedTablePendingType0
from .opened_table_piles_item_item import OpenedTablePilesItemItem
from .opened_table_pool_type_0_item import OpenedTablePoolType0Item
from .opened_table_status import OpenedTableStatus
from .opened_table_trick_item import OpenedTableTrickItem
from .opened_table_trick_item_cards_item import OpenedTableTrickItemCardsItem
from .pagination_metadata import PaginationMetadata
from .pass_action import PassAction
from .pass_action_type import PassActionType
from .play_action import PlayAction
from .play_action_cards_item import PlayActionCardsItem
from .play_action_type import PlayActionType
from .play_choice import PlayChoice
from .play_choice_cards_item import PlayChoiceCardsItem
from .play_choice_type import PlayChoiceType
from .player import Player
from .player_create import PlayerCreate
from .player_left_data import PlayerLeftData
from .player_left_event import PlayerLeftEvent
from .player_left_event_metadata import PlayerLeftEventMetadata
from .player_left_event_type import PlayerLeftEventType
from .player_ready_data import PlayerReadyData
from .player_ready_event import PlayerReadyEvent
from .player_ready_event_metadata import PlayerReadyEventMetadata
from .player_ready_event_type import PlayerReadyEventType
from .player_ref import PlayerRef
from .player_seated_data import PlayerSeatedData
from .player_seated_event import PlayerSeatedEvent
from .player_seated_event_metadata import PlayerSeatedEventMetadata
from .player_seated_event_type import PlayerSeatedEventType
from .private_cards import PrivateCards
from .private_cards_cards_item import PrivateCardsCardsItem
from .problem import Problem
from .ready import Ready
from .ready_action import ReadyAction
from .ready_action_type import ReadyActionType
from .ready_checks import ReadyChecks
from .ready_checks_additional_property import ReadyChecksAdditionalProperty
from .ready_status import ReadyStatus
from .receipt import Receipt
from .receipt_check import ReceiptCheck
from .receipt_check_log import ReceiptCheckLog
from .receipt_check_signature import ReceiptCheckSignature
from .receipt_check_verdict import ReceiptCheckVerdict
from .receipts_section import ReceiptsSection
from .replay_error import ReplayError
from .seat import Seat
from .seat_request import SeatRequest
from .seat_view import SeatView
from .seat_view_debts_item import SeatViewDebtsItem
from .seat_view_game import SeatViewGame
from .seat_view_hand_item import SeatViewHandItem
from .seat_view_last_trick_type_0 import SeatViewLastTrickType0
from .seat_view_last_trick_type_0_plays_item import SeatViewLastTrickType0PlaysItem
from .seat_view_last_trick_type_0_plays_item_cards_item import SeatViewLastTrickType0PlaysItemCardsItem
from .seat_view_pending_type_0 import SeatViewPendingType0
from .seat_view_piles_item_item import SeatViewPilesItemItem
from .seat_view_pool_type_0_item import SeatViewPoolType0Item
from .seat_view_status import SeatViewStatus
from .seat_view_trick_item import SeatViewTrickItem
from .seat_view_trick_item_cards_item import SeatViewTrickItemCardsItem
from .settlement import Settlement
from .settlement_discrepancy import SettlementDiscrepancy
from .settlement_period import SettlementPeriod
from .settlement_player import SettlementPlayer
from .settlement_row import SettlementRow
from .settlement_table import SettlementTable
from .table import Table
from .table_closed_data import TableClosedData
from .table_closed_event import TableClosedEvent
from .table_closed_event_metadata import TableClosedEventMetadata
from .table_closed_event_type import TableClosedEventType
from .table_debts_item import TableDebtsItem
from .table_game import TableGame
from .table_last_trick_type_0 import TableLastTrickType0
from .table_last_trick_type_0_plays_item import TableLastTrickType0PlaysItem
from .table_last_trick_type_0_plays_item_cards_item import TableLastTrickType0PlaysItemCardsItem
from .table_opened_data import TableOpenedData
from .table_opened_data_game import TableOpenedDataGame
from .table_opened_event import TableOpenedEvent
from .table_opened_event_metadata import TableOpenedEventMetadata
from .table_opened_event_type import TableOpenedEventType
from .table_pending_type_0 import TablePendingType0
from .table_piles_item_item import TablePilesItemItem
from .table_pool_type_0_item import TablePoolType0Item
from .table_status import TableStatus
from .table_trick_item import TableTrickItem
from .table_trick_item_cards_item import TableTrickItemCardsItem
from .transfer import Transfer
from .transfer_data import TransferData
from .trick_won_data import TrickWonData
from .trick_won_event import TrickWonEvent
from .trick_won_event_metadata import TrickWonEventMetadata
from .trick_won_event_type import TrickWonEventType
from .turn_up_captured_data import TurnUpCapturedData
from .turn_up_captured_data_capture_item import TurnUpCapturedDataCaptureItem
from .turn_up_captured_data_card import TurnUpCapturedDataCard
from .turn_up_captured_event import TurnUpCapturedEvent
from .turn_up_captured_event_metadata import TurnUpCapturedEventMetadata
from .turn_up_captured_event_type import TurnUpCapturedEventType
from .turn_up_passed_data import TurnUpPassedData
from .turn_up_passed_data_card import TurnUpPassedDataCard
from .turn_up_passed_event import TurnUpPassedEvent
from .turn_up_passed_event_metadata import TurnUpPassedEventMetadata
from .turn_up_passed_event_type import TurnUpPassedEventType
from .verification import Verification
from .verification_problem import VerificationProblem
from .verification_problem_check import VerificationProblemCheck
from .who_am_i import WhoAmI
from .who_am_i_role import WhoAmIRole

__all__ = (
    "ActionResult",
    "BonusPaidData",
    "BonusPaidDataCard",
    "BonusPaidDataKind",
    "BonusPaidEvent",
    "BonusPaidEventMetadata",
    "BonusPaidEventType",
    "CaptureAction",
    "CaptureActionCardsItem",
    "CaptureActionType",
    "CardDiscardedData",
    "CardDiscardedDataCaptureType0Item",
    "CardDiscardedDataCard",
    "CardDiscardedEvent",
    "CardDiscardedEventMetadata",
    "CardDiscardedEventType",
    "CardsDrawnData",
    "CardsDrawnEvent",
    "CardsDrawnEventMetadata",
    "CardsDrawnEventType",
    "CardsPlayedData",
    "CardsPlayedDataCardsItem",
    "CardsPlayedEvent",
    "CardsPlayedEventMetadata",
    "CardsPlayedEventType",
    "CardTurnedUpData",
    "CardTurnedUpDataCard",
    "CardTurnedUpDataCardsItem",
    "CardTurnedUpEvent",
    "CardTurnedUpEventMetadata",
    "CardTurnedUpEventType",
    "ChaKauTszOptions",
    "ChaKauTszResult",
    "ChaKauTszSettings",
    "ChaKauTszTableCreate",
    "ChaKauTszTableCreateGame",
    "ChipValues",
    "CholekTigaOptions",
    "CholekTigaOptionsHonoursRank",
    "CholekTigaResult",
    "CholekTigaResultLeftoverPoolItem",
    "CholekTigaResultPilesItemItem",
    "CholekTigaSettings",
    "CholekTigaSettingsHonoursRank",
    "CholekTigaTableCreate",
    "CholekTigaTableCreateGame",
    "CloseAction",
    "CloseActionType",
    "DealEndedData",
    "DealEndedDataCarry",
    "DealEndedDataUnit",
    "DealEndedEvent",
    "DealEndedEventMetadata",
    "DealEndedEventType",
    "DealRecord",
    "DealRecordStatus",
    "DealStartedData",
    "DealStartedEvent",
    "DealStartedEventMetadata",
    "DealStartedEventType",
    "DiscardAction",
    "DiscardActionCaptureType0Item",
    "DiscardActionCard",
    "DiscardActionType",
    "Dispute",
    "DisputeEvent",
    "DisputeEventData",
    "DisputeEventMetadata",
    "DisputeEventPublicStateAfterType0",
    "DisputeEventType",
    "DisputePlayer",
    "DisputeReceiptsRequest",
    "DisputeStatus",
    "DisputeStep",
    "DisputeWithReceipts",
    "DisputeWithReceiptsStatus",
    "EventsPage",
    "FirstBadEvent",
    "FollowSeatViewResponse200Type1",
    "FollowSeatViewResponse200Type1Event",
    "FollowTableResponse200Type1",
    "FollowTableResponse200Type1Event",
    "GetDisputeReportFormat",
    "GetSettlementReportFormat",
    "HandDealtData",
    "HandDealtEvent",
    "HandDealtEventMetadata",
    "HandDealtEventType",
    "HandScoredData",
    "HandScoredEvent",
    "HandScoredEventMetadata",
    "HandScoredEventType",
    "HandStartedData",
    "HandStartedEvent",
    "HandStartedEventMetadata",
    "HandStartedEventType",
    "Health",
    "Key",
    "KeyAlgorithm",
    "Keys",
    "LeaveAction",
    "LeaveActionType",
    "Ledger",
    "LedgerLine",
    "LedgerTotal",
    "ListTablesGame",
    "ListTablesStatus",
    "Lobby",
    "LogPosition",
    "NextDeal",
    "OpenedTable",
    "OpenedTableDebtsItem",
    "OpenedTableGame",
    "OpenedTableLastTrickType0",
    "OpenedTableLastTrickType0PlaysItem",
    "OpenedTableLastTrickType0PlaysItemCardsItem",
    "OpenedTablePendingType0",
    "OpenedTablePilesItemItem",
    "OpenedTablePoolType0Item",
    "OpenedTableStatus",
    "OpenedTableTrickItem",
    "OpenedTableTrickItemCardsItem",
    "PaginationMetadata",
    "PassAction",
    "PassActionType",
    "PlayAction",
    "PlayActionCardsItem",
    "PlayActionType",
    "PlayChoice",
    "PlayChoiceCardsItem",
    "PlayChoiceType",
    "Player",
    "PlayerCreate",
    "PlayerLeftData",
    "PlayerLeftEvent",
    "PlayerLeftEventMetadata",
    "PlayerLeftEventType",
    "PlayerReadyData",
    "PlayerReadyEvent",
    "PlayerReadyEventMetadata",
    "PlayerReadyEventType",
    "PlayerRef",
    "PlayerSeatedData",
    "PlayerSeatedEvent",
    "PlayerSeatedEventMetadata",
    "PlayerSeatedEventType",
    "PrivateCards",
    "PrivateCardsCardsItem",
    "Problem",
    "Ready",
    "ReadyAction",
    "ReadyActionType",
    "ReadyChecks",
    "ReadyChecksAdditionalProperty",
    "ReadyStatus",
    "Receipt",
    "ReceiptCheck",
    "ReceiptCheckLog",
    "ReceiptCheckSignature",
    "ReceiptCheckVerdict",
    "ReceiptsSection",
    "ReplayError",
    "Seat",
    "SeatRequest",
    "SeatView",
    "SeatViewDebtsItem",
    "SeatViewGame",
    "SeatViewHandItem",
    "SeatViewLastTrickType0",
    "SeatViewLastTrickType0PlaysItem",
    "SeatViewLastTrickType0PlaysItemCardsItem",
    "SeatViewPendingType0",
    "SeatViewPilesItemItem",
    "SeatViewPoolType0Item",
    "SeatViewStatus",
    "SeatViewTrickItem",
    "SeatViewTrickItemCardsItem",
    "Settlement",
    "SettlementDiscrepancy",
    "SettlementPeriod",
    "SettlementPlayer",
    "SettlementRow",
    "SettlementTable",
    "Table",
    "TableClosedData",
    "TableClosedEvent",
    "TableClosedEventMetadata",
    "TableClosedEventType",
    "TableDebtsItem",
    "TableGame",
    "TableLastTrickType0",
    "TableLastTrickType0PlaysItem",
    "TableLastTrickType0PlaysItemCardsItem",
    "TableOpenedData",
    "TableOpenedDataGame",
    "TableOpenedEvent",
    "TableOpenedEventMetadata",
    "TableOpenedEventType",
    "TablePendingType0",
    "TablePilesItemItem",
    "TablePoolType0Item",
    "TableStatus",
    "TableTrickItem",
    "TableTrickItemCardsItem",
    "Transfer",
    "TransferData",
    "TrickWonData",
    "TrickWonEvent",
    "TrickWonEventMetadata",
    "TrickWonEventType",
    "TurnUpCapturedData",
    "TurnUpCapturedDataCaptureItem",
    "TurnUpCapturedDataCard",
    "TurnUpCapturedEvent",
    "TurnUpCapturedEventMetadata",
    "TurnUpCapturedEventType",
    "TurnUpPassedData",
    "TurnUpPassedDataCard",
    "TurnUpPassedEvent",
    "TurnUpPassedEventMetadata",
    "TurnUpPassedEventType",
    "Verification",
    "VerificationProblem",
    "VerificationProblemCheck",
    "WhoAmI",
    "WhoAmIRole",
)
