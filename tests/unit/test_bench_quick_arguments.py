"""`BENCH_QUICK=1 make bench` passes smaller arguments to some benchmarks: each must be one its run() takes."""

from __future__ import annotations

import importlib
import inspect

from bench.__main__ import MODULES, QUICK_ARGUMENTS


def test_quick_arguments_name_benchmarks_and_parameters_that_exist() -> None:
    for module_name, arguments in QUICK_ARGUMENTS.items():
        assert module_name in MODULES, module_name
        parameters = inspect.signature(importlib.import_module(module_name).run).parameters
        unknown = set(arguments) - set(parameters)
        assert not unknown, f"{module_name}.run() takes no {sorted(unknown)}"
