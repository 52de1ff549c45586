"""Every error is application/problem+json; no input produces a 500."""

from __future__ import annotations

import logging

import pytest
from flask.testing import FlaskClient

from services.api import create_app
from services.bootstrap import Container
from tests.api.conftest import TEST_CONFIG, Api, Scene, bearer
from tests.api.test_endpoints import assert_problem


def test_malformed_json_is_400(client: FlaskClient) -> None:
    response = client.post("/v1/players", data="{not json", content_type="application/json")
    assert_problem(response, 400, "malformed_json")


def test_deeply_nested_json_is_not_a_500(client: FlaskClient) -> None:
    response = client.post("/v1/players", data="[" * 100_000, content_type="application/json")
    assert response.status_code in (400, 413)
    assert response.mimetype == "application/problem+json"


def test_invalid_utf8_and_unknown_charset(client: FlaskClient) -> None:
    assert_problem(client.post("/v1/players", data=b'{"name": "\xff"}', content_type="application/json"), 400)
    response = client.post("/v1/players", data=b'{"name": "a"}', content_type="application/json; charset=bogus")
    assert_problem(response, 415, "unsupported_charset")


def test_wrong_types_are_422_with_field_messages(client: FlaskClient) -> None:
    body = assert_problem(client.post("/v1/players", json={"name": ["x"]}), 422, "validation_error")
    assert "name" in body["errors"]["json"]
    assert_problem(client.post("/v1/players", json=["name"]), 422)
    assert_problem(client.post("/v1/players", json=None), 422)


def test_non_json_body_is_415(client: FlaskClient) -> None:
    answer = client.post("/v1/players", data="name=x", content_type="application/x-www-form-urlencoded")
    assert "application/x-www-form-urlencoded" in assert_problem(answer, 415, "unsupported_media_type")["detail"]


def test_too_large_body_is_413(client: FlaskClient) -> None:
    assert_problem(client.post("/v1/players", json={"name": "x" * 100_000}), 413)


def test_unknown_route_and_wrong_method(client: FlaskClient) -> None:
    assert_problem(client.get("/v1/nowhere"), 404, "not_found")
    assert_problem(client.get("/"), 404)
    response = client.delete("/v1/players")
    assert_problem(response, 405, "method_not_allowed")
    assert "POST" in response.headers["Allow"]


@pytest.mark.parametrize(
    "path",
    [
        "/v1/tables/%00",
        "/v1/tables/00000000-0000-0000-0000-000000000000\x00/view",
        "/v1/tables/00000000-0000-4000-8000-000000000000/deals/18446744073709551616",
        "/v1/reports/settlement?player_id=%00",
        "/v1/reports/settlement?from=0000-00-00",
        "/v1/reports/settlement?to=9999-12-31T23:59:59%2B14:00",
        "/v1/reports/dispute?table_id=x&deal_no=1",
        "/v1/tables?after=99999999999999999999999",
        "/v1/tables?status=%00",
        "/v1/tables/00000000-0000-4000-8000-000000000000/events?after=99999999999",
    ],
)
def test_odd_inputs_are_never_a_500(api: Api, scene: Scene, path: str) -> None:
    response = api.client.get(path, headers=bearer(scene.alice))
    assert response.status_code < 500, (path, response.get_data(as_text=True))
    if response.status_code >= 400:
        assert response.mimetype == "application/problem+json"


def test_odd_action_bodies_are_4xx(api: Api, scene: Scene) -> None:
    for body in (
        {"type": "discard", "card": "\u0000", "capture": None},
        {"type": "play", "cards": ["1S"] * 40},
        {"type": "ready", "client_seed": "x" * 300},
        {"type": "discard", "card": "AS", "capture": [None]},
        {"type": None},
        {},
    ):
        response = api.act_raw(scene.alice, scene.table, body)
        assert 400 <= response.status_code < 500, (body, response.get_data(as_text=True))
        assert response.mimetype == "application/problem+json"
    header = api.act_raw(scene.alice, scene.table, {"type": "pass"}, key="caf\u00e9")
    assert header.status_code == 400


def test_an_unexpected_exception_is_a_logged_500_problem(
    container: Container, caplog: pytest.LogCaptureFixture
) -> None:
    app = create_app(container=container, config=TEST_CONFIG)

    @app.post("/boom")
    def boom() -> str:
        raise RuntimeError("kaboom")

    with caplog.at_level(logging.ERROR, logger="cardledger.api"):
        response = app.test_client().post(
            "/boom", json={"secret": "s3cr3t-card"}, headers={"Authorization": "Bearer tok3n"}
        )
    assert_problem(response, 500, "internal_error")
    assert "kaboom" not in response.get_data(as_text=True)
    logged = caplog.text
    assert "RuntimeError" in logged
    assert "s3cr3t-card" not in logged and "tok3n" not in logged


def test_a_body_without_content_type_is_415_saying_what_to_send(client: FlaskClient) -> None:
    answer = client.post("/v1/players", data='{"name": "alice"}')
    body = assert_problem(answer, 415)
    assert body["code"] == "unsupported_media_type"
    assert "Content-Type: application/json" in body["detail"] and "no Content-Type" in body["detail"]
    sent = client.post("/v1/players", data='{"name": "alice"}', content_type="text/plain")
    assert "text/plain" in assert_problem(sent, 415)["detail"]


@pytest.mark.parametrize("path", ["/v1/tables/not-a-uuid", "/v1/tables/42/view", "/v1/tables/x/deals/1"])
def test_a_table_id_that_is_not_a_uuid_is_a_problem_naming_it(client: FlaskClient, path: str) -> None:
    answer = client.get(path, headers={"Authorization": "Bearer anything"})
    body = assert_problem(answer, 404)
    assert "is not a table id: a table id is a UUID" in body["detail"]
    assert path.split("/")[3] in body["detail"]
