from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.action_result import ActionResult
from ...models.capture_action import CaptureAction
from ...models.close_action import CloseAction
from ...models.discard_action import DiscardAction
from ...models.leave_action import LeaveAction
from ...models.pass_action import PassAction
from ...models.play_action import PlayAction
from ...models.problem import Problem
from ...models.ready_action import ReadyAction
from ...types import UNSET, Unset
from typing import cast
from uuid import UUID



def _get_kwargs(
    table_id: UUID,
    *,
    body: CaptureAction | CloseAction | DiscardAction | LeaveAction | PassAction | PlayAction | ReadyAction,
    idempotency_key: str,
    if_match: str | Unset = UNSET,
    prefer: str | Unset = UNSET,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    headers["Idempotency-Key"] = idempotency_key

    if not isinstance(if_match, Unset):
        headers["If-Match"] = if_match

    if not isinstance(prefer, Unset):
        headers["Prefer"] = prefer



    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/tables/{table_id}/actions".format(table_id=quote(str(table_id), safe=""),),
    }

    
    if isinstance(body, DiscardAction):
        _kwargs["json"] = body.to_dict()
    elif isinstance(body, CaptureAction):
        _kwargs["json"] = body.to_dict()
    elif isinstance(body, PassAction):
        _kwargs["json"] = body.to_dict()
    elif isinstance(body, PlayAction):
        _kwargs["json"] = body.to_dict()
    elif isinstance(body, ReadyAction):
        _kwargs["json"] = body.to_dict()
    elif isinstance(body, CloseAction):
        _kwargs["json"] = body.to_dict()
    else:
        _kwargs["json"] = body.to_dict()


    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ActionResult | Problem:
    if response.status_code == 201:
        response_201 = ActionResult.from_dict(response.json())



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

    if response.status_code == 404:
        response_404 = Problem.from_dict(response.json())



        return response_404

    if response.status_code == 409:
        response_409 = Problem.from_dict(response.json())



        return response_409

    if response.status_code == 412:
        response_412 = Problem.from_dict(response.json())



        return response_412

    if response.status_code == 422:
        response_422 = Problem.from_dict(response.json())



        return response_422

    if response.status_code == 429:
        response_429 = Problem.from_dict(response.json())



        return response_429

    response_default = Problem.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ActionResult | Problem]:
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
    body: CaptureAction | CloseAction | DiscardAction | LeaveAction | PassAction | PlayAction | ReadyAction,
    idempotency_key: str,
    if_match: str | Unset = UNSET,
    prefer: str | Unset = UNSET,

) -> Response[ActionResult | Problem]:
    """ Act at the table: a play of the game, or `ready`, `close` or `leave` between deals (`leave` also
    before the
    first deal; during a deal it is a 409 `deal_in_progress`). A seat that lets its `turn_deadline` pass
    gets the
    turn clock's default action instead (docs/house-rules.md). `Idempotency-Key` is required: a retry
    with the
    same key and body returns the first answer and appends nothing; the same key with another body is a
    422
    `idempotency_key_reused`.
    `If-Match: "<version>"` makes the action conditional on the table's version (412 otherwise).
    The answer carries the signed `receipt` of the write (a replay, the first answer's receipt).
    `Prefer: return=representation` adds `view`, the caller's seat view at the new version (hand, legal
    actions,
    public state), so a client holding its view needs no read after its action; a replay's `view` is the
    view
    now.

    Args:
        table_id (UUID):
        idempotency_key (str):
        if_match (str | Unset):
        prefer (str | Unset):
        body (CaptureAction | CloseAction | DiscardAction | LeaveAction | PassAction | PlayAction
            | ReadyAction): One action, by `type`: discard, capture and pass are Cholek Tiga's plays,
            play is Cha Kau Tsz's; ready,
            close and leave are for between deals at either game.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ActionResult | Problem]
     """


    kwargs = _get_kwargs(
        table_id=table_id,
body=body,
idempotency_key=idempotency_key,
if_match=if_match,
prefer=prefer,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    table_id: UUID,
    *,
    client: AuthenticatedClient,
    body: CaptureAction | CloseAction | DiscardAction | LeaveAction | PassAction | PlayAction | ReadyAction,
    idempotency_key: str,
    if_match: str | Unset = UNSET,
    prefer: str | Unset = UNSET,

) -> ActionResult | Problem | None:
    """ Act at the table: a play of the game, or `ready`, `close` or `leave` between deals (`leave` also
    before the
    first deal; during a deal it is a 409 `deal_in_progress`). A seat that lets its `turn_deadline` pass
    gets the
    turn clock's default action instead (docs/house-rules.md). `Idempotency-Key` is required: a retry
    with the
    same key and body returns the first answer and appends nothing; the same key with another body is a
    422
    `idempotency_key_reused`.
    `If-Match: "<version>"` makes the action conditional on the table's version (412 otherwise).
    The answer carries the signed `receipt` of the write (a replay, the first answer's receipt).
    `Prefer: return=representation` adds `view`, the caller's seat view at the new version (hand, legal
    actions,
    public state), so a client holding its view needs no read after its action; a replay's `view` is the
    view
    now.

    Args:
        table_id (UUID):
        idempotency_key (str):
        if_match (str | Unset):
        prefer (str | Unset):
        body (CaptureAction | CloseAction | DiscardAction | LeaveAction | PassAction | PlayAction
            | ReadyAction): One action, by `type`: discard, capture and pass are Cholek Tiga's plays,
            play is Cha Kau Tsz's; ready,
            close and leave are for between deals at either game.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ActionResult | Problem
     """


    return sync_detailed(
        table_id=table_id,
client=client,
body=body,
idempotency_key=idempotency_key,
if_match=if_match,
prefer=prefer,

    ).parsed

