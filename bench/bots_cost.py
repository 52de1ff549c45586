"""The bench's bots and their HTTP client, counted: instructions (callgrind) and Python calls (cProfile) per action
of `cardledger simulate`'s process alone, and per request of the bare endpoint's client (`bench.api.drive_baseline`).

Run:  python -m bench.bots_cost [--tree DIR] [--games G ...] [--clients C ...] [--deals 2] [--calls]

`cardledger up` runs on a fresh database (as `python -m bench api` starts it, outside valgrind); `cardledger
simulate --url` runs as a child process under `valgrind --tool=callgrind` (PYTHONHASHSEED=0), random bots, two
tables of two seats at once, a fixed seed and a 60 s turn clock (the clock never acts for a bot slowed by
valgrind), once with `--deals` deals per table and once with twice as many: the difference of the two runs'
instruction totals divided by the difference of their actions (or requests) is what one action (one request)
costs the bots' process, its start-up cancelled. The server's deal seeds are its own, so the two runs play
different deals: a few percent of noise. The bare client: `drive_baseline` (8 threads posting back to back
to the bare Flask endpoint) under callgrind for no time (its start-up, its threads started and joined) and for
`--bare-seconds`, per request (its requests are timed, so under valgrind they are few; all count); with
`--bare-with-stdlib-client`, the same loop on `http.client` (`StdlibHttpClient`, the client both used before).

`--tree DIR` runs the simulate and bare-client children from another checkout (e.g. an unpacked `git archive`
of an earlier commit): its `services/simulate` and `bench/api.py` are measured, this checkout's stack serves.
`--calls` counts Python calls (cProfile, every thread) instead of instructions and prints the functions called
most per action; `--syscalls` counts system calls (`strace -f -c`) and prints them by name per action (the
kernel's share of the bots' CPU, which callgrind does not see: a loopback send also runs the receiving side).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from bench.callgrind import totals

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

GAMES = ("cholek-tiga", "cha-kau-tsz")
CLIENTS = ("holding", "polling", "streaming")
TABLES = 2
TURN_SECONDS = 60
SEED = "bench-bots-cost"

# Run in the child (PYTHONPATH=the tree measured): cProfile in every thread of `cardledger simulate`, the calls
# summed into one pstats file (argv[1]); argv[2:] are simulate's arguments.
CALLS_CHILD = """
import cProfile, pstats, sys, threading
from services.simulate import main
profiles = []
def start(*_):
    sys.setprofile(None)
    profile = cProfile.Profile()
    profiles.append(profile)
    profile.enable()
threading.setprofile(start)
main_profile = cProfile.Profile()
profiles.append(main_profile)
main_profile.enable()
try:
    main(sys.argv[2:])
finally:
    main_profile.disable()
    stats = pstats.Stats(profiles[0])
    for profile in profiles[1:]:
        stats.add(profile)
    stats.dump_stats(sys.argv[1])
"""

BARE_CHILD = """
import json, os, sys
import bench.api
from bench.api import CONCURRENCY, drive_baseline
if os.environ.get("BOTS_COST_BARE_WITH_STDLIB_CLIENT"):
    from services.simulate.stdlib_client import StdlibHttpClient
    bench.api.HttpClient = StdlibHttpClient
printed = json.dumps({"requests": drive_baseline(sys.argv[1], CONCURRENCY, float(sys.argv[2]))["requests"]})
if len(sys.argv) > 3:
    open(sys.argv[3], "w").write(printed)
