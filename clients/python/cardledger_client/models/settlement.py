from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
from uuid import UUID

if TYPE_CHECKING:
  from ..models.log_position import LogPosition
  from ..models.settlement_discrepancy import SettlementDiscrepancy
  from ..models.settlement_period import SettlementPeriod
  from ..models.settlement_player import SettlementPlayer
  from ..models.settlement_row import SettlementRow
  from ..models.settlement_table import SettlementTable





T = TypeVar("T", bound="Settlement")



@_attrs_define
class Settlement:
    """ A page of the report: the tables that settled deals in the period or were closed in it with their pool
    refunded, in table id order; one row per account of a table (`seat:N`, `pool`, and `player:<id>` for each
    player a closing refunded). Every figure (rows, players, tables, totals, balance, discrepancies) covers the
    tables of this page.

        Attributes:
            balance_cents (int): every account of the tables: 0
            balanced (bool):
            balanced_scope (str):
            consistent_with_deal_results (bool):
            currency_unit (str):
            deals (int):
            discrepancies (list[SettlementDiscrepancy]):
            log_position (LogPosition):
            next_after (None | str): cursor of the next page (a table id, pass it as `after`), null on the last
            period (SettlementPeriod):
            player_id (None | UUID):
            players (list[SettlementPlayer]):
            rows (list[SettlementRow]):
            table_id (None | UUID):
            tables (list[SettlementTable]):
            total_cents (int): the sum of the rows shown
     """

    balance_cents: int
    balanced: bool
    balanced_scope: str
    consistent_with_deal_results: bool
    currency_unit: str
    deals: int
    discrepancies: list[SettlementDiscrepancy]
    log_position: LogPosition
    next_after: None | str
    period: SettlementPeriod
    player_id: None | UUID
    players: list[SettlementPlayer]
    rows: list[SettlementRow]
    table_id: None | UUID
    tables: list[SettlementTable]
    total_cents: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.log_position import LogPosition # noqa: PLC0415
        from ..models.settlement_discrepancy import SettlementDiscrepancy # noqa: PLC0415
        from ..models.settlement_period import SettlementPeriod # noqa: PLC0415
        from ..models.settlement_player import SettlementPlayer # noqa: PLC0415
        from ..models.settlement_row import SettlementRow # noqa: PLC0415
        from ..models.settlement_table import SettlementTable # noqa: PLC0415
        balance_cents = self.balance_cents

        balanced = self.balanced

        balanced_scope = self.balanced_scope

        consistent_with_deal_results = self.consistent_with_deal_results

        currency_unit = self.currency_unit

        deals = self.deals

        discrepancies = []
        for discrepancies_item_data in self.discrepancies:
            discrepancies_item = discrepancies_item_data.to_dict()
            discrepancies.append(discrepancies_item)



        log_position = self.log_position.to_dict()

        next_after: None | str
        next_after = self.next_after

        period = self.period.to_dict()

        player_id: None | str
        if isinstance(self.player_id, UUID):
            player_id = str(self.player_id)
        else:
            player_id = self.player_id

        players = []
        for players_item_data in self.players:
            players_item = players_item_data.to_dict()
            players.append(players_item)



        rows = []
        for rows_item_data in self.rows:
            rows_item = rows_item_data.to_dict()
            rows.append(rows_item)



        table_id: None | str
        if isinstance(self.table_id, UUID):
            table_id = str(self.table_id)
        else:
            table_id = self.table_id

        tables = []
        for tables_item_data in self.tables:
            tables_item = tables_item_data.to_dict()
            tables.append(tables_item)



        total_cents = self.total_cents


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "balance_cents": balance_cents,
            "balanced": balanced,
            "balanced_scope": balanced_scope,
            "consistent_with_deal_results": consistent_with_deal_results,
            "currency_unit": currency_unit,
            "deals": deals,
            "discrepancies": discrepancies,
            "log_position": log_position,
            "next_after": next_after,
            "period": period,
            "player_id": player_id,
            "players": players,
            "rows": rows,
            "table_id": table_id,
            "tables": tables,
            "total_cents": total_cents,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.log_position import LogPosition # noqa: PLC0415
        from ..models.settlement_discrepancy import SettlementDiscrepancy # noqa: PLC0415
        from ..models.settlement_period import SettlementPeriod # noqa: PLC0415
        from ..models.settlement_player import SettlementPlayer # noqa: PLC0415
        from ..models.settlement_row import SettlementRow # noqa: PLC0415
        from ..models.settlement_table import SettlementTable # noqa: PLC0415
        d = dict(src_dict)
        balance_cents = d.pop("balance_cents")

        balanced = d.pop("balanced")

        balanced_scope = d.pop("balanced_scope")

        consistent_with_deal_results = d.pop("consistent_with_deal_results")

        currency_unit = d.pop("currency_unit")

        deals = d.pop("deals")

        discrepancies = []
        _discrepancies = d.pop("discrepancies")
        for discrepancies_item_data in (_discrepancies):
            discrepancies_item = SettlementDiscrepancy.from_dict(discrepancies_item_data)



            discrepancies.append(discrepancies_item)


        log_position = LogPosition.from_dict(d.pop("log_position"))




        def _parse_next_after(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        next_after = _parse_next_after(d.pop("next_after"))


        period = SettlementPeriod.from_dict(d.pop("period"))




        def _parse_player_id(data: object) -> None | UUID:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                player_id_type_0 = UUID(data)



                return player_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UUID, data)

        player_id = _parse_player_id(d.pop("player_id"))


        players = []
        _players = d.pop("players")
        for players_item_data in (_players):
            players_item = SettlementPlayer.from_dict(players_item_data)



            players.append(players_item)


        rows = []
        _rows = d.pop("rows")
        for rows_item_data in (_rows):
            rows_item = SettlementRow.from_dict(rows_item_data)



            rows.append(rows_item)


        def _parse_table_id(data: object) -> None | UUID:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                table_id_type_0 = UUID(data)



                return table_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UUID, data)

        table_id = _parse_table_id(d.pop("table_id"))


        tables = []
        _tables = d.pop("tables")
        for tables_item_data in (_tables):
            tables_item = SettlementTable.from_dict(tables_item_data)



            tables.append(tables_item)


        total_cents = d.pop("total_cents")

        settlement = cls(
            balance_cents=balance_cents,
            balanced=balanced,
            balanced_scope=balanced_scope,
            consistent_with_deal_results=consistent_with_deal_results,
            currency_unit=currency_unit,
            deals=deals,
            discrepancies=discrepancies,
            log_position=log_position,
            next_after=next_after,
            period=period,
            player_id=player_id,
            players=players,
            rows=rows,
            table_id=table_id,
            tables=tables,
            total_cents=total_cents,
        )


        settlement.additional_properties = d
        return settlement

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
