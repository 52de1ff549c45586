from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.keys import Keys
from ...models.problem import Problem
from typing import cast



def _get_kwargs(
    
) -> dict[str, Any]:
    

    

    

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/keys",
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Keys | Problem:
    if response.status_code == 200:
        response_200 = Keys.from_dict(response.json())



        return response_200

    if response.status_code == 503:
        response_503 = Problem.from_dict(response.json())



        return response_503

    response_default = Problem.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Keys | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,

) -> Response[Keys | Problem]:
    """ Every Ed25519 key that has signed receipts, oldest first (old keys stay listed after a rotation).
    `public_key` is base64url (no padding) of the raw 32 bytes; `key_id` is "ed25519:" + the first 16
    hex digits
    of its SHA-256. A receipt's `signature` covers the UTF-8 bytes of
    `"cardledger-receipt-v1\\n" + table_id + "\\n" + version + "\\n" + hash + "\\n" + signed_at`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Keys | Problem]
     """


    kwargs = _get_kwargs(
        
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    *,
    client: AuthenticatedClient | Client,

) -> Keys | Problem | None:
    """ Every Ed25519 key that has signed receipts, oldest first (old keys stay listed after a rotation).
    `public_key` is base64url (no padding) of the raw 32 bytes; `key_id` is "ed25519:" + the first 16
    hex digits
    of its SHA-256. A receipt's `signature` covers the UTF-8 bytes of
    `"cardledger-receipt-v1\\n" + table_id + "\\n" + version + "\\n" + hash + "\\n" + signed_at`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Keys | Problem
     """


    return sync_detailed(
        client=client,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,

) -> Response[Keys | Problem]:
    """ Every Ed25519 key that has signed receipts, oldest first (old keys stay listed after a rotation).
    `public_key` is base64url (no padding) of the raw 32 bytes; `key_id` is "ed25519:" + the first 16
    hex digits
    of its SHA-256. A receipt's `signature` covers the UTF-8 bytes of
    `"cardledger-receipt-v1\\n" + table_id + "\\n" + version + "\\n" + hash + "\\n" + signed_at`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Keys | Problem]
     """


    kwargs = _get_kwargs(
        
    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    *,
    client: AuthenticatedClient | Client,

) -> Keys | Problem | None:
    """ Every Ed25519 key that has signed receipts, oldest first (old keys stay listed after a rotation).
    `public_key` is base64url (no padding) of the raw 32 bytes; `key_id` is "ed25519:" + the first 16
    hex digits
    of its SHA-256. A receipt's `signature` covers the UTF-8 bytes of
    `"cardledger-receipt-v1\\n" + table_id + "\\n" + version + "\\n" + hash + "\\n" + signed_at`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Keys | Problem
     """


    return (await asyncio_detailed(
        client=client,

    )).parsed
