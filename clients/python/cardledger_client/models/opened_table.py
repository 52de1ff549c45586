from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.opened_table_game import check_opened_table_game
from ..models.opened_table_game import OpenedTableGame
from ..models.opened_table_pending_type_0 import check_opened_table_pending_type_0
from ..models.opened_table_pending_type_0 import OpenedTablePendingType0
from ..models.opened_table_piles_item_item import check_opened_table_piles_item_item
from ..models.opened_table_piles_item_item import OpenedTablePilesItemItem
from ..models.opened_table_pool_type_0_item import check_opened_table_pool_type_0_item
from ..models.opened_table_pool_type_0_item import OpenedTablePoolType0Item
from ..models.opened_table_status import check_opened_table_status
from ..models.opened_table_status import OpenedTableStatus
from ..types import UNSET, Unset
from typing import cast
from uuid import UUID
import datetime

if TYPE_CHECKING:
  from ..models.cha_kau_tsz_result import ChaKauTszResult
  from ..models.cha_kau_tsz_settings import ChaKauTszSettings
  from ..models.cholek_tiga_result import CholekTigaResult
  from ..models.cholek_tiga_settings import CholekTigaSettings
  from ..models.next_deal import NextDeal
  from ..models.opened_table_debts_item import OpenedTableDebtsItem
  from ..models.opened_table_last_trick_type_0 import OpenedTableLastTrickType0
  from ..models.opened_table_trick_item import OpenedTableTrickItem
  from ..models.player_ref import PlayerRef
  from ..models.receipt import Receipt





T = TypeVar("T", bound="OpenedTable")



