from enum import StrEnum

class GetDisputeReportFormat(StrEnum):
    HTML = "html"
    JSON = "json"

    def __str__(self) -> str:
        return str(self.value)
