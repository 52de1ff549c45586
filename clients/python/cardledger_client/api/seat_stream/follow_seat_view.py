from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.follow_seat_view_response_200_type_1 import FollowSeatViewResponse200Type1
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
        "url": "/v1/tables/{table_id}/view/stream".format(table_id=quote(str(table_id), safe=""),),
        "params": params,
    }


    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> FollowSeatViewResponse200Type1 | str | Problem:
    if response.status_code == 200:
        def _parse_response_200(data: object) -> FollowSeatViewResponse200Type1 | str:
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                response_200_type_1 = FollowSeatViewResponse200Type1.from_dict(data)



                return response_200_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(FollowSeatViewResponse200Type1 | str, data)

        response_200 = _parse_response_200(response.text)

        return response_200

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



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[FollowSeatViewResponse200Type1 | str | Problem]:
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

) -> Response[FollowSeatViewResponse200Type1 | str | Problem]:
    """ The caller's seat view (as GET /view answers it), on connect and whenever the table's version moves.

     Each `event: view` is the seat view (schema `SeatView`, the same redaction as /view) read when the
    table's
    Redis stream moved; several events published together give one message, at the newest version. The
    SSE
    `id` is the view's version: a client reconnecting with `Last-Event-ID` (or `after`) receives the
    first
    view only once the table is past it. 403 `no_seat` (not seated, the auditor) and 404 as /view
    answers
    them; `event: error` ends a stream that lost Redis, its database, or the caller's seat. Admitted as
    a
    stream (a stream slot and one of the caller's), with the public stream's heartbeats and lifetime.

    Args:
        table_id (UUID):
        after (int | Unset):
        last_event_id (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[FollowSeatViewResponse200Type1 | str | Problem]
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

) -> FollowSeatViewResponse200Type1 | str | Problem | None:
    """ The caller's seat view (as GET /view answers it), on connect and whenever the table's version moves.

     Each `event: view` is the seat view (schema `SeatView`, the same redaction as /view) read when the
    table's
    Redis stream moved; several events published together give one message, at the newest version. The
    SSE
    `id` is the view's version: a client reconnecting with `Last-Event-ID` (or `after`) receives the
    first
    view only once the table is past it. 403 `no_seat` (not seated, the auditor) and 404 as /view
    answers
    them; `event: error` ends a stream that lost Redis, its database, or the caller's seat. Admitted as
    a
    stream (a stream slot and one of the caller's), with the public stream's heartbeats and lifetime.

    Args:
        table_id (UUID):
        after (int | Unset):
        last_event_id (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        FollowSeatViewResponse200Type1 | str | Problem
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

) -> Response[FollowSeatViewResponse200Type1 | str | Problem]:
    """ The caller's seat view (as GET /view answers it), on connect and whenever the table's version moves.

     Each `event: view` is the seat view (schema `SeatView`, the same redaction as /view) read when the
    table's
    Redis stream moved; several events published together give one message, at the newest version. The
    SSE
    `id` is the view's version: a client reconnecting with `Last-Event-ID` (or `after`) receives the
    first
    view only once the table is past it. 403 `no_seat` (not seated, the auditor) and 404 as /view
    answers
    them; `event: error` ends a stream that lost Redis, its database, or the caller's seat. Admitted as
    a
    stream (a stream slot and one of the caller's), with the public stream's heartbeats and lifetime.

    Args:
        table_id (UUID):
        after (int | Unset):
        last_event_id (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[FollowSeatViewResponse200Type1 | str | Problem]
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

) -> FollowSeatViewResponse200Type1 | str | Problem | None:
    """ The caller's seat view (as GET /view answers it), on connect and whenever the table's version moves.

     Each `event: view` is the seat view (schema `SeatView`, the same redaction as /view) read when the
    table's
    Redis stream moved; several events published together give one message, at the newest version. The
    SSE
    `id` is the view's version: a client reconnecting with `Last-Event-ID` (or `after`) receives the
    first
    view only once the table is past it. 403 `no_seat` (not seated, the auditor) and 404 as /view
    answers
    them; `event: error` ends a stream that lost Redis, its database, or the caller's seat. Admitted as
    a
    stream (a stream slot and one of the caller's), with the public stream's heartbeats and lifetime.

    Args:
        table_id (UUID):
        after (int | Unset):
        last_event_id (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        FollowSeatViewResponse200Type1 | str | Problem
     """


    return (await asyncio_detailed(
        table_id=table_id,
client=client,
after=after,
last_event_id=last_event_id,

    )).parsed
