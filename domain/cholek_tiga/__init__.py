"""Cholek Tiga (docs/rules.md, "Cholek Tiga"): a three-card fishing game with the 120-card Cherki deck.

Modules, one job each:
- `options`    per-table options and their validation
- `ranks`      capture ranks (with the `honours_rank` option) and rank labels
- `state`      the frozen state of one deal and small multiset helpers
- `events`     event type names and constructors (the deal's event shapes)
- `evolve`     folding the deal's events into its state
- `actions`    parsing and shape-checking of action bodies
- `captures`   legality and enumeration of captures
- `decide`     the rule checks and the automatic continuation after a decision
- `scoring`    scores from piles
- `settlement` money transfers (points, ang pow, in-play bonuses) and the next first seat
- `views`      public state, hands and legal actions
- `rules`      `CHOLEK_TIGA`, the `domain.game.Game` the table drives

Resolutions where docs/rules.md is silent (tested in tests/unit/cholek_tiga):
- A turned-up card that can capture is held as `pending`, outside `pool`, until the seat sends
  `capture` or `pass`; on a pass it joins the pool. Like the discard, it never counts itself.
- A capture names two pool cards by code, in any order; events record the pair sorted. With three or
  more pool cards of the rank the player picks any two; identical codes are one choice.
- A discard body may omit `capture` (same as null). Extra fields, wrong types, unknown card codes
  and lists of the wrong length are RuleErrors (codes malformed_action, unknown_card, unknown_action).
- "Three identical cards in one capture" (ayam/kandang) means the capturing card and both captured
  cards have the same code. Bonus and ang pow amounts are fixed cents, not scaled by
  point_value_cents; ang pow is paid at the end on top of points and of any in-play bonus.
- A tie split is done per payer: each payment is divided among the tied top players, the remainder
  cent(s) of that payment going to the tied seat with the lowest number.
- point_value_cents may be 0..100000; currency is a label of three uppercase letters.
- A seat with an empty hand is skipped; a round starts (and `round` increases) when every hand is
  empty, drawing from the seat after the last to play. With 2 or 3 players and 120 cards every
  draw is a full three cards, so no seat is ever skipped in practice.
- The next first seat is decided on scores (not money), ties counted from this game's first seat.
"""
