"""The dispute report's HTML page, parsed, against whole deals played on the real database (services.app.audit.html)."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from html.parser import HTMLParser
from typing import Any

import pytest
from psycopg_pool import ConnectionPool

from domain.games import game_named
from infra.event_store import EventStore
from services.app.audit.service import dispute_html
from services.app.callers import AUDITOR_CALLER
from tests.integration.test_audit_support import play_table, project, services
from tests.play import register

Pool = ConnectionPool[Any]
GENERATED_AT = datetime(2026, 12, 1, 9, 30, 15, tzinfo=UTC)
HOSTILE_NAME = """<script>alert("x")</script>' onmouseover="alert(1)" &amp;"""


@dataclass
class Cell:
    text: str = ""
    cards: list[str] = field(default_factory=list)  # the card faces (<i>) in the cell
    hashes: list[str] = field(default_factory=list)  # the event hashes (<code class="hash">) in the cell


@dataclass
class Row:
    attrs: dict[str, str]
    cells: list[Cell] = field(default_factory=list)


class PageParser(HTMLParser):
    """Tables by id (rows of cells with their text, card faces and hashes), every card face, every tag and
    attribute, and the generation time."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: dict[str, list[Row]] = {}
        self.cards: list[str] = []
        self.tags: list[str] = []
        self.attribute_names: set[str] = set()
        self.generated: str | None = None
        self._table: list[Row] | None = None
        self._cell: Cell | None = None
        self._in: str | None = None  # "card", "hash" or None: where text goes besides the cell's text
        self._depth = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        self.tags.append(tag)
        self.attribute_names.update(values)
        if tag == "table":
            self._depth += 1
            if self._depth == 1:
                self._table = self.tables.setdefault(values.get("id", f"anonymous-{len(self.tables)}"), [])
        elif tag == "tr" and self._table is not None and self._depth == 1:
            self._table.append(Row(values))
        elif tag in ("td", "th") and self._table is not None and self._depth == 1:
            self._cell = Cell()
            self._table[-1].cells.append(self._cell)
        elif tag == "i":
            self._in = "card"
            self.cards.append("")
            if self._cell is not None:
                self._cell.cards.append("")
        elif tag == "code" and "hash" in values.get("class", "").split():
            self._in = "hash"
            if self._cell is not None:
                self._cell.hashes.append("")
        elif tag == "time" and values.get("id") == "generated":
            self.generated = values.get("datetime")

    def handle_endtag(self, tag: str) -> None:
        if tag == "table":
            self._depth -= 1
            if self._depth == 0:
                self._table = None
        elif tag in ("td", "th"):
            self._cell = None
        elif tag in ("i", "code"):
            self._in = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.text += data
        if self._in == "card":
            self.cards[-1] += data
            if self._cell is not None:
                self._cell.cards[-1] += data
        elif self._in == "hash" and self._cell is not None:
            self._cell.hashes[-1] += data


def parse(page: str) -> PageParser:
    parser = PageParser()
    parser.feed(page)
    parser.close()
    return parser


def body_rows(parser: PageParser, table: str) -> list[list[Cell]]:
    """The rows of a table below its header row."""
    return [row.cells for row in parser.tables[table][1:]]


def report_events(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [event for step in report["steps"] for event in step["events"]]


@pytest.mark.parametrize(
    ("game", "seats", "options"),
    [("cholek-tiga", 3, {"in_play_bonuses": True}), ("cha-kau-tsz", 4, {"chip_value_cents": 25})],
)
def test_the_page_of_a_finished_deal_holds_result_transfers_legend_hashes_and_time(
    pool: Pool, store: EventStore, game: str, seats: int, options: dict[str, Any]
) -> None:
    ledger, audit = services(pool, store)
    players = [register(ledger, HOSTILE_NAME if seat == 0 else f"player {seat}") for seat in range(seats)]
    played = play_table(ledger, game, players, deals=2, rng=random.Random(41), options=options)
    project(pool)  # the ledger is a projection
    report = audit.dispute_report(players[1], played.table_id, 2)
    page = dispute_html(report, GENERATED_AT)
    parsed = parse(page)
    # Every rule word the page shows as the events name it is said in words, in its Terms.
    assert '<dl id="terms">' in page, "no Terms section"
    shown, terms = page.split("<h2>Terms</h2>", 1)
    for term in ("leftover_pool", "honours_rank", "ang_pow_besar", "hand_payment", "pool_won"):
        if term in shown:
            assert f"<dt><code>{term}</code></dt>" in terms, term

    # The result: per player their name, the game's figure, the net, and the net of the transfers.
    result = report["result"]
    figure = "scores" if game == "cholek-tiga" else "tricks"
    heads = [cell.text for cell in parsed.tables["result"][0].cells]
    figure_column = heads.index("score" if figure == "scores" else "tricks")
    net_column = next(i for i, head in enumerate(heads) if head.startswith("net ("))
    rows = body_rows(parsed, "result")
    assert len(rows) == seats
    for seat, cells in enumerate(rows):
        assert cells[0].text == str(seat)
        assert cells[1].text == f"{players[seat].name} {players[seat].player_id}"
        assert int(cells[figure_column].text) == result[figure][seat]
        assert int(cells[net_column].text) == result["net"][seat] == played.deals[1]["result"]["net"][seat]
        assert int(cells[-1].text) == result["net"][seat]  # the transfers add up to the result

    # The transfers: exactly the ledger's lines of this deal, two per transfer.
    lines = audit.table_ledger(AUDITOR_CALLER, played.table_id, limit=1000)["lines"]
    in_ledger = Counter((line["version"], line["account"], line["amount"]) for line in lines if line["deal_no"] == 2)
    shown: Counter[tuple[int, str, int]] = Counter()
    for cells in body_rows(parsed, "transfers"):
        version, amount = int(cells[0].text), int(cells[4].text)
        payer, payee = cells[2].text.split()[-1], cells[3].text.split()[-1]  # the account beside the name
        shown.update([(version, payer, -amount), (version, payee, amount)])
    assert in_ledger and shown == in_ledger

    # Every card face on the page is a code the legend explains, and the legend is the whole deck.
    deck = set(game_named(game).canonical_deck)
    legend = {cells[0].text for cells in body_rows(parsed, "legend")}
    assert legend == deck
    assert parsed.cards and set(parsed.cards) <= legend
    piles_or_tricks = [card for cells in rows for cell in cells for card in cell.cards]
    assert game == "cha-kau-tsz" or Counter(piles_or_tricks) == Counter(c for pile in result["piles"] for c in pile)

    # One hash per event, the report's, in log order; and the time the page was generated.
    event_rows = [row for row in parsed.tables["events"] if row.attrs.get("class") == "event"]
    events = report_events(report)
    assert [row.attrs["id"] for row in event_rows] == [f"e{event['position']}" for event in events]
    assert [row.cells[-1].hashes for row in event_rows] == [[event["hash"]] for event in events]
    assert parsed.generated == GENERATED_AT.isoformat()

    # The players' names are text, never markup.
    assert "script" not in parsed.tags
    assert not {name for name in parsed.attribute_names if name.startswith("on")}
    assert HOSTILE_NAME not in page


@pytest.mark.parametrize(("game", "seats"), [("cholek-tiga", 2), ("cholek-tiga", 3), ("cha-kau-tsz", 4)])
def test_the_page_of_a_long_deal_stays_small(pool: Pool, store: EventStore, game: str, seats: int) -> None:
    """Cholek Tiga plays out the whole 120-card deck (the longest deals, about 170 events); the bonuses add
    transfers. Deal 2: its first step also shows the table as deal 1 left it."""
    ledger, audit = services(pool, store)
    players = [register(ledger, f"a player with a long name, number {seat}") for seat in range(seats)]
    options = {"in_play_bonuses": True} if game == "cholek-tiga" else {}
    played = play_table(ledger, game, players, deals=2, rng=random.Random(43), options=options)
    report = audit.dispute_report(AUDITOR_CALLER, played.table_id, 2)
    page = dispute_html(report, GENERATED_AT)
    assert len(report_events(report)) > (150 if game == "cholek-tiga" else 50)
    assert len(page.encode()) < 300_000


def test_the_page_of_a_running_deal_shows_a_player_only_their_own_hand(pool: Pool, store: EventStore) -> None:
    ledger, audit = services(pool, store)
    players = [register(ledger, f"p{seat}") for seat in range(3)]
    played = play_table(ledger, "cha-kau-tsz", players, deals=0, rng=random.Random(47), moves_into_next_deal=4)
    report = audit.dispute_report(players[0], played.table_id, 1)
    parsed = parse(dispute_html(report, GENERATED_AT))

    by_position = {event["position"]: event for event in report_events(report)}
    dealt = 0
    for row in parsed.tables["events"]:
        event = by_position.get(int(row.attrs["id"].removeprefix("e"))) if "id" in row.attrs else None
        if event is None or event["type"] != "hand_dealt":
            continue
        dealt += 1
        cards_shown = row.cells[2].cards
        if event["data"]["seat"] == 0:
            assert sorted(cards_shown) == sorted(event["data"]["private"]["cards"])
        else:
            assert cards_shown == []  # another seat's hand: the report withholds it, so does the page
    assert dealt == 3
    assert body_rows(parsed, "players")
    assert "result" not in parsed.tables and "transfers" not in parsed.tables
    assert all("Legal choices" not in row.cells[0].text for row in parsed.tables["events"] if row.cells)
