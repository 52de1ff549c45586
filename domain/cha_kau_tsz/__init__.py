"""Cha Kau Tsz (RULES.md section 3): the rules engine behind `rules.CHA_KAU_TSZ`.

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
"""
