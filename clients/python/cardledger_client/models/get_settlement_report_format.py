from typing import Literal

GetSettlementReportFormat = Literal['csv', 'json']

GET_SETTLEMENT_REPORT_FORMAT_VALUES: set[GetSettlementReportFormat] = { 'csv', 'json',  }

def check_get_settlement_report_format(value: str) -> GetSettlementReportFormat:
    if value in GET_SETTLEMENT_REPORT_FORMAT_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {GET_SETTLEMENT_REPORT_FORMAT_VALUES!r}")
