"""Cha Kau Tsz (docs/rules.md, "Cha Kau Tsz"): the rules engine behind `rules.CHA_KAU_TSZ`.

Modules, one job each:
- `options`: table options, hand sizes and the initial carry;
- `plays`: what a set of cards is (single, sequence, group) and the legal leads of a hand;
- `tricks`: who wins a trick;
- `state`: the frozen state of a running hand;
- `deal`: the dealing events (packets round the table);
- `decide`: the events of a play action (and the end of a trick or of the hand);
- `evolve`: folding this game's events into the hand state;
- `scoring`: payments into the pool, the pool win and the new carry;
- `views`: public state, hands and legal actions;
- `rules`: the `Game` object the table layer drives.

Events of a hand (between the table's `deal_started` and `deal_ended`):
- `hand_started` {"hand_no", "dealer", "leader", "hand_size", "pool_game"}
- `hand_dealt` {"seat", "count", "deck_indexes", "private": {"cards"}}, one per seat from the seat after
  the dealer; cards in deck order, `deck_indexes` parallel to them; the set-aside cards are never emitted
- `cards_played` {"seat", "cards", "lead": bool, "trick_no"} (cards as the player listed them)
- `trick_won` {"seat", "tricks": cards led = tricks credited, "trick_no", "total": the winner's tricks now}
- `hand_scored` {"hand_no", "tricks", "most", "payments", "pool_winner": seat or None, "pool_won"}

Rulings where docs/rules.md is silent (resolved as a fair table would):
- Followers may play any cards: no duty to follow suit, to match the kind of the lead, or to beat it.
- A follower's group of aces with pictures is a group (so it counts against a group lead of the same
  size), but rank 1 is the lowest and an equal rank never beats, so it can never win a trick.
- A two-card lead, and several pictures without three aces of every suit, are not legal leads.
- When a picture is led, the leader's picture wins only if no follower plays a number card.
- Tricks are numbered by leads (`trick_no`); the tricks *credited* to a winner are the cards led.
- The hand number is the table's deal number: the deal rotates on across pool games.
- A pool game goes on while nobody reaches the target; the pool carries over from hand to hand.
- Legal leads are distinct multisets of codes: pictures are interchangeable in play, but singles of
  JC, QC and KC (and ace groups with different pictures) are listed as separate bodies.
- `stacks` in the public state are points (starting stack + balance), not counts of chips by colour.
"""
