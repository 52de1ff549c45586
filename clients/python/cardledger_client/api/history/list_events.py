from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.events_page import EventsPage
from ...models.problem import Problem
from ...types import UNSET, Unset
from typing import cast
from uuid import UUID



def _get_kwargs(
    table_id: UUID,
    *,
    after: int | Unset = 0,
    limit: int | Unset = 100,

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

    params["after"] = after

    params["limit"] = limit


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/tables/{table_id}/events".format(table_id=quote(str(table_id), safe=""),),
        "params": params,
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> EventsPage | Problem:
    if response.status_code == 200:
        response_200 = EventsPage.from_dict(response.json())



        return response_200

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())



        return response_401

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



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[EventsPage | Problem]:
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
    after: int | Unset = 0,
    limit: int | Unset = 100,

) -> Response[EventsPage | Problem]:
    """ The table's events after position `after`, redacted for the caller: a hand's cards are shown only to
    its holder until the deal ends, then to every seated player and the auditor.

    Args:
        table_id (UUID):
        after (int | Unset):  Default: 0.
        limit (int | Unset):  Default: 100.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EventsPage | Problem]
     """


    kwargs = _get_kwargs(
        table_id=table_id,
after=after,
limit=limit,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    table_id: UUID,
    *,
    client: AuthenticatedClient,
    after: int | Unset = 0,
    limit: int | Unset = 100,

) -> EventsPage | Problem | None:
    """ The table's events after position `after`, redacted for the caller: a hand's cards are shown only to
    its holder until the deal ends, then to every seated player and the auditor.

    Args:
        table_id (UUID):
        after (int | Unset):  Default: 0.
        limit (int | Unset):  Default: 100.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EventsPage | Problem
     """


    return sync_detailed(
        table_id=table_id,
client=client,
after=after,
limit=limit,

    ).parsed

async def asyncio_detailed(
    table_id: UUID,
    *,
    client: AuthenticatedClient,
    after: int | Unset = 0,
    limit: int | Unset = 100,

) -> Response[EventsPage | Problem]:
    """ The table's events after position `after`, redacted for the caller: a hand's cards are shown only to
    its holder until the deal ends, then to every seated player and the auditor.

    Args:
        table_id (UUID):
        after (int | Unset):  Default: 0.
        limit (int | Unset):  Default: 100.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EventsPage | Problem]
     """


    kwargs = _get_kwargs(
        table_id=table_id,
after=after,
limit=limit,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    table_id: UUID,
    *,
    client: AuthenticatedClient,
    after: int | Unset = 0,
    limit: int | Unset = 100,

) -> EventsPage | Problem | None:
    """ The table's events after position `after`, redacted for the caller: a hand's cards are shown only to
    its holder until the deal ends, then to every seated player and the auditor.

    Args:
        table_id (UUID):
        after (int | Unset):  Default: 0.
        limit (int | Unset):  Default: 100.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EventsPage | Problem
     """


    return (await asyncio_detailed(
        table_id=table_id,
client=client,
after=after,
limit=limit,

    )).parsed
