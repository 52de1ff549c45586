from typing import Literal

GetDisputeReportFormat = Literal['html', 'json']

GET_DISPUTE_REPORT_FORMAT_VALUES: set[GetDisputeReportFormat] = { 'html', 'json',  }

def check_get_dispute_report_format(value: str) -> GetDisputeReportFormat:
    if value in GET_DISPUTE_REPORT_FORMAT_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {GET_DISPUTE_REPORT_FORMAT_VALUES!r}")
