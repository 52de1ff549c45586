from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.table_game import TableGame
from ..models.table_status import TableStatus
from ..types import UNSET, Unset
from typing import cast
import datetime

if TYPE_CHECKING:
  from ..models.cha_kau_tsz_settings import ChaKauTszSettings
  from ..models.cholek_tiga_settings import CholekTigaSettings
  from ..models.next_deal import NextDeal
  from ..models.player_ref import PlayerRef
  from ..models.table_last_result_type_0 import TableLastResultType0





T = TypeVar("T", bound="Table")



@_attrs_define
class Table:
    """ Public state of a table; the game-specific fields are present while a deal exists.

        Attributes:
            deal_no (int):
            game (TableGame):
            id (str):
            options (ChaKauTszSettings | CholekTigaSettings): with defaults filled in
            players (list[None | PlayerRef]):
            seats (int):
            status (TableStatus):
            to_act (int | None):
            turn_deadline (datetime.datetime | None): RFC 3339 UTC: when the turn clock acts for the seat to act (its
                default action, "timed_out": true), or between deals unseats the seats not ready; null with no clock (option
                turn_seconds 0) or nobody to act
            version (int):
            balances (Any | Unset):
            dealer (int | None | Unset):
            hand_sizes (list[int] | Unset):
            last_result (None | TableLastResultType0 | Unset):
            leader (int | None | Unset):
            next_deal (NextDeal | None | Unset):
            pending (Any | Unset): Cholek Tiga: the turned-up card awaiting
            piles (Any | Unset): Cholek Tiga: captured cards by seat
            pool (Any | Unset): Cholek Tiga: cards in the pool; Cha Kau Tsz: chips in the pool
            ready (list[int] | Unset):
            scores (Any | Unset):
            stock_remaining (int | Unset):
            trick (Any | Unset): Cha Kau Tsz: plays of the current trick
            tricks (Any | Unset): Cha Kau Tsz: tricks won this hand, by seat
     """

    deal_no: int
    game: TableGame
    id: str
    options: ChaKauTszSettings | CholekTigaSettings
    players: list[None | PlayerRef]
    seats: int
    status: TableStatus
    to_act: int | None
    turn_deadline: datetime.datetime | None
    version: int
    balances: Any | Unset = UNSET
    dealer: int | None | Unset = UNSET
    hand_sizes: list[int] | Unset = UNSET
    last_result: None | TableLastResultType0 | Unset = UNSET
    leader: int | None | Unset = UNSET
    next_deal: NextDeal | None | Unset = UNSET
    pending: Any | Unset = UNSET
    piles: Any | Unset = UNSET
    pool: Any | Unset = UNSET
    ready: list[int] | Unset = UNSET
    scores: Any | Unset = UNSET
    stock_remaining: int | Unset = UNSET
    trick: Any | Unset = UNSET
    tricks: Any | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.cha_kau_tsz_settings import ChaKauTszSettings # noqa: PLC0415
        from ..models.cholek_tiga_settings import CholekTigaSettings # noqa: PLC0415
        from ..models.next_deal import NextDeal # noqa: PLC0415
        from ..models.player_ref import PlayerRef # noqa: PLC0415
        from ..models.table_last_result_type_0 import TableLastResultType0 # noqa: PLC0415
        deal_no = self.deal_no

        game = self.game.value

        id = self.id

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



        seats = self.seats

        status = self.status.value

        to_act: int | None
        to_act = self.to_act

        turn_deadline: None | str
        if isinstance(self.turn_deadline, datetime.datetime):
            turn_deadline = self.turn_deadline.isoformat()
        else:
            turn_deadline = self.turn_deadline

        version = self.version

        balances = self.balances

        dealer: int | None | Unset
        if isinstance(self.dealer, Unset):
            dealer = UNSET
        else:
            dealer = self.dealer

        hand_sizes: list[int] | Unset = UNSET
        if not isinstance(self.hand_sizes, Unset):
            hand_sizes = self.hand_sizes



        last_result: dict[str, Any] | None | Unset
        if isinstance(self.last_result, Unset):
            last_result = UNSET
        elif isinstance(self.last_result, TableLastResultType0):
            last_result = self.last_result.to_dict()
        else:
            last_result = self.last_result

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

        pending = self.pending

        piles = self.piles

        pool = self.pool

        ready: list[int] | Unset = UNSET
        if not isinstance(self.ready, Unset):
            ready = self.ready



        scores = self.scores

        stock_remaining = self.stock_remaining

        trick = self.trick

        tricks = self.tricks


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "deal_no": deal_no,
            "game": game,
            "id": id,
            "options": options,
            "players": players,
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
        if hand_sizes is not UNSET:
            field_dict["hand_sizes"] = hand_sizes
        if last_result is not UNSET:
            field_dict["last_result"] = last_result
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
        if ready is not UNSET:
            field_dict["ready"] = ready
        if scores is not UNSET:
            field_dict["scores"] = scores
        if stock_remaining is not UNSET:
            field_dict["stock_remaining"] = stock_remaining
        if trick is not UNSET:
            field_dict["trick"] = trick
        if tricks is not UNSET:
            field_dict["tricks"] = tricks

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.cha_kau_tsz_settings import ChaKauTszSettings # noqa: PLC0415
        from ..models.cholek_tiga_settings import CholekTigaSettings # noqa: PLC0415
        from ..models.next_deal import NextDeal # noqa: PLC0415
        from ..models.player_ref import PlayerRef # noqa: PLC0415
        from ..models.table_last_result_type_0 import TableLastResultType0 # noqa: PLC0415
        d = dict(src_dict)
        deal_no = d.pop("deal_no")

        game = TableGame(d.pop("game"))




        id = d.pop("id")

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


        seats = d.pop("seats")

        status = TableStatus(d.pop("status"))




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

        balances = d.pop("balances", UNSET)

        def _parse_dealer(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        dealer = _parse_dealer(d.pop("dealer", UNSET))


        hand_sizes = cast(list[int], d.pop("hand_sizes", UNSET))


        def _parse_last_result(data: object) -> None | TableLastResultType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                last_result_type_0 = TableLastResultType0.from_dict(data)



                return last_result_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | TableLastResultType0 | Unset, data)

        last_result = _parse_last_result(d.pop("last_result", UNSET))


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


        pending = d.pop("pending", UNSET)

        piles = d.pop("piles", UNSET)

        pool = d.pop("pool", UNSET)

        ready = cast(list[int], d.pop("ready", UNSET))


        scores = d.pop("scores", UNSET)

        stock_remaining = d.pop("stock_remaining", UNSET)

        trick = d.pop("trick", UNSET)

        tricks = d.pop("tricks", UNSET)

        table = cls(
            deal_no=deal_no,
            game=game,
            id=id,
            options=options,
            players=players,
            seats=seats,
            status=status,
            to_act=to_act,
            turn_deadline=turn_deadline,
            version=version,
            balances=balances,
            dealer=dealer,
            hand_sizes=hand_sizes,
            last_result=last_result,
            leader=leader,
            next_deal=next_deal,
            pending=pending,
            piles=piles,
            pool=pool,
            ready=ready,
            scores=scores,
            stock_remaining=stock_remaining,
            trick=trick,
            tricks=tricks,
        )


        table.additional_properties = d
        return table

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
