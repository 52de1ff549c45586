from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.receipt_check_log import check_receipt_check_log
from ..models.receipt_check_log import ReceiptCheckLog
from ..models.receipt_check_signature import check_receipt_check_signature
from ..models.receipt_check_signature import ReceiptCheckSignature
from ..models.receipt_check_verdict import check_receipt_check_verdict
from ..models.receipt_check_verdict import ReceiptCheckVerdict
from typing import cast

if TYPE_CHECKING:
  from ..models.receipt import Receipt





T = TypeVar("T", bound="ReceiptCheck")



@_attrs_define
class ReceiptCheck:
    """ 
        Attributes:
            explanation (str):
            index (int): the receipt's place in the submitted list
            log (ReceiptCheckLog):
            log_hash (None | str): the log's hash at the receipt's version
            ok (bool):
            receipt (Receipt): The service's signed word that a write appended the event `hash` at `version` of the table.
            signature (ReceiptCheckSignature):
            verdict (ReceiptCheckVerdict): rewritten_history: a valid signature on what the log no longer holds
     """

    explanation: str
    index: int
    log: ReceiptCheckLog
    log_hash: None | str
    ok: bool
    receipt: Receipt
    signature: ReceiptCheckSignature
    verdict: ReceiptCheckVerdict





    def to_dict(self) -> dict[str, Any]:
        from ..models.receipt import Receipt # noqa: PLC0415
        explanation = self.explanation

        index = self.index

        log: str = self.log

        log_hash: None | str
        log_hash = self.log_hash

        ok = self.ok

        receipt = self.receipt.to_dict()

        signature: str = self.signature

        verdict: str = self.verdict


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "explanation": explanation,
            "index": index,
            "log": log,
            "log_hash": log_hash,
            "ok": ok,
            "receipt": receipt,
            "signature": signature,
            "verdict": verdict,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.receipt import Receipt # noqa: PLC0415
        d = dict(src_dict)
        explanation = d.pop("explanation")

        index = d.pop("index")

        log = check_receipt_check_log(d.pop("log"))




        def _parse_log_hash(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        log_hash = _parse_log_hash(d.pop("log_hash"))


        ok = d.pop("ok")

        receipt = Receipt.from_dict(d.pop("receipt"))




        signature = check_receipt_check_signature(d.pop("signature"))




        verdict = check_receipt_check_verdict(d.pop("verdict"))




        receipt_check = cls(
            explanation=explanation,
            index=index,
            log=log,
            log_hash=log_hash,
            ok=ok,
            receipt=receipt,
            signature=signature,
            verdict=verdict,
        )

        return receipt_check