async def asyncio_detailed(
    table_id: UUID,
    *,
    client: AuthenticatedClient,
    body: CaptureAction | CloseAction | DiscardAction | LeaveAction | PassAction | PlayAction | ReadyAction,
    idempotency_key: str,
    if_match: str | Unset = UNSET,
    prefer: str | Unset = UNSET,

) -> Response[ActionResult | Problem]:
    """ Act at the table: a play of the game, or `ready`, `close` or `leave` between deals (`leave` also
    before the
    first deal; during a deal it is a 409 `deal_in_progress`). A seat that lets its `turn_deadline` pass
    gets the
    turn clock's default action instead (docs/house-rules.md). `Idempotency-Key` is required: a retry
    with the
    same key and body returns the first answer and appends nothing; the same key with another body is a
    422
    `idempotency_key_reused`.
    `If-Match: "<version>"` makes the action conditional on the table's version (412 otherwise).
    The answer carries the signed `receipt` of the write (a replay, the first answer's receipt).
    `Prefer: return=representation` adds `view`, the caller's seat view at the new version (hand, legal
    actions,
    public state), so a client holding its view needs no read after its action; a replay's `view` is the
    view
    now.

    Args:
        table_id (UUID):
        idempotency_key (str):
        if_match (str | Unset):
        prefer (str | Unset):
        body (CaptureAction | CloseAction | DiscardAction | LeaveAction | PassAction | PlayAction
            | ReadyAction): One action, by `type`: discard, capture and pass are Cholek Tiga's plays,
            play is Cha Kau Tsz's; ready,
            close and leave are for between deals at either game.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ActionResult | Problem]
     """


    kwargs = _get_kwargs(
        table_id=table_id,
body=body,
idempotency_key=idempotency_key,
if_match=if_match,
prefer=prefer,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    table_id: UUID,
    *,
    client: AuthenticatedClient,
    body: CaptureAction | CloseAction | DiscardAction | LeaveAction | PassAction | PlayAction | ReadyAction,
    idempotency_key: str,
    if_match: str | Unset = UNSET,
    prefer: str | Unset = UNSET,

) -> ActionResult | Problem | None:
    """ Act at the table: a play of the game, or `ready`, `close` or `leave` between deals (`leave` also
    before the
    first deal; during a deal it is a 409 `deal_in_progress`). A seat that lets its `turn_deadline` pass
    gets the
    turn clock's default action instead (docs/house-rules.md). `Idempotency-Key` is required: a retry
    with the
    same key and body returns the first answer and appends nothing; the same key with another body is a
    422
    `idempotency_key_reused`.
    `If-Match: "<version>"` makes the action conditional on the table's version (412 otherwise).
    The answer carries the signed `receipt` of the write (a replay, the first answer's receipt).
    `Prefer: return=representation` adds `view`, the caller's seat view at the new version (hand, legal
    actions,
    public state), so a client holding its view needs no read after its action; a replay's `view` is the
    view
    now.

    Args:
        table_id (UUID):
        idempotency_key (str):
        if_match (str | Unset):
        prefer (str | Unset):
        body (CaptureAction | CloseAction | DiscardAction | LeaveAction | PassAction | PlayAction
            | ReadyAction): One action, by `type`: discard, capture and pass are Cholek Tiga's plays,
            play is Cha Kau Tsz's; ready,
            close and leave are for between deals at either game.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ActionResult | Problem
     """


    return (await asyncio_detailed(
        table_id=table_id,
client=client,
body=body,
idempotency_key=idempotency_key,
if_match=if_match,
prefer=prefer,

    )).parsed
