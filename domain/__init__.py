"""Pure rules of cardledger: cards, the shuffle, both games, events and views.

Nothing in this package performs I/O or imports from `infra` or `services`.
"""
