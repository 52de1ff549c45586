"""Flask's JSON provider on the service's one JSON library (infra.json_codec): answers as compact UTF-8 JSON.

Flask's own conversions stay (its `default`: dates as HTTP dates, dataclasses, decimals); a call asking for
other formatting (indent, as Flask's debug mode does) goes through Flask's provider unchanged.
"""

from __future__ import annotations

from typing import Any

import orjson
from flask.json.provider import DefaultJSONProvider

from infra import json_codec

# Dates and dataclasses through Flask's `default`, as its own provider writes them, not orjson's forms.
_FLASK_FORMS = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS


class JsonProvider(DefaultJSONProvider):
    sort_keys = False  # the answers keep the schemas' order

    def dumps(self, obj: Any, **kwargs: Any) -> str:
        if kwargs.keys() - {"separators"}:
            return super().dumps(obj, **kwargs)
        return json_codec.dumps(obj, default=self.default, option=_FLASK_FORMS, sort_keys=self.sort_keys).decode()

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        return super().loads(s, **kwargs) if kwargs else json_codec.loads(s)
