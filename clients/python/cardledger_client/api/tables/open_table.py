from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.cha_kau_tsz_table_create import ChaKauTszTableCreate
from ...models.cholek_tiga_table_create import CholekTigaTableCreate
from ...models.opened_table import OpenedTable
from ...models.problem import Problem
from typing import cast



def _get_kwargs(
    *,
    body: ChaKauTszTableCreate | CholekTigaTableCreate,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/tables",
    }

    
    if isinstance(body, CholekTigaTableCreate):
        _kwargs["json"] = body.to_dict()
    else:
        _kwargs["json"] = body.to_dict()


    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> OpenedTable | Problem:
    if response.status_code == 201:
        response_201 = OpenedTable.from_dict(response.json())



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

    if response.status_code == 422:
        response_422 = Problem.from_dict(response.json())



        return response_422

    if response.status_code == 429:
        response_429 = Problem.from_dict(response.json())



        return response_429

    response_default = Problem.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[OpenedTable | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: ChaKauTszTableCreate | CholekTigaTableCreate,

) -> Response[OpenedTable | Problem]:
    """ Open a table. Options are the per-table settings of docs/rules.md; unknown or out-of-range ones are
    a 422.
    The answer carries the signed `receipt` of the opening (GET /v1/keys).

    Args:
        body (ChaKauTszTableCreate | CholekTigaTableCreate): The game, its number of players and
            its options.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[OpenedTable | Problem]
     """


    kwargs = _get_kwargs(
        body=body,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    *,
    client: AuthenticatedClient,
    body: ChaKauTszTableCreate | CholekTigaTableCreate,

) -> OpenedTable | Problem | None:
    """ Open a table. Options are the per-table settings of docs/rules.md; unknown or out-of-range ones are
    a 422.
    The answer carries the signed `receipt` of the opening (GET /v1/keys).

    Args:
        body (ChaKauTszTableCreate | CholekTigaTableCreate): The game, its number of players and
            its options.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        OpenedTable | Problem
     """


    return sync_detailed(
        client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: ChaKauTszTableCreate | CholekTigaTableCreate,

) -> Response[OpenedTable | Problem]:
    """ Open a table. Options are the per-table settings of docs/rules.md; unknown or out-of-range ones are
    a 422.
    The answer carries the signed `receipt` of the opening (GET /v1/keys).

    Args:
        body (ChaKauTszTableCreate | CholekTigaTableCreate): The game, its number of players and
            its options.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[OpenedTable | Problem]
     """


    kwargs = _get_kwargs(
        body=body,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    *,
    client: AuthenticatedClient,
    body: ChaKauTszTableCreate | CholekTigaTableCreate,

) -> OpenedTable | Problem | None:
    """ Open a table. Options are the per-table settings of docs/rules.md; unknown or out-of-range ones are
    a 422.
    The answer carries the signed `receipt` of the opening (GET /v1/keys).

    Args:
        body (ChaKauTszTableCreate | CholekTigaTableCreate): The game, its number of players and
            its options.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        OpenedTable | Problem
     """


    return (await asyncio_detailed(
        client=client,
body=body,

    )).parsed
