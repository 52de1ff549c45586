from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.follow_table_response_200_type_1 import FollowTableResponse200Type1
from ...models.problem import Problem
from ...types import UNSET, Unset
from typing import cast
from uuid import UUID



def _get_kwargs(
    table_id: UUID,
    *,
    after: int | Unset = UNSET,
    last_event_id: str | Unset = UNSET,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(last_event_id, Unset):
        headers["Last-Event-ID"] = last_event_id



    

    params: dict[str, Any] = {}

    params["after"] = after


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/tables/{table_id}/stream".format(table_id=quote(str(table_id), safe=""),),
        "params": params,
    }


    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> FollowTableResponse200Type1 | str | Problem:
    if response.status_code == 200:
        def _parse_response_200(data: object) -> FollowTableResponse200Type1 | str:
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                response_200_type_1 = FollowTableResponse200Type1.from_dict(data)



                return response_200_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(FollowTableResponse200Type1 | str, data)

        response_200 = _parse_response_200(response.text)

        return response_200

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())



        return response_400

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

    if response.status_code == 503:
        response_503 = Problem.from_dict(response.json())



        return response_503

    response_default = Problem.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[FollowTableResponse200Type1 | str | Problem]:
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
    after: int | Unset = UNSET,
    last_event_id: str | Unset = UNSET,

) -> Response[FollowTableResponse200Type1 | str | Problem]:
    """ Live public events of the table (public forms only: a hand never appears here; read it from /view).

    Args:
        table_id (UUID):
        after (int | Unset):
        last_event_id (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[FollowTableResponse200Type1 | str | Problem]
     """


    kwargs = _get_kwargs(
        table_id=table_id,
after=after,
last_event_id=last_event_id,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    table_id: UUID,
    *,
    client: AuthenticatedClient,
    after: int | Unset = UNSET,
    last_event_id: str | Unset = UNSET,

) -> FollowTableResponse200Type1 | str | Problem | None:
    """ Live public events of the table (public forms only: a hand never appears here; read it from /view).

    Args:
        table_id (UUID):
        after (int | Unset):
        last_event_id (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        FollowTableResponse200Type1 | str | Problem
     """


    return sync_detailed(
        table_id=table_id,
client=client,
after=after,
last_event_id=last_event_id,

    ).parsed

async def asyncio_detailed(
    table_id: UUID,
    *,
    client: AuthenticatedClient,
    after: int | Unset = UNSET,
    last_event_id: str | Unset = UNSET,

) -> Response[FollowTableResponse200Type1 | str | Problem]:
    """ Live public events of the table (public forms only: a hand never appears here; read it from /view).

    Args:
        table_id (UUID):
        after (int | Unset):
        last_event_id (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[FollowTableResponse200Type1 | str | Problem]
     """


    kwargs = _get_kwargs(
        table_id=table_id,
after=after,
last_event_id=last_event_id,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    table_id: UUID,
    *,
    client: AuthenticatedClient,
    after: int | Unset = UNSET,
    last_event_id: str | Unset = UNSET,

) -> FollowTableResponse200Type1 | str | Problem | None:
    """ Live public events of the table (public forms only: a hand never appears here; read it from /view).

    Args:
        table_id (UUID):
        after (int | Unset):
        last_event_id (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        FollowTableResponse200Type1 | str | Problem
     """


    return (await asyncio_detailed(
        table_id=table_id,
client=client,
after=after,
last_event_id=last_event_id,

    )).parsed
