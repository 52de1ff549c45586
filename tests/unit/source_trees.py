"""`parse`: `ast.parse` for the tests that read the project's own source."""

from __future__ import annotations

import ast

ATTEMPTS = 3


def parse(source: str, filename: str = "<unknown>") -> ast.Module:
    """`ast.parse`, tried again on CPython 3.11.7's spurious "AST constructor recursion depth mismatch": the
    AST builder's depth counter can be thrown off by another thread building an AST at the same moment (a
    traceback being formatted by a test's background thread), python/cpython#106905, fixed in 3.11.8."""
    for attempt in range(ATTEMPTS):
        try:
            return ast.parse(source, filename)
        except SystemError as error:
            if "recursion depth mismatch" not in str(error) or attempt == ATTEMPTS - 1:
                raise
    raise AssertionError("unreachable")
