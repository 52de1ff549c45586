from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.deal_record import DealRecord
from ...models.problem import Problem
from typing import cast
from uuid import UUID



def _get_kwargs(
    table_id: UUID,
    deal_no: int,

) -> dict[str, Any]:
    

    

    

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/tables/{table_id}/deals/{deal_no}".format(table_id=quote(str(table_id), safe=""),deal_no=quote(str(deal_no), safe=""),),
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> DealRecord | Problem:
    if response.status_code == 200:
        response_200 = DealRecord.from_dict(response.json())



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

    if response.status_code == 429:
        response_429 = Problem.from_dict(response.json())



        return response_429

    response_default = Problem.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[DealRecord | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    table_id: UUID,
    deal_no: int,
    *,
    client: AuthenticatedClient,

) -> Response[DealRecord | Problem]:
    """ A deal's commitment, client seeds, server seed (once ended), result and the service's verification.

    Args:
        table_id (UUID):
        deal_no (int):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DealRecord | Problem]
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
    table_id: UUID,
    deal_no: int,
    *,
    client: AuthenticatedClient,

) -> DealRecord | Problem | None:
    """ A deal's commitment, client seeds, server seed (once ended), result and the service's verification.

    Args:
        table_id (UUID):
        deal_no (int):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DealRecord | Problem
     """


    return sync_detailed(
        table_id=table_id,
deal_no=deal_no,
client=client,

    ).parsed

async def asyncio_detailed(
    table_id: UUID,
    deal_no: int,
    *,
    client: AuthenticatedClient,

) -> Response[DealRecord | Problem]:
    """ A deal's commitment, client seeds, server seed (once ended), result and the service's verification.

    Args:
        table_id (UUID):
        deal_no (int):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DealRecord | Problem]
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
    table_id: UUID,
    deal_no: int,
    *,
    client: AuthenticatedClient,

) -> DealRecord | Problem | None:
    """ A deal's commitment, client seeds, server seed (once ended), result and the service's verification.

    Args:
        table_id (UUID):
        deal_no (int):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DealRecord | Problem
     """


    return (await asyncio_detailed(
        table_id=table_id,
deal_no=deal_no,
client=client,

    )).parsed