print(printed)
"""


@dataclass(frozen=True)
class Run:
    instructions: int  # callgrind's total, or Python calls with --calls
    actions: int
    requests: int


def child_env(tree: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(tree), "PYTHONHASHSEED": "0"}


def callgrind(command: list[str], tree: Path) -> tuple[int, str]:
    """The instructions `command` (python arguments) executes under callgrind, and its stdout."""
    with tempfile.TemporaryDirectory(prefix="cardledger-bots-cost-") as scratch:
        out = Path(scratch) / "callgrind.out"
        full = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, *command]
        done = subprocess.run(full, cwd=tree, env=child_env(tree), capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(full)} exited with {done.returncode}: {done.stderr[-2000:]}")
        return sum(totals(path) for path in Path(scratch).glob("callgrind.out*")), done.stdout


def simulate_arguments(url: str, game: str, client: str, deals: int, out: Path) -> list[str]:
    return [
        *("--url", url, "--game", game, "--tables", str(TABLES), "--seats", "2", "--concurrency", str(TABLES)),
        *("--client", client, "--deals", str(deals), "--seed", SEED, "--turn-seconds", str(TURN_SECONDS)),
        *("--json", str(out), "--no-progress"),
    ]


def syscalls(command: list[str], tree: Path, into: Path) -> int:
    """The system calls `command` (python arguments) makes, counted by `strace -f -c` into `into`."""
    full = ["strace", "-f", "-c", "-o", str(into), sys.executable, *command]
    done = subprocess.run(full, cwd=tree, env=child_env(tree), capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(full)} exited with {done.returncode}: {done.stderr[-2000:]}")
    return sum(syscall_counts(into).values())


def syscall_counts(path: Path) -> dict[str, int]:
    """By name, from `strace -c`'s table (% time, seconds, usecs/call, calls, [errors,] syscall)."""
    counts = {}
    for line in path.read_text().splitlines():
        fields = line.split()
        if len(fields) >= 5 and fields[0][0].isdigit() and fields[-1] != "total":
            counts[fields[-1]] = int(fields[3])
    return counts


def run_simulate(
    url: str, game: str, client: str, deals: int, tree: Path, calls: Path | None, strace: bool = False
) -> Run:
    with tempfile.TemporaryDirectory(prefix="cardledger-bots-cost-") as scratch:
        out = Path(scratch) / "result.json"
        arguments = simulate_arguments(url, game, client, deals, out)
        if calls is not None and strace:
            instructions = syscalls(["-m", "services.simulate", *arguments], tree, calls)
        elif calls is None:
            instructions, _ = callgrind(["-m", "services.simulate", *arguments], tree)
        else:
            command = [sys.executable, "-c", CALLS_CHILD, str(calls), *arguments]
            done = subprocess.run(command, cwd=tree, env=child_env(tree), capture_output=True, text=True)
            if done.returncode != 0:
                raise RuntimeError(f"simulate under cProfile exited with {done.returncode}: {done.stderr[-2000:]}")
            instructions = _total_calls(calls)
        summary = json.loads(out.read_text())["summary"]
    if summary["deals_failed"] or summary["deals_completed"] != TABLES * deals:
        done, failed = summary["deals_completed"], summary["deals_failed"]
        raise RuntimeError(f"{game} {client}: {done} deals completed, {failed} failed, of {TABLES * deals}")
    return Run(instructions, int(summary["actions"]), int(summary["requests"]))


def _total_calls(path: Path) -> int:
    import pstats

    stats = pstats.Stats(str(path))
    return int(sum(row[1] for row in stats.stats.values()))  # type: ignore[attr-defined]


def print_top_syscalls(small: Path, large: Path, actions: int, count: int = 12) -> None:
    """The system calls whose counts grew most between the two runs, per action."""
    before, after = syscall_counts(small), syscall_counts(large)
    grown = {name: calls - before.get(name, 0) for name, calls in after.items()}
    for name, calls in sorted(grown.items(), key=lambda item: -item[1])[:count]:
        print(f"    {calls / actions:8.2f}  {name}")


def print_top_calls(small: Path, large: Path, actions: int, count: int = 25) -> None:
    """The functions whose calls grew most between the two runs, per action."""
    import pstats

    before = pstats.Stats(str(small)).stats  # type: ignore[attr-defined]
    after = pstats.Stats(str(large)).stats  # type: ignore[attr-defined]
    grown = {key: row[1] - before.get(key, (0, 0))[1] for key, row in after.items()}
    for key, calls in sorted(grown.items(), key=lambda item: -item[1])[:count]:
        filename, line, name = key
        print(f"    {calls / actions:8.2f}  {name}  ({Path(filename).name}:{line})")


