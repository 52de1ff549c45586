"""Bot players: given a seat view (`GET /v1/tables/{id}/view`), the action body to post.

Both bots only ever choose among `legal_actions`, except on a Cha Kau Tsz follow, which the service offers
as `{"type": "play", "count": k}`: the bot then names k cards of its hand.

- `random`: a uniformly random legal action (random cards on a follow).
- `greedy`: Cholek Tiga: captures whenever it can (a discard that captures, then the capture worth most to
  its pile's score; `capture` rather than `pass`), otherwise discards a card that gives the next player the
  least to capture. Cha Kau Tsz: leads its strongest lead (the longest, then the highest), and on a follow
  plays what is most likely to win the trick (a higher card of the led suit, a higher sequence or group of
  the led size) if it holds one, else its lowest cards.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from itertools import pairwise
from typing import Any, Protocol

Action = dict[str, Any]
View = Mapping[str, Any]


class Bot(Protocol):
    name: str

    def choose(self, view: View) -> Action: ...


def _follow_count(action: Mapping[str, Any]) -> int | None:
    count = action.get("count")
    return count if action.get("type") == "play" and isinstance(count, int) else None


class RandomBot:
    name = "random"

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, view: View) -> Action:
        action = dict(self.rng.choice(list(view["legal_actions"])))
        count = _follow_count(action)
        if count is not None:
            return {"type": "play", "cards": self.rng.sample(list(view["hand"]), count)}
        return action


class GreedyBot:
    name = "greedy"

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, view: View) -> Action:
        legal = [dict(a) for a in view["legal_actions"]]
        game = view.get("game")
        if game == "cholek-tiga":
            return cholek_choice(view, legal)
        if game == "cha-kau-tsz":
            return cha_kau_tsz_choice(view, legal)
        return self.rng.choice(legal)


BOTS = ("greedy", "random")


def make_bot(name: str, rng: random.Random) -> Bot:
    if name == "random":
        return RandomBot(rng)
    if name == "greedy":
        return GreedyBot(rng)
    raise ValueError(f"unknown bot {name!r}; choose one of {', '.join(BOTS)}")


# Cholek Tiga ---------------------------------------------------------------------------------------------------------

RED_STAMPED = frozenset({"9S", "RF", "OT"})
HONOURS = frozenset({"OT", "WF", "RF"})
_NORMAL_POINTS = {0: 0, 1: 0, 2: 0, 3: 3, 4: 8}
_RED_POINTS = {0: 0, 1: 1, 2: 4, 3: 3, 4: 8}


def cholek_rank(card: str, options: Mapping[str, Any]) -> str:
    if card in HONOURS:
        return "1" if options.get("honours_rank") == "ace" else "H"
    return card[0]


def pile_score(pile: Iterable[str]) -> int:
    counts = Counter(pile)
    return sum((_RED_POINTS if card in RED_STAMPED else _NORMAL_POINTS)[min(n, 4)] for card, n in counts.items())


def capture_value(pile: Sequence[str], taken: Sequence[str]) -> tuple[int, int]:
    """What a capture adds to the pile's score, then how many red-stamped cards it takes (tie-break)."""
    return pile_score([*pile, *taken]) - pile_score(pile), sum(card in RED_STAMPED for card in taken)


def cholek_choice(view: View, legal: list[Action]) -> Action:
    seat = int(view["seat"])
    piles = view.get("piles") or []
    pile: list[str] = list(piles[seat]) if seat < len(piles) else []
    pending = view.get("pending")
    if pending is not None:
        captures = [a for a in legal if a.get("type") == "capture"]
        if captures:
            return max(captures, key=lambda a: capture_value(pile, [pending, *a["cards"]]))
        return next((a for a in legal if a.get("type") == "pass"), legal[0])
    discards = [a for a in legal if a.get("type") == "discard"]
    capturing = [a for a in discards if a.get("capture")]
    if capturing:
        return max(capturing, key=lambda a: capture_value(pile, [a["card"], *a["capture"]]))
    if not discards:
        return legal[0]
    options = view.get("options") or {}
    in_pool = Counter(cholek_rank(card, options) for card in view.get("pool") or [])

    def risk(action: Action) -> tuple[int, int, str]:
        card = str(action["card"])
        # A rank with one copy in the pool becomes capturable once this card joins it; red cards are worth keeping.
        return in_pool[cholek_rank(card, options)], int(card in RED_STAMPED), card

    return min(discards, key=risk)


# Cha Kau Tsz ---------------------------------------------------------------------------------------------------------

PICTURES = frozenset({"JC", "QC", "KC"})


def ckt_rank(card: str) -> int:
    return 0 if card in PICTURES else int(card[0])


