"""The domain benches counted rather than timed: callgrind instructions per complete game, per hand and per event
folded, as bench.domain_cholek_tiga and bench.domain_cha_kau_tsz play them (the same seeded random bots).

Run: python -m bench.domain_instructions [--games 20]     (valgrind; a few minutes)

Each figure is the difference of two runs of this module under callgrind, with and without the work, divided by
the work's count: the interpreter's start, the imports and the scripting of the bots' seeds cancel out.
"""

from __future__ import annotations

import argparse
import random

from bench.callgrind import module_instructions

WORKS = ("cholek-tiga-games", "cholek-tiga-fold", "cha-kau-tsz-hands")


def play(work: str, count: int) -> None:
    """`count` units of `work`; with 0, everything but the work itself (imports, the streams to fold)."""
    from bench import domain_cha_kau_tsz, domain_cholek_tiga
    from domain.table import fold

    rng = random.Random(20240601)
    if work == "cholek-tiga-games":
        for game in range(count):
            domain_cholek_tiga.play_game(rng, players=2, table_id=f"bench-{game}")
    elif work == "cholek-tiga-fold":
        streams = [domain_cholek_tiga.play_game(rng, players=2 + i % 2, table_id=f"bench-{i}") for i in range(20)]
        for _ in range(count):
            for stream in streams:
                fold(None, stream)
    elif work == "cha-kau-tsz-hands":
        if count:
            domain_cha_kau_tsz.play_hands(4, count, rng)
        else:
            domain_cha_kau_tsz.seated_table(4)


def cholek_tiga_events() -> int:
    from bench import domain_cholek_tiga

    rng = random.Random(20240601)
    return sum(len(domain_cholek_tiga.play_game(rng, players=2 + i % 2, table_id=f"bench-{i}")) for i in range(20))


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.domain_instructions", description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20, help="games, hands, or folds of the 20 streams")
    parser.add_argument("--play", nargs=2, metavar=("WORK", "COUNT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.play:
        play(args.play[0], int(args.play[1]))
        return
    for work in WORKS:
        idle = module_instructions("bench.domain_instructions", ["--play", work, "0"])
        busy = module_instructions("bench.domain_instructions", ["--play", work, str(args.games)])
        units = args.games * cholek_tiga_events() if work == "cholek-tiga-fold" else args.games
        unit = "event folded" if work == "cholek-tiga-fold" else "game" if "games" in work else "4-seat hand"
        print(f"{work}: {(busy - idle) / units:,.0f} instructions per {unit} ({busy - idle:,} for {units:,})")


if __name__ == "__main__":
    main()
