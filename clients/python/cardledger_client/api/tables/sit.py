from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.problem import Problem
from ...models.seat import Seat
from ...models.seat_request import SeatRequest
from ...types import UNSET, Unset
from typing import cast
from uuid import UUID



def _get_kwargs(
    table_id: UUID,
    *,
    body: SeatRequest,
    prefer: str | Unset = UNSET,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(prefer, Unset):
        headers["Prefer"] = prefer



    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/tables/{table_id}/seats".format(table_id=quote(str(table_id), safe=""),),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | Seat:
    if response.status_code == 201:
        response_201 = Seat.from_dict(response.json())



        return response_201

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

    if response.status_code == 409:
        response_409 = Problem.from_dict(response.json())



        return response_409

    if response.status_code == 422:
        response_422 = Problem.from_dict(response.json())



        return response_422

    if response.status_code == 429:
        response_429 = Problem.from_dict(response.json())



        return response_429

    response_default = Problem.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Problem | Seat]:
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
    body: SeatRequest,
    prefer: str | Unset = UNSET,

) -> Response[Problem | Seat]:
    """ Sit down (at `seat`, or the first free one): before the first deal, or between deals in a seat
    someone
    left (sitting down then counts as `ready`). When the last seat is filled and every seat is ready,
    the next
    deal starts. The answer carries the signed `receipt` of the write; with `Prefer:
    return=representation`,
    also `view`, your seat view after it.

    Args:
        table_id (UUID):
        prefer (str | Unset):
        body (SeatRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | Seat]
     """


    kwargs = _get_kwargs(
        table_id=table_id,
body=body,
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
    body: SeatRequest,
    prefer: str | Unset = UNSET,

) -> Problem | Seat | None:
    """ Sit down (at `seat`, or the first free one): before the first deal, or between deals in a seat
    someone
    left (sitting down then counts as `ready`). When the last seat is filled and every seat is ready,
    the next
    deal starts. The answer carries the signed `receipt` of the write; with `Prefer:
    return=representation`,
    also `view`, your seat view after it.

    Args:
        table_id (UUID):
        prefer (str | Unset):
        body (SeatRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | Seat
     """


    return sync_detailed(
        table_id=table_id,
client=client,
body=body,
prefer=prefer,

    ).parsed

async def asyncio_detailed(
    table_id: UUID,
    *,
    client: AuthenticatedClient,
    body: SeatRequest,
    prefer: str | Unset = UNSET,

) -> Response[Problem | Seat]:
    """ Sit down (at `seat`, or the first free one): before the first deal, or between deals in a seat
    someone
    left (sitting down then counts as `ready`). When the last seat is filled and every seat is ready,
    the next
    deal starts. The answer carries the signed `receipt` of the write; with `Prefer:
    return=representation`,
    also `view`, your seat view after it.

    Args:
        table_id (UUID):
        prefer (str | Unset):
        body (SeatRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | Seat]
     """


    kwargs = _get_kwargs(
        table_id=table_id,
body=body,
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
    body: SeatRequest,
    prefer: str | Unset = UNSET,

) -> Problem | Seat | None:
    """ Sit down (at `seat`, or the first free one): before the first deal, or between deals in a seat
    someone
    left (sitting down then counts as `ready`). When the last seat is filled and every seat is ready,
    the next
    deal starts. The answer carries the signed `receipt` of the write; with `Prefer:
    return=representation`,
    also `view`, your seat view after it.

    Args:
        table_id (UUID):
        prefer (str | Unset):
        body (SeatRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | Seat
     """


    return (await asyncio_detailed(
        table_id=table_id,
client=client,
body=body,
prefer=prefer,

    )).parsed
