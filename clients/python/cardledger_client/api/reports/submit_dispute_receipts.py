from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.dispute_receipts_request import DisputeReceiptsRequest
from ...models.dispute_with_receipts import DisputeWithReceipts
from ...models.problem import Problem
from typing import cast



def _get_kwargs(
    *,
    body: DisputeReceiptsRequest,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/reports/dispute",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> DisputeWithReceipts | Problem:
    if response.status_code == 200:
        response_200 = DisputeWithReceipts.from_dict(response.json())



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

    if response.status_code == 413:
        response_413 = Problem.from_dict(response.json())



        return response_413

    if response.status_code == 422:
        response_422 = Problem.from_dict(response.json())



        return response_422

    if response.status_code == 429:
        response_429 = Problem.from_dict(response.json())



        return response_429

    response_default = Problem.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[DisputeWithReceipts | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: DisputeReceiptsRequest,

) -> Response[DisputeWithReceipts | Problem]:
    """ The dispute report of GET /v1/reports/dispute (same authorization) plus `receipts`: each submitted
    receipt
    of this table checked against the listed keys (GET /v1/keys) beside the log's hash at its version. A
    valid
    signature on a hash the log no longer holds is `rewritten_history`. At most 1000 receipts (512 KiB).

    Args:
        body (DisputeReceiptsRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DisputeWithReceipts | Problem]
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
    body: DisputeReceiptsRequest,

) -> DisputeWithReceipts | Problem | None:
    """ The dispute report of GET /v1/reports/dispute (same authorization) plus `receipts`: each submitted
    receipt
    of this table checked against the listed keys (GET /v1/keys) beside the log's hash at its version. A
    valid
    signature on a hash the log no longer holds is `rewritten_history`. At most 1000 receipts (512 KiB).

    Args:
        body (DisputeReceiptsRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DisputeWithReceipts | Problem
     """


    return sync_detailed(
        client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: DisputeReceiptsRequest,

) -> Response[DisputeWithReceipts | Problem]:
    """ The dispute report of GET /v1/reports/dispute (same authorization) plus `receipts`: each submitted
    receipt
    of this table checked against the listed keys (GET /v1/keys) beside the log's hash at its version. A
    valid
    signature on a hash the log no longer holds is `rewritten_history`. At most 1000 receipts (512 KiB).

    Args:
        body (DisputeReceiptsRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DisputeWithReceipts | Problem]
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
    body: DisputeReceiptsRequest,

) -> DisputeWithReceipts | Problem | None:
    """ The dispute report of GET /v1/reports/dispute (same authorization) plus `receipts`: each submitted
    receipt
    of this table checked against the listed keys (GET /v1/keys) beside the log's hash at its version. A
    valid
    signature on a hash the log no longer holds is `rewritten_history`. At most 1000 receipts (512 KiB).

    Args:
        body (DisputeReceiptsRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DisputeWithReceipts | Problem
     """


    return (await asyncio_detailed(
        client=client,
body=body,

    )).parsed