@_attrs_define
class OpenedTable:
    """ The new table's public state and the receipt of its opening.

        Attributes:
            deal_no (int):
            game (OpenedTableGame):
            id (UUID):
            options (ChaKauTszSettings | CholekTigaSettings): with defaults filled in
            players (list[None | PlayerRef]):
            receipt (Receipt): The service's signed word that a write appended the event `hash` at `version` of the table.
            seats (int):
            status (OpenedTableStatus):
            to_act (int | None):
            turn_deadline (datetime.datetime | None): RFC 3339 UTC: when the turn clock acts for the seat to act (its
                default action, "timed_out": true), or between deals unseats the seats not ready; null with no clock (option
                turn_seconds 0) or nobody to act
            version (int):
            balances (list[int] | Unset): Cha Kau Tsz: points by seat, changes from the starting stack (negative: a debt)
            dealer (int | None | Unset): Cha Kau Tsz: the dealer's seat
            debts (list[OpenedTableDebtsItem] | Unset): Cha Kau Tsz: the seats in debt and what they owe
            first_seat (int | Unset): Cholek Tiga: the seat that moved first this deal
            hand_no (int | Unset): Cha Kau Tsz: the hand, counted across the table
            hand_sizes (list[int] | Unset): cards held, by seat
            hands_in_pool_game (int | Unset):
            last_result (ChaKauTszResult | CholekTigaResult | None | Unset): the last deal's result
            last_trick (None | OpenedTableLastTrickType0 | Unset): Cha Kau Tsz: the trick before, with its winner and the
                tricks it credited
            leader (int | None | Unset): Cha Kau Tsz: the seat that leads the trick, null once scored
            next_deal (NextDeal | None | Unset):
            pending (None | OpenedTablePendingType0 | Unset): Cholek Tiga: the turned-up card awaiting a decision
            piles (list[list[OpenedTablePilesItemItem]] | Unset): Cholek Tiga: captures by seat
            pool (int | list[OpenedTablePoolType0Item] | Unset): Cholek Tiga: cards in the pool; Cha Kau Tsz: points in the
                pool
            pool_game (int | Unset): Cha Kau Tsz: the pool game, counted across the table
            ready (list[int] | Unset):
            round_ (int | Unset): Cholek Tiga: the round of draws
            scores (list[int] | None | Unset): Cholek Tiga: by seat, once the deal ended
            stacks (list[int] | Unset): Cha Kau Tsz: points each seat holds in chips
            starting_stack (int | Unset): Cha Kau Tsz: each seat's points at the start
            stock_remaining (int | Unset): Cholek Tiga: cards left to draw or turn up
            trick (list[OpenedTableTrickItem] | Unset): Cha Kau Tsz: plays of the current trick
            trick_no (int | None | Unset): Cha Kau Tsz: the current trick, null once scored
            tricks (list[int] | Unset): Cha Kau Tsz: tricks won this hand, by seat
     """

    deal_no: int
    game: OpenedTableGame
    id: UUID
    options: ChaKauTszSettings | CholekTigaSettings
    players: list[None | PlayerRef]
    receipt: Receipt
    seats: int
    status: OpenedTableStatus
    to_act: int | None
    turn_deadline: datetime.datetime | None
    version: int
    balances: list[int] | Unset = UNSET
    dealer: int | None | Unset = UNSET
    debts: list[OpenedTableDebtsItem] | Unset = UNSET
    first_seat: int | Unset = UNSET
    hand_no: int | Unset = UNSET
    hand_sizes: list[int] | Unset = UNSET
    hands_in_pool_game: int | Unset = UNSET
    last_result: ChaKauTszResult | CholekTigaResult | None | Unset = UNSET
    last_trick: None | OpenedTableLastTrickType0 | Unset = UNSET
    leader: int | None | Unset = UNSET
    next_deal: NextDeal | None | Unset = UNSET
    pending: None | OpenedTablePendingType0 | Unset = UNSET
    piles: list[list[OpenedTablePilesItemItem]] | Unset = UNSET
    pool: int | list[OpenedTablePoolType0Item] | Unset = UNSET
    pool_game: int | Unset = UNSET
    ready: list[int] | Unset = UNSET
    round_: int | Unset = UNSET
    scores: list[int] | None | Unset = UNSET
    stacks: list[int] | Unset = UNSET
    starting_stack: int | Unset = UNSET
    stock_remaining: int | Unset = UNSET
    trick: list[OpenedTableTrickItem] | Unset = UNSET
    trick_no: int | None | Unset = UNSET
    tricks: list[int] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.cha_kau_tsz_result import ChaKauTszResult # noqa: PLC0415
        from ..models.cha_kau_tsz_settings import ChaKauTszSettings # noqa: PLC0415
        from ..models.cholek_tiga_result import CholekTigaResult # noqa: PLC0415
        from ..models.cholek_tiga_settings import CholekTigaSettings # noqa: PLC0415
        from ..models.next_deal import NextDeal # noqa: PLC0415
        from ..models.opened_table_debts_item import OpenedTableDebtsItem # noqa: PLC0415
        from ..models.opened_table_last_trick_type_0 import OpenedTableLastTrickType0 # noqa: PLC0415
        from ..models.opened_table_trick_item import OpenedTableTrickItem # noqa: PLC0415
        from ..models.player_ref import PlayerRef # noqa: PLC0415
        from ..models.receipt import Receipt # noqa: PLC0415
        deal_no = self.deal_no

        game: str = self.game

        id = str(self.id)

        options: dict[str, Any]
        if isinstance(self.options, CholekTigaSettings):
            options = self.options.to_dict()
        else:
            options = self.options.to_dict()


        players = []
        for players_item_data in self.players:
            players_item: dict[str, Any] | None
            if isinstance(players_item_data, PlayerRef):
                players_item = players_item_data.to_dict()
            else:
                players_item = players_item_data
            players.append(players_item)



        receipt = self.receipt.to_dict()

        seats = self.seats

        status: str = self.status

        to_act: int | None
        to_act = self.to_act

        turn_deadline: None | str
        if isinstance(self.turn_deadline, datetime.datetime):
            turn_deadline = self.turn_deadline.isoformat()
        else:
            turn_deadline = self.turn_deadline

        version = self.version

        balances: list[int] | Unset = UNSET
        if not isinstance(self.balances, Unset):
            balances = self.balances



        dealer: int | None | Unset
        if isinstance(self.dealer, Unset):
            dealer = UNSET
        else:
            dealer = self.dealer

        debts: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.debts, Unset):
            debts = []
            for debts_item_data in self.debts:
                debts_item = debts_item_data.to_dict()
                debts.append(debts_item)



        first_seat = self.first_seat

        hand_no = self.hand_no

        hand_sizes: list[int] | Unset = UNSET
        if not isinstance(self.hand_sizes, Unset):
            hand_sizes = self.hand_sizes



        hands_in_pool_game = self.hands_in_pool_game

        last_result: dict[str, Any] | None | Unset
        if isinstance(self.last_result, Unset):
            last_result = UNSET
        elif isinstance(self.last_result, CholekTigaResult):
            last_result = self.last_result.to_dict()
        elif isinstance(self.last_result, ChaKauTszResult):
            last_result = self.last_result.to_dict()
        else:
            last_result = self.last_result

        last_trick: dict[str, Any] | None | Unset
        if isinstance(self.last_trick, Unset):
            last_trick = UNSET
        elif isinstance(self.last_trick, OpenedTableLastTrickType0):
            last_trick = self.last_trick.to_dict()
        else:
            last_trick = self.last_trick

        leader: int | None | Unset
        if isinstance(self.leader, Unset):
            leader = UNSET
        else:
            leader = self.leader

        next_deal: dict[str, Any] | None | Unset
        if isinstance(self.next_deal, Unset):
            next_deal = UNSET
        elif isinstance(self.next_deal, NextDeal):
            next_deal = self.next_deal.to_dict()
        else:
            next_deal = self.next_deal

        pending: None | str | Unset
        if isinstance(self.pending, Unset):
            pending = UNSET
        elif isinstance(self.pending, str):
            pending = self.pending
        else:
            pending = self.pending

        piles: list[list[str]] | Unset = UNSET
        if not isinstance(self.piles, Unset):
            piles = []
            for piles_item_data in self.piles:
                piles_item = []
                for piles_item_item_data in piles_item_data:
                    piles_item_item: str = piles_item_item_data
                    piles_item.append(piles_item_item)


                piles.append(piles_item)



        pool: int | list[str] | Unset
        if isinstance(self.pool, Unset):
            pool = UNSET
        elif isinstance(self.pool, list):
            pool = []
            for pool_type_0_item_data in self.pool:
                pool_type_0_item: str = pool_type_0_item_data
                pool.append(pool_type_0_item)


        else:
            pool = self.pool

        pool_game = self.pool_game

        ready: list[int] | Unset = UNSET
        if not isinstance(self.ready, Unset):
            ready = self.ready



        round_ = self.round_

        scores: list[int] | None | Unset
        if isinstance(self.scores, Unset):
            scores = UNSET
        elif isinstance(self.scores, list):
            scores = self.scores


        else:
            scores = self.scores

        stacks: list[int] | Unset = UNSET
        if not isinstance(self.stacks, Unset):
            stacks = self.stacks



        starting_stack = self.starting_stack

        stock_remaining = self.stock_remaining

        trick: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.trick, Unset):
            trick = []
            for trick_item_data in self.trick:
                trick_item = trick_item_data.to_dict()
                trick.append(trick_item)



        trick_no: int | None | Unset
        if isinstance(self.trick_no, Unset):
            trick_no = UNSET
        else:
            trick_no = self.trick_no

        tricks: list[int] | Unset = UNSET
        if not isinstance(self.tricks, Unset):
            tricks = self.tricks




        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "deal_no": deal_no,
            "game": game,
            "id": id,
            "options": options,
            "players": players,
            "receipt": receipt,
            "seats": seats,
            "status": status,
            "to_act": to_act,
            "turn_deadline": turn_deadline,
            "version": version,
        })
        if balances is not UNSET:
            field_dict["balances"] = balances
        if dealer is not UNSET:
            field_dict["dealer"] = dealer
        if debts is not UNSET:
            field_dict["debts"] = debts
        if first_seat is not UNSET:
            field_dict["first_seat"] = first_seat
        if hand_no is not UNSET:
            field_dict["hand_no"] = hand_no
        if hand_sizes is not UNSET:
            field_dict["hand_sizes"] = hand_sizes
        if hands_in_pool_game is not UNSET:
            field_dict["hands_in_pool_game"] = hands_in_pool_game
        if last_result is not UNSET:
            field_dict["last_result"] = last_result
        if last_trick is not UNSET:
            field_dict["last_trick"] = last_trick
        if leader is not UNSET:
            field_dict["leader"] = leader
        if next_deal is not UNSET:
            field_dict["next_deal"] = next_deal
        if pending is not UNSET:
            field_dict["pending"] = pending
        if piles is not UNSET:
            field_dict["piles"] = piles
        if pool is not UNSET:
            field_dict["pool"] = pool
        if pool_game is not UNSET:
            field_dict["pool_game"] = pool_game
        if ready is not UNSET:
            field_dict["ready"] = ready
        if round_ is not UNSET:
            field_dict["round"] = round_
        if scores is not UNSET:
            field_dict["scores"] = scores
        if stacks is not UNSET:
            field_dict["stacks"] = stacks
        if starting_stack is not UNSET:
            field_dict["starting_stack"] = starting_stack
        if stock_remaining is not UNSET:
            field_dict["stock_remaining"] = stock_remaining
        if trick is not UNSET:
            field_dict["trick"] = trick
        if trick_no is not UNSET:
            field_dict["trick_no"] = trick_no
        if tricks is not UNSET:
            field_dict["tricks"] = tricks

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.cha_kau_tsz_result import ChaKauTszResult # noqa: PLC0415
        from ..models.cha_kau_tsz_settings import ChaKauTszSettings # noqa: PLC0415
        from ..models.cholek_tiga_result import CholekTigaResult # noqa: PLC0415
        from ..models.cholek_tiga_settings import CholekTigaSettings # noqa: PLC0415
        from ..models.next_deal import NextDeal # noqa: PLC0415
        from ..models.opened_table_debts_item import OpenedTableDebtsItem # noqa: PLC0415
        from ..models.opened_table_last_trick_type_0 import OpenedTableLastTrickType0 # noqa: PLC0415
        from ..models.opened_table_trick_item import OpenedTableTrickItem # noqa: PLC0415
        from ..models.player_ref import PlayerRef # noqa: PLC0415
        from ..models.receipt import Receipt # noqa: PLC0415
        d = dict(src_dict)
        deal_no = d.pop("deal_no")

        game = check_opened_table_game(d.pop("game"))




        id = UUID(d.pop("id"))




        def _parse_options(data: object) -> ChaKauTszSettings | CholekTigaSettings:
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                options_type_0 = CholekTigaSettings.from_dict(data)



                return options_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            options_type_1 = ChaKauTszSettings.from_dict(data)



            return options_type_1

        options = _parse_options(d.pop("options"))


        players = []
        _players = d.pop("players")
        for players_item_data in (_players):
            def _parse_players_item(data: object) -> None | PlayerRef:
                if data is None:
                    return data
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    players_item_type_0 = PlayerRef.from_dict(data)



                    return players_item_type_0
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                return cast(None | PlayerRef, data)

            players_item = _parse_players_item(players_item_data)

            players.append(players_item)


        receipt = Receipt.from_dict(d.pop("receipt"))




        seats = d.pop("seats")

        status = check_opened_table_status(d.pop("status"))




        def _parse_to_act(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        to_act = _parse_to_act(d.pop("to_act"))


        def _parse_turn_deadline(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                turn_deadline_type_0 = datetime.datetime.fromisoformat(data)



                return turn_deadline_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        turn_deadline = _parse_turn_deadline(d.pop("turn_deadline"))


        version = d.pop("version")

        balances = cast(list[int], d.pop("balances", UNSET))


        def _parse_dealer(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        dealer = _parse_dealer(d.pop("dealer", UNSET))


        _debts = d.pop("debts", UNSET)
        debts: list[OpenedTableDebtsItem] | Unset = UNSET
        if _debts is not UNSET:
            debts = []
            for debts_item_data in _debts:
                debts_item = OpenedTableDebtsItem.from_dict(debts_item_data)



                debts.append(debts_item)


        first_seat = d.pop("first_seat", UNSET)

        hand_no = d.pop("hand_no", UNSET)

        hand_sizes = cast(list[int], d.pop("hand_sizes", UNSET))


        hands_in_pool_game = d.pop("hands_in_pool_game", UNSET)

        def _parse_last_result(data: object) -> ChaKauTszResult | CholekTigaResult | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                last_result_type_0_type_0 = CholekTigaResult.from_dict(data)



                return last_result_type_0_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                last_result_type_0_type_1 = ChaKauTszResult.from_dict(data)



                return last_result_type_0_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ChaKauTszResult | CholekTigaResult | None | Unset, data)

        last_result = _parse_last_result(d.pop("last_result", UNSET))


        def _parse_last_trick(data: object) -> None | OpenedTableLastTrickType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                last_trick_type_0 = OpenedTableLastTrickType0.from_dict(data)



                return last_trick_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | OpenedTableLastTrickType0 | Unset, data)

        last_trick = _parse_last_trick(d.pop("last_trick", UNSET))


        def _parse_leader(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        leader = _parse_leader(d.pop("leader", UNSET))


        def _parse_next_deal(data: object) -> NextDeal | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                next_deal_type_0 = NextDeal.from_dict(data)



                return next_deal_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(NextDeal | None | Unset, data)

        next_deal = _parse_next_deal(d.pop("next_deal", UNSET))


        def _parse_pending(data: object) -> None | OpenedTablePendingType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                pending_type_0 = check_opened_table_pending_type_0(data)



                return pending_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | OpenedTablePendingType0 | Unset, data)

        pending = _parse_pending(d.pop("pending", UNSET))


        _piles = d.pop("piles", UNSET)
        piles: list[list[OpenedTablePilesItemItem]] | Unset = UNSET
        if _piles is not UNSET:
            piles = []
            for piles_item_data in _piles:
                piles_item = []
                _piles_item = piles_item_data
                for piles_item_item_data in (_piles_item):
                    piles_item_item = check_opened_table_piles_item_item(piles_item_item_data)



                    piles_item.append(piles_item_item)

                piles.append(piles_item)


        def _parse_pool(data: object) -> int | list[OpenedTablePoolType0Item] | Unset:
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                pool_type_0 = []
                _pool_type_0 = data
                for pool_type_0_item_data in (_pool_type_0):
                    pool_type_0_item = check_opened_table_pool_type_0_item(pool_type_0_item_data)



                    pool_type_0.append(pool_type_0_item)

                return pool_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(int | list[OpenedTablePoolType0Item] | Unset, data)

        pool = _parse_pool(d.pop("pool", UNSET))


        pool_game = d.pop("pool_game", UNSET)

        ready = cast(list[int], d.pop("ready", UNSET))


        round_ = d.pop("round", UNSET)

        def _parse_scores(data: object) -> list[int] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                scores_type_0 = cast(list[int], data)

                return scores_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[int] | None | Unset, data)

        scores = _parse_scores(d.pop("scores", UNSET))


        stacks = cast(list[int], d.pop("stacks", UNSET))


        starting_stack = d.pop("starting_stack", UNSET)

        stock_remaining = d.pop("stock_remaining", UNSET)

        _trick = d.pop("trick", UNSET)
        trick: list[OpenedTableTrickItem] | Unset = UNSET
        if _trick is not UNSET:
            trick = []
            for trick_item_data in _trick:
                trick_item = OpenedTableTrickItem.from_dict(trick_item_data)



                trick.append(trick_item)


        def _parse_trick_no(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        trick_no = _parse_trick_no(d.pop("trick_no", UNSET))


        tricks = cast(list[int], d.pop("tricks", UNSET))


        opened_table = cls(
            deal_no=deal_no,
            game=game,
            id=id,
            options=options,
            players=players,
            receipt=receipt,
            seats=seats,
            status=status,
            to_act=to_act,
            turn_deadline=turn_deadline,
            version=version,
            balances=balances,
            dealer=dealer,
            debts=debts,
            first_seat=first_seat,
            hand_no=hand_no,
            hand_sizes=hand_sizes,
            hands_in_pool_game=hands_in_pool_game,
            last_result=last_result,
            last_trick=last_trick,
            leader=leader,
            next_deal=next_deal,
            pending=pending,
            piles=piles,
            pool=pool,
            pool_game=pool_game,
            ready=ready,
            round_=round_,
            scores=scores,
            stacks=stacks,
            starting_stack=starting_stack,
            stock_remaining=stock_remaining,
            trick=trick,
            trick_no=trick_no,
            tricks=tricks,
        )


        opened_table.additional_properties = d
        return opened_table

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