def run_bare(url: str, seconds: float, tree: Path, strace_out: Path | None = None) -> Run:
    command = ["-c", BARE_CHILD, url, str(seconds)]
    if strace_out is None:
        instructions, stdout = callgrind(command, tree)
    else:
        with tempfile.TemporaryDirectory(prefix="cardledger-bots-cost-") as scratch:
            printed = Path(scratch) / "requests.json"
            instructions = syscalls([*command, str(printed)], tree, strace_out)
            stdout = printed.read_text()
    requests = int(json.loads(stdout.strip().splitlines()[-1])["requests"])
    return Run(instructions, requests, requests)


def per(small: Run, large: Run) -> tuple[float, float, float]:
    """Per action, per request (differences of the two runs), and requests per action."""
    actions, requests = large.actions - small.actions, large.requests - small.requests
    work = large.instructions - small.instructions
    return work / actions, work / requests, requests / actions


def main(argv: list[str] | None = None) -> int:
    from bench.api import baseline_server, bench_stack

    parser = argparse.ArgumentParser(prog="python -m bench.bots_cost", description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, default=ROOT, help="the checkout whose bots are measured")
    parser.add_argument("--games", nargs="+", choices=GAMES, default=list(GAMES))
    parser.add_argument("--clients", nargs="*", choices=CLIENTS, default=list(CLIENTS), help="none: the bare row only")
    parser.add_argument("--deals", type=int, default=2, help="deals per table of the smaller run (default 2)")
    parser.add_argument("--bare-seconds", type=float, default=20.0, help="0: no bare client row")
    parser.add_argument("--bare-with-stdlib-client", action="store_true", help="the bare loop on http.client")
    counted = parser.add_mutually_exclusive_group()
    counted.add_argument("--calls", action="store_true", help="count Python calls (cProfile) instead")
    counted.add_argument("--syscalls", action="store_true", help="count system calls (strace) instead")
    args = parser.parse_args(argv)
    tree = args.tree.resolve()
    unit = "calls" if args.calls else "syscalls" if args.syscalls else "instructions"
    kept = args.calls or args.syscalls
    if args.bare_with_stdlib_client:
        os.environ["BOTS_COST_BARE_WITH_STDLIB_CLIENT"] = "1"
    with bench_stack() as (stack, url), tempfile.TemporaryDirectory(prefix="cardledger-bots-cost-") as scratch:
        for game in args.games:
            for client in args.clients:
                profiles = [Path(scratch) / f"{game}-{client}-{n}.{unit}" for n in (1, 2)] if kept else None
                small, large = (
                    run_simulate(
                        stack.base_url, game, client, args.deals * n, tree, profiles and profiles[n - 1], args.syscalls
                    )
                    for n in (1, 2)
                )
                per_action, per_request, requests = per(small, large)
                print(
                    f"{game:12} {client:9} {unit} per action {per_action:12,.0f}  per request {per_request:12,.0f}"
                    f"  ({requests:.3f} requests per action; actions {small.actions} / {large.actions})",
                    flush=True,
                )
                if profiles is not None:
                    top = print_top_syscalls if args.syscalls else print_top_calls
                    top(profiles[0], profiles[1], large.actions - small.actions)
        if args.bare_seconds > 0 and not args.calls:
            with baseline_server(url) as (base_url, _):
                traces = [Path(scratch) / f"bare-{n}.syscalls" for n in (0, 1)] if args.syscalls else None
                small, large = (
                    run_bare(base_url, seconds, tree, traces and traces[n])
                    for n, seconds in enumerate((0.0, args.bare_seconds))
                )
                _, per_request, _ = per(small, large)
                label = "bare client (http.client)" if args.bare_with_stdlib_client else "bare client"
                print(
                    f"{label:22} {unit} per request {per_request:12,.0f}"
                    f"  (requests {small.requests} / {large.requests})",
                    flush=True,
                )
                if traces is not None:
                    print_top_syscalls(traces[0], traces[1], large.requests - small.requests)
    return 0


if __name__ == "__main__":
    sys.exit(main())
