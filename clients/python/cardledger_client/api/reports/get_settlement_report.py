from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.get_settlement_report_format import check_get_settlement_report_format
from ...models.get_settlement_report_format import GetSettlementReportFormat
from ...models.problem import Problem
from ...models.settlement import Settlement
from ...types import UNSET, Unset
from typing import cast
from uuid import UUID
import datetime



def _get_kwargs(
    *,
    player_id: UUID | Unset = UNSET,
    table_id: UUID | Unset = UNSET,
    from_: datetime.datetime | Unset = UNSET,
    to: datetime.datetime | Unset = UNSET,
    after: UUID | Unset = UNSET,
    limit: int | Unset = 100,
    format_: GetSettlementReportFormat | Unset = 'json',

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

    json_player_id: str | Unset = UNSET
    if not isinstance(player_id, Unset):
        json_player_id = str(player_id)
    params["player_id"] = json_player_id

    json_table_id: str | Unset = UNSET
    if not isinstance(table_id, Unset):
        json_table_id = str(table_id)
    params["table_id"] = json_table_id

    json_from_: str | Unset = UNSET
    if not isinstance(from_, Unset):
        json_from_ = from_.isoformat()
    params["from"] = json_from_

    json_to: str | Unset = UNSET
    if not isinstance(to, Unset):
        json_to = to.isoformat()
    params["to"] = json_to

    json_after: str | Unset = UNSET
    if not isinstance(after, Unset):
        json_after = str(after)
    params["after"] = json_after

    params["limit"] = limit

    json_format_: str | Unset = UNSET
    if not isinstance(format_, Unset):
        json_format_ = format_

    params["format"] = json_format_


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/reports/settlement",
        "params": params,
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | Settlement:
    if response.status_code == 200:
        response_200 = Settlement.from_dict(response.json())



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



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Problem | Settlement]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    player_id: UUID | Unset = UNSET,
    table_id: UUID | Unset = UNSET,
    from_: datetime.datetime | Unset = UNSET,
    to: datetime.datetime | Unset = UNSET,
    after: UUID | Unset = UNSET,
    limit: int | Unset = 100,
    format_: GetSettlementReportFormat | Unset = 'json',

) -> Response[Problem | Settlement]:
    """ Net per player and per table over the period (`from` inclusive, `to` exclusive), deals dated by
    their
    end. Players see their own figures only (403 for another player's id); the auditor sees all.
    `format=csv` answers text/csv (as GET /v1/reports/settlement.csv does, for clients that read one
    media
    type per operation).

     The pool refund of an abandoned Cha Kau Tsz table is dated by its closing (`table_closed`) and shown
    on
    rows of its own, account `player:<id>`, one per player refunded, and on the pool's row; a closing is
    not
    a deal (docs/house-rules.md).

    Read from the deal_settlements projection (as fresh as it is). Paged by table: at most `limit`
    tables
    (default 100, at most 200; a table has at most 5 rows for its deals, and one more per player its
    closing
    refunded) in table id order; `next_after` (and, for CSV, the `Link` header) gives the next page,
    null on
    the last. Every figure of a page, the CSV's TOTAL row included, covers the tables of that page.

    Args:
        player_id (UUID | Unset):
        table_id (UUID | Unset):
        from_ (datetime.datetime | Unset):
        to (datetime.datetime | Unset):
        after (UUID | Unset):
        limit (int | Unset):  Default: 100.
        format_ (GetSettlementReportFormat | Unset):  Default: 'json'.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | Settlement]
     """


    kwargs = _get_kwargs(
        player_id=player_id,
table_id=table_id,
from_=from_,
to=to,
after=after,
limit=limit,
format_=format_,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    *,
    client: AuthenticatedClient,
    player_id: UUID | Unset = UNSET,
    table_id: UUID | Unset = UNSET,
    from_: datetime.datetime | Unset = UNSET,
    to: datetime.datetime | Unset = UNSET,
    after: UUID | Unset = UNSET,
    limit: int | Unset = 100,
    format_: GetSettlementReportFormat | Unset = 'json',

) -> Problem | Settlement | None:
    """ Net per player and per table over the period (`from` inclusive, `to` exclusive), deals dated by
    their
    end. Players see their own figures only (403 for another player's id); the auditor sees all.
    `format=csv` answers text/csv (as GET /v1/reports/settlement.csv does, for clients that read one
    media
    type per operation).

     The pool refund of an abandoned Cha Kau Tsz table is dated by its closing (`table_closed`) and shown
    on
    rows of its own, account `player:<id>`, one per player refunded, and on the pool's row; a closing is
    not
    a deal (docs/house-rules.md).

    Read from the deal_settlements projection (as fresh as it is). Paged by table: at most `limit`
    tables
    (default 100, at most 200; a table has at most 5 rows for its deals, and one more per player its
    closing
    refunded) in table id order; `next_after` (and, for CSV, the `Link` header) gives the next page,
    null on
    the last. Every figure of a page, the CSV's TOTAL row included, covers the tables of that page.

    Args:
        player_id (UUID | Unset):
        table_id (UUID | Unset):
        from_ (datetime.datetime | Unset):
        to (datetime.datetime | Unset):
        after (UUID | Unset):
        limit (int | Unset):  Default: 100.
        format_ (GetSettlementReportFormat | Unset):  Default: 'json'.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | Settlement
     """


    return sync_detailed(
        client=client,
player_id=player_id,
table_id=table_id,
from_=from_,
to=to,
after=after,
limit=limit,
format_=format_,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    player_id: UUID | Unset = UNSET,
    table_id: UUID | Unset = UNSET,
    from_: datetime.datetime | Unset = UNSET,
    to: datetime.datetime | Unset = UNSET,
    after: UUID | Unset = UNSET,
    limit: int | Unset = 100,
    format_: GetSettlementReportFormat | Unset = 'json',

) -> Response[Problem | Settlement]:
    """ Net per player and per table over the period (`from` inclusive, `to` exclusive), deals dated by
    their
    end. Players see their own figures only (403 for another player's id); the auditor sees all.
    `format=csv` answers text/csv (as GET /v1/reports/settlement.csv does, for clients that read one
    media
    type per operation).

     The pool refund of an abandoned Cha Kau Tsz table is dated by its closing (`table_closed`) and shown
    on
    rows of its own, account `player:<id>`, one per player refunded, and on the pool's row; a closing is
    not
    a deal (docs/house-rules.md).

    Read from the deal_settlements projection (as fresh as it is). Paged by table: at most `limit`
    tables
    (default 100, at most 200; a table has at most 5 rows for its deals, and one more per player its
    closing
    refunded) in table id order; `next_after` (and, for CSV, the `Link` header) gives the next page,
    null on
    the last. Every figure of a page, the CSV's TOTAL row included, covers the tables of that page.

    Args:
        player_id (UUID | Unset):
        table_id (UUID | Unset):
        from_ (datetime.datetime | Unset):
        to (datetime.datetime | Unset):
        after (UUID | Unset):
        limit (int | Unset):  Default: 100.
        format_ (GetSettlementReportFormat | Unset):  Default: 'json'.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | Settlement]
     """


    kwargs = _get_kwargs(
        player_id=player_id,
table_id=table_id,
from_=from_,
to=to,
after=after,
limit=limit,
format_=format_,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    *,
    client: AuthenticatedClient,
    player_id: UUID | Unset = UNSET,
    table_id: UUID | Unset = UNSET,
    from_: datetime.datetime | Unset = UNSET,
    to: datetime.datetime | Unset = UNSET,
    after: UUID | Unset = UNSET,
    limit: int | Unset = 100,
    format_: GetSettlementReportFormat | Unset = 'json',

) -> Problem | Settlement | None:
    """ Net per player and per table over the period (`from` inclusive, `to` exclusive), deals dated by
    their
    end. Players see their own figures only (403 for another player's id); the auditor sees all.
    `format=csv` answers text/csv (as GET /v1/reports/settlement.csv does, for clients that read one
    media
    type per operation).

     The pool refund of an abandoned Cha Kau Tsz table is dated by its closing (`table_closed`) and shown
    on
    rows of its own, account `player:<id>`, one per player refunded, and on the pool's row; a closing is
    not
    a deal (docs/house-rules.md).

    Read from the deal_settlements projection (as fresh as it is). Paged by table: at most `limit`
    tables
    (default 100, at most 200; a table has at most 5 rows for its deals, and one more per player its
    closing
    refunded) in table id order; `next_after` (and, for CSV, the `Link` header) gives the next page,
    null on
    the last. Every figure of a page, the CSV's TOTAL row included, covers the tables of that page.

    Args:
        player_id (UUID | Unset):
        table_id (UUID | Unset):
        from_ (datetime.datetime | Unset):
        to (datetime.datetime | Unset):
        after (UUID | Unset):
        limit (int | Unset):  Default: 100.
        format_ (GetSettlementReportFormat | Unset):  Default: 'json'.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | Settlement
     """


    return (await asyncio_detailed(
        client=client,
player_id=player_id,
table_id=table_id,
from_=from_,
to=to,
after=after,
limit=limit,
format_=format_,

    )).parsed
