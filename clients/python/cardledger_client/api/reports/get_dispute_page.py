from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.problem import Problem
from typing import cast
from uuid import UUID



def _get_kwargs(
    *,
    table_id: UUID,
    deal_no: int,

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

    json_table_id = str(table_id)
    params["table_id"] = json_table_id

    params["deal_no"] = deal_no


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/reports/dispute.html",
        "params": params,
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | str:
    if response.status_code == 200:
        response_200 = response.text
        return response_200

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

    response_default = Problem.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Problem | str]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    table_id: UUID,
    deal_no: int,

) -> Response[Problem | str]:
    """ The dispute report of GET /v1/reports/dispute as a standalone HTML page.

    Args:
        table_id (UUID):
        deal_no (int):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | str]
     """


    kwargs = _get_kwargs(
        table_id=table_id,
deal_no=deal_no,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    *,
    client: AuthenticatedClient,
    table_id: UUID,
    deal_no: int,

) -> Problem | str | None:
    """ The dispute report of GET /v1/reports/dispute as a standalone HTML page.

    Args:
        table_id (UUID):
        deal_no (int):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | str
     """


    return sync_detailed(
        client=client,
table_id=table_id,
deal_no=deal_no,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    table_id: UUID,
    deal_no: int,

) -> Response[Problem | str]:
    """ The dispute report of GET /v1/reports/dispute as a standalone HTML page.

    Args:
        table_id (UUID):
        deal_no (int):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | str]
     """


    kwargs = _get_kwargs(
        table_id=table_id,
deal_no=deal_no,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    *,
    client: AuthenticatedClient,
    table_id: UUID,
    deal_no: int,

) -> Problem | str | None:
    """ The dispute report of GET /v1/reports/dispute as a standalone HTML page.

    Args:
        table_id (UUID):
        deal_no (int):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | str
     """


    return (await asyncio_detailed(
        client=client,
table_id=table_id,
deal_no=deal_no,

    )).parsed
