from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.problem import Problem
from ...models.seat_view import SeatView
from ...types import UNSET, Unset
from typing import cast
from uuid import UUID



def _get_kwargs(
    table_id: UUID,
    *,
    min_version: int | Unset = UNSET,
    wait_for_version: int | Unset = UNSET,
    if_none_match: str | Unset = UNSET,
    prefer: str | Unset = UNSET,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(if_none_match, Unset):
        headers["If-None-Match"] = if_none_match

    if not isinstance(prefer, Unset):
        headers["Prefer"] = prefer



    

    params: dict[str, Any] = {}

    params["min_version"] = min_version

    params["wait_for_version"] = wait_for_version


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/tables/{table_id}/view".format(table_id=quote(str(table_id), safe=""),),
        "params": params,
    }


    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Any | Problem | SeatView:
    if response.status_code == 200:
        response_200 = SeatView.from_dict(response.json())



        return response_200

    if response.status_code == 304:
        response_304 = cast(Any, None)
        return response_304

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())



        return response_400

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())



        return response_401

    if response.status_code == 403:
        response_403 = Problem.from_dict(response.json())



        return response_403

    if response.status_code == 404:
        response_404 = Problem.from_dict(response.json())



        return response_404

    if response.status_code == 422:
        response_422 = Problem.from_dict(response.json())



        return response_422

    if response.status_code == 429:
        response_429 = Problem.from_dict(response.json())



        return response_429

    if response.status_code == 503:
        response_503 = Problem.from_dict(response.json())



        return response_503

    response_default = Problem.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Any | Problem | SeatView]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    table_id: UUID,
    *,
    client: AuthenticatedClient,
    min_version: int | Unset = UNSET,
    wait_for_version: int | Unset = UNSET,
    if_none_match: str | Unset = UNSET,
    prefer: str | Unset = UNSET,

) -> Response[Any | Problem | SeatView]:
    """ The caller's seat view: the public state plus `seat`, `hand` and `legal_actions`. 403 without a
    seat.
    With `wait_for_version`, a long-poll: a seat waiting for its turn learns of it here without polling.

    Args:
        table_id (UUID):
        min_version (int | Unset):
        wait_for_version (int | Unset):
        if_none_match (str | Unset):
        prefer (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | Problem | SeatView]
     """


    kwargs = _get_kwargs(
        table_id=table_id,
min_version=min_version,
wait_for_version=wait_for_version,
if_none_match=if_none_match,
prefer=prefer,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    table_id: UUID,
    *,
    client: AuthenticatedClient,
    min_version: int | Unset = UNSET,
    wait_for_version: int | Unset = UNSET,
    if_none_match: str | Unset = UNSET,
    prefer: str | Unset = UNSET,

) -> Any | Problem | SeatView | None:
    """ The caller's seat view: the public state plus `seat`, `hand` and `legal_actions`. 403 without a
    seat.
    With `wait_for_version`, a long-poll: a seat waiting for its turn learns of it here without polling.

    Args:
        table_id (UUID):
        min_version (int | Unset):
        wait_for_version (int | Unset):
        if_none_match (str | Unset):
        prefer (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | Problem | SeatView
     """


    return sync_detailed(
        table_id=table_id,
client=client,
min_version=min_version,
wait_for_version=wait_for_version,
if_none_match=if_none_match,
prefer=prefer,

    ).parsed

async def asyncio_detailed(
    table_id: UUID,
    *,
    client: AuthenticatedClient,
    min_version: int | Unset = UNSET,
    wait_for_version: int | Unset = UNSET,
    if_none_match: str | Unset = UNSET,
    prefer: str | Unset = UNSET,

) -> Response[Any | Problem | SeatView]:
    """ The caller's seat view: the public state plus `seat`, `hand` and `legal_actions`. 403 without a
    seat.
    With `wait_for_version`, a long-poll: a seat waiting for its turn learns of it here without polling.

    Args:
        table_id (UUID):
        min_version (int | Unset):
        wait_for_version (int | Unset):
        if_none_match (str | Unset):
        prefer (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | Problem | SeatView]
     """


    kwargs = _get_kwargs(
        table_id=table_id,
min_version=min_version,
wait_for_version=wait_for_version,
if_none_match=if_none_match,
prefer=prefer,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    table_id: UUID,
    *,
    client: AuthenticatedClient,
    min_version: int | Unset = UNSET,
    wait_for_version: int | Unset = UNSET,
    if_none_match: str | Unset = UNSET,
    prefer: str | Unset = UNSET,

) -> Any | Problem | SeatView | None:
    """ The caller's seat view: the public state plus `seat`, `hand` and `legal_actions`. 403 without a
    seat.
    With `wait_for_version`, a long-poll: a seat waiting for its turn learns of it here without polling.

    Args:
        table_id (UUID):
        min_version (int | Unset):
        wait_for_version (int | Unset):
        if_none_match (str | Unset):
        prefer (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | Problem | SeatView
     """


    return (await asyncio_detailed(
        table_id=table_id,
client=client,
min_version=min_version,
wait_for_version=wait_for_version,
if_none_match=if_none_match,
prefer=prefer,

    )).parsed
