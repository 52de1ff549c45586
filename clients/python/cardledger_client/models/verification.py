from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.first_bad_event import FirstBadEvent
  from ..models.verification_problem import VerificationProblem





T = TypeVar("T", bound="Verification")



@_attrs_define
class Verification:
    """ The verdict on one deal; a check not run (the deal still running) is null.

        Attributes:
            checked (str): `all`, or why only the chain was checked
            commitment_matches_seed (bool | None):
            deck_matches_seed (bool | None):
            first_bad_event (FirstBadEvent | None):
            hash_chain_intact (bool):
            ok (bool):
            problems (list[VerificationProblem]):
            replay_matches (bool | None):
     """

    checked: str
    commitment_matches_seed: bool | None
    deck_matches_seed: bool | None
    first_bad_event: FirstBadEvent | None
    hash_chain_intact: bool
    ok: bool
    problems: list[VerificationProblem]
    replay_matches: bool | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.first_bad_event import FirstBadEvent # noqa: PLC0415
        from ..models.verification_problem import VerificationProblem # noqa: PLC0415
        checked = self.checked

        commitment_matches_seed: bool | None
        commitment_matches_seed = self.commitment_matches_seed

        deck_matches_seed: bool | None
        deck_matches_seed = self.deck_matches_seed

        first_bad_event: dict[str, Any] | None
        if isinstance(self.first_bad_event, FirstBadEvent):
            first_bad_event = self.first_bad_event.to_dict()
        else:
            first_bad_event = self.first_bad_event

        hash_chain_intact = self.hash_chain_intact

        ok = self.ok

        problems = []
        for problems_item_data in self.problems:
            problems_item = problems_item_data.to_dict()
            problems.append(problems_item)



        replay_matches: bool | None
        replay_matches = self.replay_matches


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "checked": checked,
            "commitment_matches_seed": commitment_matches_seed,
            "deck_matches_seed": deck_matches_seed,
            "first_bad_event": first_bad_event,
            "hash_chain_intact": hash_chain_intact,
            "ok": ok,
            "problems": problems,
            "replay_matches": replay_matches,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.first_bad_event import FirstBadEvent # noqa: PLC0415
        from ..models.verification_problem import VerificationProblem # noqa: PLC0415
        d = dict(src_dict)
        checked = d.pop("checked")

        def _parse_commitment_matches_seed(data: object) -> bool | None:
            if data is None:
                return data
            return cast(bool | None, data)

        commitment_matches_seed = _parse_commitment_matches_seed(d.pop("commitment_matches_seed"))


        def _parse_deck_matches_seed(data: object) -> bool | None:
            if data is None:
                return data
            return cast(bool | None, data)

        deck_matches_seed = _parse_deck_matches_seed(d.pop("deck_matches_seed"))


        def _parse_first_bad_event(data: object) -> FirstBadEvent | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                first_bad_event_type_0 = FirstBadEvent.from_dict(data)



                return first_bad_event_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(FirstBadEvent | None, data)

        first_bad_event = _parse_first_bad_event(d.pop("first_bad_event"))


        hash_chain_intact = d.pop("hash_chain_intact")

        ok = d.pop("ok")

        problems = []
        _problems = d.pop("problems")
        for problems_item_data in (_problems):
            problems_item = VerificationProblem.from_dict(problems_item_data)



            problems.append(problems_item)


        def _parse_replay_matches(data: object) -> bool | None:
            if data is None:
                return data
            return cast(bool | None, data)

        replay_matches = _parse_replay_matches(d.pop("replay_matches"))


        verification = cls(
            checked=checked,
            commitment_matches_seed=commitment_matches_seed,
            deck_matches_seed=deck_matches_seed,
            first_bad_event=first_bad_event,
            hash_chain_intact=hash_chain_intact,
            ok=ok,
            problems=problems,
            replay_matches=replay_matches,
        )


        verification.additional_properties = d
        return verification

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
