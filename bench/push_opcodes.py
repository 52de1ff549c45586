"""The Python bytecodes a pushed seat view costs the API process, counted per function: `bench.action_cost
--streamed --plain` (200 scripted actions, both seats' streams) with a `sys.settrace` opcode tracer on the
threads that push (each stream's reading thread, which runs the stream's generator as the WSGI server would,
and the process's reader of the tables' streams), divided by the views pushed. A count, not a time: the same
script gives the same figure, whatever the machine's load. The POST thread is not traced; the figure includes
the bench's own reading of each stream and its counting of the Redis commands sent.

Run:  python -m bench.push_opcodes [--same-app] [--game cholek-tiga] [--actions 200] [--top 30]
"""

from __future__ import annotations

import argparse
import re
import sys
import threading
from collections import Counter
from collections.abc import Callable
from types import FrameType
from typing import Any

Key = tuple[str, int, str]  # a function: its file, first line and name


class OpcodeCounter:
    def __init__(self) -> None:
        self.opcodes: Counter[Any] = Counter()  # by `key`
        self.calls: Counter[Key] = Counter()
        self.lock = threading.Lock()
        self.on = True

    def traced(self, run: Callable[..., Any]) -> Callable[..., Any]:
        """`run`, with the calls it makes on its thread counted."""

        def traced_run(*args: Any, **kwargs: Any) -> Any:
            sys.settrace(self._call)
            try:
                return run(*args, **kwargs)
            finally:
                sys.settrace(None)

        return traced_run

    def key(self, frame: FrameType) -> Any:
        """What a frame's bytecodes count under: its function."""
        code = frame.f_code
        return (_short(code.co_filename), code.co_firstlineno, code.co_name)

    def _call(self, frame: FrameType, event: str, arg: Any) -> Any:
        if not self.on:
            return None
        frame.f_trace_opcodes = True
        key = self.key(frame)
        opcodes = self.opcodes
        with self.lock:
            self.calls[key] += 1

        def local(frame: FrameType, event: str, arg: Any) -> Any:
            if event == "opcode":
                opcodes[key] += 1  # a Counter's += under the GIL: the threads' counts may lose a rare one
            return local

        return local


def _short(path: str) -> str:
    """A library's file from its package (`redis/connection.py`, `threading.py`); the project's as it is."""
    if "site-packages/" in path:
        return path.split("site-packages/", 1)[1]
    return re.sub(r"^.*/lib/python3\.\d+/", "", path)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.push_opcodes", description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="cholek-tiga")
    parser.add_argument("--actions", type=int, default=200)
    parser.add_argument("--same-app", action="store_true", help="the streams served by the app that writes")
    parser.add_argument("--top", type=int, default=30, help="the functions that cost the most, per push")
    args = parser.parse_args(argv)

    from bench import action_cost
    from services.api import table_waits

    counter = OpcodeCounter()
    action_cost.SeatViewStream._read = counter.traced(action_cost.SeatViewStream._read)  # type: ignore[method-assign]
    table_waits.TableWaits._read = counter.traced(table_waits.TableWaits._read)  # type: ignore[method-assign]
    outcome = action_cost.run_streamed(
        args.game, args.actions, representation=False, same_app=args.same_app, trace=False
    )
    counter.on = False
    pushes = outcome.views
    opcodes, calls = Counter(counter.opcodes), Counter(counter.calls)
    print(
        f"{args.game}: {pushes} seat views pushed by {'the app that wrote' if args.same_app else 'another app'}: "
        f"{sum(opcodes.values()) / pushes:,.1f} bytecodes and {sum(calls.values()) / pushes:,.1f} Python calls "
        "per pushed view"
    )
    by_file: Counter[str] = Counter()
    for (path, _, _), count in opcodes.items():
        by_file[path] += count
    for path, count in by_file.most_common(args.top):
        print(f"  {count / pushes:9.1f}  {path}")
    print("  bytecodes, calls per pushed view, function:")
    for (path, line, name), count in opcodes.most_common(args.top):
        print(f"  {count / pushes:9.1f} {calls[(path, line, name)] / pushes:6.2f}  {path}:{line} {name}")


if __name__ == "__main__":
    main()
