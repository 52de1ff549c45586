"""Who wins a trick (docs/rules.md, "Cha Kau Tsz").

- Single number card led: the highest card of the led suit; pictures and other
  suits never win; among equal cards the first played.
- Single picture led: the first number card a follower plays fixes the suit and
  the highest card of that suit wins (first played among equals); when no
  follower plays a number card, the leader wins.
- Sequence led: a follower counts only with a sequence of the same length (any
  suit); a strictly higher top card beats the best so far.
- Group led: a follower counts only with a group of the same size; a strictly
  higher rank beats the best so far. A follower's group of aces with pictures is
  a group too, but rank 1 is the lowest, so it never beats anything.
"""

from __future__ import annotations

from collections.abc import Sequence

from domain.cha_kau_tsz.plays import PICTURES, RANK, SINGLE, SUIT, classify


def trick_winner(plays: Sequence[tuple[int, Sequence[str]]]) -> int:
    """The winning seat of a complete trick, given (seat, cards) in the order played, the lead first."""
    leader, led = plays[0]
    if len(led) == 1:
        return _single_winner(leader, led[0], plays[1:])
    combo = classify(led)
    if combo is None or combo.kind == SINGLE:
        raise ValueError(f"{' '.join(led)} is not a lead")
    best_seat, best_key = leader, combo.key
    for seat, cards in plays[1:]:
        other = classify(cards)
        if other is not None and other.kind == combo.kind and other.key > best_key:
            best_seat, best_key = seat, other.key
    return best_seat


def _single_winner(leader: int, led: str, follows: Sequence[tuple[int, Sequence[str]]]) -> int:
    best_seat = leader
    suit = SUIT.get(led)  # None when a picture was led, until a follower plays a number card
    best_rank = RANK.get(led, 0)
    for seat, cards in follows:
        card = cards[0]
        if card in PICTURES:
            continue
        if suit is None:
            suit, best_seat, best_rank = SUIT[card], seat, RANK[card]
        elif SUIT[card] == suit and RANK[card] > best_rank:
            best_seat, best_rank = seat, RANK[card]
    return best_seat