def ckt_suit(card: str) -> str | None:
    return None if card in PICTURES else card[1]


def is_sequence(cards: Sequence[str]) -> bool:
    if len(cards) < 3 or any(card in PICTURES for card in cards):
        return False
    if len({ckt_suit(card) for card in cards}) != 1:
        return False
    ranks = sorted(ckt_rank(card) for card in cards)
    return all(b == a + 1 for a, b in pairwise(ranks))


def is_group(cards: Sequence[str]) -> bool:
    numbers = [card for card in cards if card not in PICTURES]
    if len(cards) < 3 or not numbers or len({ckt_rank(card) for card in numbers}) != 1:
        return False
    if {ckt_suit(card) for card in numbers} != {"S", "D", "H"}:
        return False
    return len(numbers) == len(cards) or ckt_rank(numbers[0]) == 1


def lead_strength(cards: Sequence[str]) -> tuple[int, int]:
    return len(cards), max(ckt_rank(card) for card in cards)


def lowest(hand: Sequence[str], count: int) -> list[str]:
    return sorted(hand, key=lambda card: (ckt_rank(card), card))[:count]


def sequences_of(hand: Sequence[str], length: int) -> list[list[str]]:
    found = []
    for suit in "SDH":
        ranks = sorted({ckt_rank(card) for card in hand if ckt_suit(card) == suit})
        for start in ranks:
            run = list(range(start, start + length))
            if all(r in ranks for r in run):
                found.append([f"{r}{suit}" for r in run])
    return found


def groups_of(hand: Sequence[str], size: int) -> list[list[str]]:
    found = []
    for rank in range(1, 10):
        cards = [card for card in hand if card not in PICTURES and ckt_rank(card) == rank]
        if len(cards) < size or {ckt_suit(card) for card in cards} != {"S", "D", "H"}:
            continue
        chosen = [next(card for card in cards if ckt_suit(card) == suit) for suit in "SDH"]
        rest = list(cards)
        for card in chosen:
            rest.remove(card)
        found.append(chosen + rest[: size - 3])
    return found


def cha_kau_tsz_choice(view: View, legal: list[Action]) -> Action:
    count = _follow_count(legal[0]) if legal else None
    if count is None:
        leads = [a for a in legal if a.get("type") == "play" and a.get("cards")]
        return max(leads, key=lambda a: lead_strength(a["cards"])) if leads else legal[0]
    hand = list(view["hand"])
    trick = [list(play["cards"]) for play in view.get("trick") or []]
    return {"type": "play", "cards": follow(hand, trick, count)}


def follow(hand: list[str], trick: list[list[str]], count: int) -> list[str]:
    """The cards most likely to win the trick led by trick[0] (plays so far in order), else the lowest ones."""
    if not trick:
        return lowest(hand, count)
    led = trick[0]
    if len(led) == 1:
        return [_follow_single(hand, trick)]
    if is_sequence(led):
        best = max([lead_strength(led)[1]] + [max(map(ckt_rank, p)) for p in trick[1:] if is_sequence(p)])
        winners = [s for s in sequences_of(hand, count) if max(map(ckt_rank, s)) > best]
        return max(winners, key=lambda s: max(map(ckt_rank, s))) if winners else lowest(hand, count)
    if is_group(led):
        led_rank = max(ckt_rank(card) for card in led)
        best = max([led_rank] + [max(map(ckt_rank, p)) for p in trick[1:] if len(p) == len(led) and is_group(p)])
        winners = [g for g in groups_of(hand, count) if ckt_rank(g[0]) > best]
        return max(winners, key=lambda g: ckt_rank(g[0])) if winners else lowest(hand, count)
    return lowest(hand, count)


def _follow_single(hand: list[str], trick: list[list[str]]) -> str:
    led = trick[0][0]
    numbers = [card for card in hand if card not in PICTURES]
    if led in PICTURES:
        fixing = next((p[0] for p in trick[1:] if p[0] not in PICTURES), None)
        if fixing is None:  # the first number card fixes the suit and wins for now: play the highest
            return max(numbers, key=ckt_rank) if numbers else lowest(hand, 1)[0]
        suit, best = ckt_suit(fixing), max(ckt_rank(p[0]) for p in trick[1:] if ckt_suit(p[0]) == ckt_suit(fixing))
    else:
        suit = ckt_suit(led)
        best = max(ckt_rank(p[0]) for p in trick if ckt_suit(p[0]) == suit)
    beating = [card for card in numbers if ckt_suit(card) == suit and ckt_rank(card) > best]
    return max(beating, key=ckt_rank) if beating else lowest(hand, 1)[0]
