"""The OpenAPI 3.1 document of the API, generated from the code.

Regenerate the committed copy with::

    python -m services.api.spec.document > api-spec/openapi.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from infra.config import Settings
from services.api import create_app

SPEC_PATH = Path(__file__).resolve().parents[3] / "api-spec" / "openapi.json"
REGENERATE = "python -m services.api.spec.document > api-spec/openapi.json"


def spec_dict() -> dict[str, Any]:
    """The document as served at /openapi.json (no server is contacted to build it)."""
    app = create_app(settings=Settings(), config={"RATE_LIMITS_ENABLED": False})
    with app.app_context():
        document: dict[str, Any] = app.extensions["flask-smorest"]["apis"][""]["ext_obj"].spec.to_dict()
    return document


def spec_text() -> str:
    """Pretty-printed with sorted keys, as committed."""
    return json.dumps(spec_dict(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def main() -> None:
    sys.stdout.write(spec_text())


if __name__ == "__main__":
    main()
