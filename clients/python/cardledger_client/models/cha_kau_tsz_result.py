from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="ChaKauTszResult")



@_attrs_define
class ChaKauTszResult:
    """ How a Cha Kau Tsz hand ended.

        Attributes:
            net (list[int]): points by seat: the payments, and the pool to its winner
            payments (list[int]): points each seat paid into the pool
            tricks (list[int]): tricks by seat
            balances (list[int] | Unset): points by seat after the hand, changes from the starting stack
            hand_no (int | Unset): the hand, counted across the table
            net_cents (list[int] | Unset): `net` in cents (chip_value_cents a point)
            pool (int | Unset): points in the pool after the hand
            pool_game (int | Unset): the pool game it belonged to
            pool_winner (int | None | Unset): the seat that won the pool, if one did
            pool_won (int | Unset): points the winner took from the pool
     """

    net: list[int]
    payments: list[int]
    tricks: list[int]
    balances: list[int] | Unset = UNSET
    hand_no: int | Unset = UNSET
    net_cents: list[int] | Unset = UNSET
    pool: int | Unset = UNSET
    pool_game: int | Unset = UNSET
    pool_winner: int | None | Unset = UNSET
    pool_won: int | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        net = self.net



        payments = self.payments



        tricks = self.tricks



        balances: list[int] | Unset = UNSET
        if not isinstance(self.balances, Unset):
            balances = self.balances



        hand_no = self.hand_no

        net_cents: list[int] | Unset = UNSET
        if not isinstance(self.net_cents, Unset):
            net_cents = self.net_cents



        pool = self.pool

        pool_game = self.pool_game

        pool_winner: int | None | Unset
        if isinstance(self.pool_winner, Unset):
            pool_winner = UNSET
        else:
            pool_winner = self.pool_winner

        pool_won = self.pool_won


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "net": net,
            "payments": payments,
            "tricks": tricks,
        })
        if balances is not UNSET:
            field_dict["balances"] = balances
        if hand_no is not UNSET:
            field_dict["hand_no"] = hand_no
        if net_cents is not UNSET:
            field_dict["net_cents"] = net_cents
        if pool is not UNSET:
            field_dict["pool"] = pool
        if pool_game is not UNSET:
            field_dict["pool_game"] = pool_game
        if pool_winner is not UNSET:
            field_dict["pool_winner"] = pool_winner
        if pool_won is not UNSET:
            field_dict["pool_won"] = pool_won

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        net = cast(list[int], d.pop("net"))


        payments = cast(list[int], d.pop("payments"))


        tricks = cast(list[int], d.pop("tricks"))


        balances = cast(list[int], d.pop("balances", UNSET))


        hand_no = d.pop("hand_no", UNSET)

        net_cents = cast(list[int], d.pop("net_cents", UNSET))


        pool = d.pop("pool", UNSET)

        pool_game = d.pop("pool_game", UNSET)

        def _parse_pool_winner(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        pool_winner = _parse_pool_winner(d.pop("pool_winner", UNSET))


        pool_won = d.pop("pool_won", UNSET)

        cha_kau_tsz_result = cls(
            net=net,
            payments=payments,
            tricks=tricks,
            balances=balances,
            hand_no=hand_no,
            net_cents=net_cents,
            pool=pool,
            pool_game=pool_game,
            pool_winner=pool_winner,
            pool_won=pool_won,
        )


        cha_kau_tsz_result.additional_properties = d
        return cha_kau_tsz_result

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
