from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.dispute import Dispute
from ...models.get_dispute_report_format import check_get_dispute_report_format
from ...models.get_dispute_report_format import GetDisputeReportFormat
from ...models.problem import Problem
from ...types import UNSET, Unset
from typing import cast
from uuid import UUID



def _get_kwargs(
    *,
    table_id: UUID,
    deal_no: int,
    format_: GetDisputeReportFormat | Unset = UNSET,

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

    json_table_id = str(table_id)
    params["table_id"] = json_table_id

    params["deal_no"] = deal_no

    json_format_: str | Unset = UNSET
    if not isinstance(format_, Unset):
        json_format_ = format_

    params["format"] = json_format_


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/reports/dispute",
        "params": params,
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Dispute | Problem:
    if response.status_code == 200:
        response_200 = Dispute.from_dict(response.json())



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



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Dispute | Problem]:
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
    format_: GetDisputeReportFormat | Unset = UNSET,

) -> Response[Dispute | Problem]:
    """ The deal replayed step by step with the verification of commitment, deck, hash chain and result.
    HTML with `format=html` or `Accept: text/html` (as GET /v1/reports/dispute.html answers, for clients
    that
    read one media type per operation).

    Args:
        table_id (UUID):
        deal_no (int):
        format_ (GetDisputeReportFormat | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Dispute | Problem]
     """


    kwargs = _get_kwargs(
        table_id=table_id,
deal_no=deal_no,
format_=format_,

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
    format_: GetDisputeReportFormat | Unset = UNSET,

) -> Dispute | Problem | None:
    """ The deal replayed step by step with the verification of commitment, deck, hash chain and result.
    HTML with `format=html` or `Accept: text/html` (as GET /v1/reports/dispute.html answers, for clients
    that
    read one media type per operation).

    Args:
        table_id (UUID):
        deal_no (int):
        format_ (GetDisputeReportFormat | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Dispute | Problem
     """


    return sync_detailed(
        client=client,
table_id=table_id,
deal_no=deal_no,
format_=format_,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    table_id: UUID,
    deal_no: int,
    format_: GetDisputeReportFormat | Unset = UNSET,

) -> Response[Dispute | Problem]:
    """ The deal replayed step by step with the verification of commitment, deck, hash chain and result.
    HTML with `format=html` or `Accept: text/html` (as GET /v1/reports/dispute.html answers, for clients
    that
    read one media type per operation).

    Args:
        table_id (UUID):
        deal_no (int):
        format_ (GetDisputeReportFormat | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Dispute | Problem]
     """


    kwargs = _get_kwargs(
        table_id=table_id,
deal_no=deal_no,
format_=format_,

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
    format_: GetDisputeReportFormat | Unset = UNSET,

) -> Dispute | Problem | None:
    """ The deal replayed step by step with the verification of commitment, deck, hash chain and result.
    HTML with `format=html` or `Accept: text/html` (as GET /v1/reports/dispute.html answers, for clients
    that
    read one media type per operation).

    Args:
        table_id (UUID):
        deal_no (int):
        format_ (GetDisputeReportFormat | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Dispute | Problem
     """


    return (await asyncio_detailed(
        client=client,
table_id=table_id,
deal_no=deal_no,
format_=format_,

    )).parsed
