"""Flask's JSON provider with the answers' text written by one C encoder made once (`infra.compact_json`):
`jsonify` through Flask's own provider makes a JSONEncoder and a C encoder on every answer. The same bytes as
Flask's provider writes with the app's settings (compact, keys in the dicts' order, ASCII, Flask's `default`
for dates, UUIDs and dataclasses); any other setting (debug's indentation, sorted keys) is Flask's own."""

from __future__ import annotations

from typing import Any

from flask.json.provider import DefaultJSONProvider, _default
from werkzeug.sansio.response import Response

from infra.compact_json import compact_ascii_encoder

_compact_answer = compact_ascii_encoder(_default)


class CompactJSONProvider(DefaultJSONProvider):
    def response(self, *args: Any, **kwargs: Any) -> Response:
        indented = (self.compact is None and self._app.debug) or self.compact is False
        if indented or self.sort_keys or not self.ensure_ascii or self.default is not _default:
            return super().response(*args, **kwargs)
        value = self._prepare_response_obj(args, kwargs)
        answer: Response = self._app.response_class(f"{_compact_answer(value)}\n", mimetype=self.mimetype)
        return answer
