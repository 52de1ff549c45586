from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.cholek_tiga_result_leftover_pool_item import check_cholek_tiga_result_leftover_pool_item
from ..models.cholek_tiga_result_leftover_pool_item import CholekTigaResultLeftoverPoolItem
from ..models.cholek_tiga_result_piles_item_item import check_cholek_tiga_result_piles_item_item
from ..models.cholek_tiga_result_piles_item_item import CholekTigaResultPilesItemItem
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="CholekTigaResult")



@_attrs_define
class CholekTigaResult:
    """ How a Cholek Tiga deal ended.

        Attributes:
            net (list[int]): cents by seat: points and ang pow settled, in-play bonuses included
            scores (list[int]): points by seat
            leftover_pool (list[CholekTigaResultLeftoverPoolItem] | Unset): cards left in the pool
            piles (list[list[CholekTigaResultPilesItemItem]] | Unset): captures by seat
     """

    net: list[int]
    scores: list[int]
    leftover_pool: list[CholekTigaResultLeftoverPoolItem] | Unset = UNSET
    piles: list[list[CholekTigaResultPilesItemItem]] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        net = self.net



        scores = self.scores



        leftover_pool: list[str] | Unset = UNSET
        if not isinstance(self.leftover_pool, Unset):
            leftover_pool = []
            for leftover_pool_item_data in self.leftover_pool:
                leftover_pool_item: str = leftover_pool_item_data
                leftover_pool.append(leftover_pool_item)



        piles: list[list[str]] | Unset = UNSET
        if not isinstance(self.piles, Unset):
            piles = []
            for piles_item_data in self.piles:
                piles_item = []
                for piles_item_item_data in piles_item_data:
                    piles_item_item: str = piles_item_item_data
                    piles_item.append(piles_item_item)


                piles.append(piles_item)




        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "net": net,
            "scores": scores,
        })
        if leftover_pool is not UNSET:
            field_dict["leftover_pool"] = leftover_pool
        if piles is not UNSET:
            field_dict["piles"] = piles

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        net = cast(list[int], d.pop("net"))


        scores = cast(list[int], d.pop("scores"))


        _leftover_pool = d.pop("leftover_pool", UNSET)
        leftover_pool: list[CholekTigaResultLeftoverPoolItem] | Unset = UNSET
        if _leftover_pool is not UNSET:
            leftover_pool = []
            for leftover_pool_item_data in _leftover_pool:
                leftover_pool_item = check_cholek_tiga_result_leftover_pool_item(leftover_pool_item_data)



                leftover_pool.append(leftover_pool_item)


        _piles = d.pop("piles", UNSET)
        piles: list[list[CholekTigaResultPilesItemItem]] | Unset = UNSET
        if _piles is not UNSET:
            piles = []
            for piles_item_data in _piles:
                piles_item = []
                _piles_item = piles_item_data
                for piles_item_item_data in (_piles_item):
                    piles_item_item = check_cholek_tiga_result_piles_item_item(piles_item_item_data)



                    piles_item.append(piles_item_item)

                piles.append(piles_item)


        cholek_tiga_result = cls(
            net=net,
            scores=scores,
            leftover_pool=leftover_pool,
            piles=piles,
        )


        cholek_tiga_result.additional_properties = d
        return cholek_tiga_result

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
