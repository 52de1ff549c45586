"""The authorization matrix: every route of the app against every kind of caller.

The routes come from the app's url_map, so a new route without a row here
fails the test. Callers: no token, a bad token, a player with no seat (eve),
the seat itself (alice, seat 0 of the table), another seat at the same table
(bob), a seat at another table (carol) and the auditor.

The action row posts `{"type": "close"}` while the deal runs: a seated player
gets past authorization and meets the rules (409 wrong_phase); nothing changes.
The seats row sits down at the full table: seated players get 409.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from flask import Flask

from tests.api.conftest import Api, Scene, bearer

CALLERS = ("none", "bad", "noseat", "seat", "other_seat", "other_table", "auditor")

MATRIX = """
method path                                             none bad noseat seat other_seat other_table auditor
POST   /v1/players                                      201  201 201    201  201        201         201
GET    /v1/players/me                                   401  401 200    200  200        200         200
POST   /v1/tables                                       401  401 201    201  201        201         403
GET    /v1/tables                                       401  401 200    200  200        200         200
GET    /v1/tables/<uuid:table_id>                       401  401 200    200  200        200         200
POST   /v1/tables/<uuid:table_id>/seats                 401  401 409    409  409        409         403
GET    /v1/tables/<uuid:table_id>/view                  401  401 403    200  200        403         403
POST   /v1/tables/<uuid:table_id>/actions               401  401 403    409  409        403         403
GET    /v1/tables/<uuid:table_id>/events                401  401 200    200  200        200         200
GET    /v1/tables/<uuid:table_id>/deals/<int:deal_no>   401  401 403    200  200        403         200
GET    /v1/tables/<uuid:table_id>/ledger                401  401 403    200  200        403         200
GET    /v1/tables/<uuid:table_id>/stream                401  401 200    200  200        200         200
GET    /v1/tables/<uuid:table_id>/view/stream           401  401 403    200  200        403         403
GET    /v1/reports/settlement                           401  401 403    200  403        403         200
GET    /v1/reports/settlement.csv                       401  401 403    200  403        403         200
GET    /v1/reports/dispute                              401  401 403    200  200        403         200
GET    /v1/reports/dispute.html                         401  401 403    200  200        403         200
POST   /v1/reports/dispute                              401  401 403    200  200        403         200
GET    /v1/keys                                         200  200 200    200  200        200         200
GET    /healthz                                         200  200 200    200  200        200         200
GET    /readyz                                          200  200 200    200  200        200         200
GET    /openapi.json                                    200  200 200    200  200        200         200
GET    /docs                                            200  200 200    200  200        200         200
GET    /ui                                              308  308 308    308  308        308         308
GET    /ui/                                             200  200 200    200  200        200         200
GET    /ui/<path:name>                                  200  200 200    200  200        200         200
"""

Request = tuple[str, dict[str, Any]]


def _requests(s: Scene) -> dict[tuple[str, str], Callable[[], Request]]:
    t = s.table
    return {
        ("POST", "/v1/players"): lambda: ("/v1/players", {"json": {"name": "newcomer"}}),
        ("GET", "/v1/players/me"): lambda: ("/v1/players/me", {}),
        ("POST", "/v1/tables"): lambda: ("/v1/tables", {"json": {"game": "cholek-tiga", "seats": 2}}),
        ("GET", "/v1/tables"): lambda: ("/v1/tables", {}),
        ("GET", "/v1/tables/<uuid:table_id>"): lambda: (f"/v1/tables/{t}", {}),
        ("POST", "/v1/tables/<uuid:table_id>/seats"): lambda: (f"/v1/tables/{t}/seats", {"json": {}}),
        ("GET", "/v1/tables/<uuid:table_id>/view"): lambda: (f"/v1/tables/{t}/view", {}),
        ("POST", "/v1/tables/<uuid:table_id>/actions"): lambda: (
            f"/v1/tables/{t}/actions",
            {"json": {"type": "close"}, "headers": {"Idempotency-Key": "matrix"}},
        ),
        ("GET", "/v1/tables/<uuid:table_id>/events"): lambda: (f"/v1/tables/{t}/events", {}),
        ("GET", "/v1/tables/<uuid:table_id>/deals/<int:deal_no>"): lambda: (f"/v1/tables/{t}/deals/1", {}),
        ("GET", "/v1/tables/<uuid:table_id>/ledger"): lambda: (f"/v1/tables/{t}/ledger", {}),
        ("GET", "/v1/tables/<uuid:table_id>/stream"): lambda: (f"/v1/tables/{t}/stream", {}),
        ("GET", "/v1/tables/<uuid:table_id>/view/stream"): lambda: (f"/v1/tables/{t}/view/stream", {}),
        ("GET", "/v1/reports/settlement"): lambda: (f"/v1/reports/settlement?player_id={s.alice_id}", {}),
        ("GET", "/v1/reports/settlement.csv"): lambda: (f"/v1/reports/settlement.csv?player_id={s.alice_id}", {}),
        ("GET", "/v1/reports/dispute"): lambda: (f"/v1/reports/dispute?table_id={t}&deal_no=1", {}),
        ("GET", "/v1/reports/dispute.html"): lambda: (f"/v1/reports/dispute.html?table_id={t}&deal_no=1", {}),
        ("POST", "/v1/reports/dispute"): lambda: (
            "/v1/reports/dispute",
            {"json": {"table_id": t, "deal_no": 1, "receipts": []}},
        ),
        ("GET", "/v1/keys"): lambda: ("/v1/keys", {}),
        ("GET", "/healthz"): lambda: ("/healthz", {}),
        ("GET", "/readyz"): lambda: ("/readyz", {}),
        ("GET", "/openapi.json"): lambda: ("/openapi.json", {}),
        ("GET", "/docs"): lambda: ("/docs", {}),
        ("GET", "/ui"): lambda: ("/ui", {}),
        ("GET", "/ui/"): lambda: ("/ui/", {}),
        ("GET", "/ui/<path:name>"): lambda: ("/ui/js/main.js", {}),
    }


def parse_matrix() -> dict[tuple[str, str], dict[str, int]]:
    lines = [line.split() for line in MATRIX.strip().splitlines()]
    header, rows = lines[0], lines[1:]
    assert header[2:] == list(CALLERS)
    return {(row[0], row[1]): dict(zip(CALLERS, map(int, row[2:]), strict=True)) for row in rows}


def app_routes(app: Flask) -> set[tuple[str, str]]:
    routes = set()
    for rule in app.url_map.iter_rules():
        if rule.endpoint == "static":
            continue
        for method in rule.methods or ():
            if method not in ("HEAD", "OPTIONS"):
                routes.add((method, rule.rule))
    return routes


def test_the_matrix_covers_every_route(app: Flask) -> None:
    matrix = set(parse_matrix())
    routes = app_routes(app)
    # flask-smorest also serves the Swagger UI's own assets under /docs/<path>; /docs is the page.
    routes = {r for r in routes if not r[1].startswith("/docs/")}
    assert routes - matrix == set(), "routes without a row in the authorization matrix"
    assert matrix - routes == set(), "matrix rows for routes that do not exist"


def _headers_for(who: str, s: Scene) -> dict[str, str]:
    return {
        "none": {},
        "bad": bearer("00000000-0000-4000-8000-000000000000.not-a-real-secret"),
        "noseat": bearer(s.eve),
        "seat": bearer(s.alice),
        "other_seat": bearer(s.bob),
        "other_table": bearer(s.carol),
        "auditor": bearer(s.auditor),
    }[who]


def test_authorization_matrix(app: Flask, api: Api, scene: Scene) -> None:
    app.config["SSE_MAX_SECONDS"] = 0.05
    requests = _requests(scene)
    matrix = parse_matrix()
    assert set(requests) == set(matrix)
    failures = []
    for (method, rule), expected in matrix.items():
        for who in CALLERS:
            path, kwargs = requests[(method, rule)]()
            headers = {**kwargs.pop("headers", {}), **_headers_for(who, scene)}
            response = api.client.open(path, method=method, headers=headers, **kwargs)
            if response.status_code != expected[who]:
                failures.append(f"{method} {rule} as {who}: {response.status_code}, expected {expected[who]}")
            if response.status_code >= 400:
                assert response.mimetype == "application/problem+json", (method, rule, who)
            if response.status_code == 401:
                assert response.headers["WWW-Authenticate"].startswith("Bearer")
    assert failures == []


@pytest.mark.parametrize(
    "authorization",
    ["Bearer", "Basic dXNlcjpwYXNz", "Bearer a b", "Bearer \u00e9t\u00e9", "bearer " + "x" * 600, "Token abc"],
)
def test_malformed_authorization_headers_are_401(api: Api, scene: Scene, authorization: str) -> None:
    response = api.client.get(f"/v1/tables/{scene.table}", headers={"Authorization": authorization})
    assert response.status_code == 401
    assert response.mimetype == "application/problem+json"
    assert response.headers["WWW-Authenticate"].startswith("Bearer")
