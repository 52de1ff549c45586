from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.list_tables_game import check_list_tables_game
from ...models.list_tables_game import ListTablesGame
from ...models.list_tables_status import check_list_tables_status
from ...models.list_tables_status import ListTablesStatus
from ...models.lobby import Lobby
from ...models.problem import Problem
from ...types import UNSET, Unset
from typing import cast



def _get_kwargs(
    *,
    status: ListTablesStatus | Unset = UNSET,
    game: ListTablesGame | Unset = UNSET,
    after: int | Unset = 0,
    limit: int | Unset = 20,

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

    json_status: str | Unset = UNSET
    if not isinstance(status, Unset):
        json_status = status

    params["status"] = json_status

    json_game: str | Unset = UNSET
    if not isinstance(game, Unset):
        json_game = game

    params["game"] = json_game

    params["after"] = after

    params["limit"] = limit


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/tables",
        "params": params,
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Lobby | Problem:
    if response.status_code == 200:
        response_200 = Lobby.from_dict(response.json())



        return response_200

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())



        return response_401

    if response.status_code == 422:
        response_422 = Problem.from_dict(response.json())



        return response_422

    if response.status_code == 429:
        response_429 = Problem.from_dict(response.json())



        return response_429

    response_default = Problem.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Lobby | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    status: ListTablesStatus | Unset = UNSET,
    game: ListTablesGame | Unset = UNSET,
    after: int | Unset = 0,
    limit: int | Unset = 20,

) -> Response[Lobby | Problem]:
    """ The lobby, oldest first, cursor paginated (`after` = the previous page's `next_after`).

     Read from the table_views projection: a new table appears once the projection has caught up.

    Args:
        status (ListTablesStatus | Unset):
        game (ListTablesGame | Unset):
        after (int | Unset):  Default: 0.
        limit (int | Unset):  Default: 20.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Lobby | Problem]
     """


    kwargs = _get_kwargs(
        status=status,
game=game,
after=after,
limit=limit,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    *,
    client: AuthenticatedClient,
    status: ListTablesStatus | Unset = UNSET,
    game: ListTablesGame | Unset = UNSET,
    after: int | Unset = 0,
    limit: int | Unset = 20,

) -> Lobby | Problem | None:
    """ The lobby, oldest first, cursor paginated (`after` = the previous page's `next_after`).

     Read from the table_views projection: a new table appears once the projection has caught up.

    Args:
        status (ListTablesStatus | Unset):
        game (ListTablesGame | Unset):
        after (int | Unset):  Default: 0.
        limit (int | Unset):  Default: 20.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Lobby | Problem
     """


    return sync_detailed(
        client=client,
status=status,
game=game,
after=after,
limit=limit,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    status: ListTablesStatus | Unset = UNSET,
    game: ListTablesGame | Unset = UNSET,
    after: int | Unset = 0,
    limit: int | Unset = 20,

) -> Response[Lobby | Problem]:
    """ The lobby, oldest first, cursor paginated (`after` = the previous page's `next_after`).

     Read from the table_views projection: a new table appears once the projection has caught up.

    Args:
        status (ListTablesStatus | Unset):
        game (ListTablesGame | Unset):
        after (int | Unset):  Default: 0.
        limit (int | Unset):  Default: 20.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Lobby | Problem]
     """


    kwargs = _get_kwargs(
        status=status,
game=game,
after=after,
limit=limit,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    *,
    client: AuthenticatedClient,
    status: ListTablesStatus | Unset = UNSET,
    game: ListTablesGame | Unset = UNSET,
    after: int | Unset = 0,
    limit: int | Unset = 20,

) -> Lobby | Problem | None:
    """ The lobby, oldest first, cursor paginated (`after` = the previous page's `next_after`).

     Read from the table_views projection: a new table appears once the projection has caught up.

    Args:
        status (ListTablesStatus | Unset):
        game (ListTablesGame | Unset):
        after (int | Unset):  Default: 0.
        limit (int | Unset):  Default: 20.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Lobby | Problem
     """


    return (await asyncio_detailed(
        client=client,
status=status,
game=game,
after=after,
limit=limit,

    )).parsed
