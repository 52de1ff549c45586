"""The words of the rules that reports and the demo show as they are in the events (`ang_pow_besar`,
`leftover_pool`, ...), said in words: one place, so that the dispute page and `cardledger demo` agree. The rules
themselves are docs/rules.md."""

from __future__ import annotations

TERMS: dict[str, str] = {
    "points": "a player below the top score pays the difference times the table's point value",
    "ang_pow": "three copies of a red-stamped kind in one pile: every other player pays 100 cents",
    "ang_pow_besar": "all four copies of a red-stamped kind in one pile: every other player pays 200 cents",
    "ayam": "a capture of three identical cards with a card from the hand: 50 cents from every other player",
    "kandang": "a capture of three identical cards with the turned-up card: 100 cents from every other player",
    "honours_rank": "a Cholek Tiga table option: the three honours rank on their own (own) or as rank 1 (ace)",
    "leftover_pool": "the cards still in the pool when a Cholek Tiga deal ends: they score for nobody",
    "hand_payment": "each player pays the pool, in points, the tricks it won fewer than the hand's most",
    "pool_won": "the whole pool, to the player who won at least the table's pool_target_tricks in the hand",
    "pool_returned": "the pool of a table the service closed for want of players, back to those who paid it",
    "pool_target_tricks": "a Cha Kau Tsz table option: the tricks in one hand that win the whole pool",
}


def terms_in(text: str) -> dict[str, str]:
    """The terms that `text` uses, with their meaning, in the glossary's order."""
    return {term: meaning for term, meaning in TERMS.items() if term in text}
