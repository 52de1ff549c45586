"""The build's one optional step: with CARDLEDGER_MYPYC=1, the domain's modules are compiled by mypyc into
extension modules (`make compiled`, the production image); without it, the project is plain Python."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from types import ModuleType

from setuptools import Extension, setup

ROOT = Path(__file__).resolve().parent


def domain_compiled() -> ModuleType:
    """domain/compiled.py on its own: importing the package would refuse the stale build this one replaces."""
    spec = importlib.util.spec_from_file_location("domain_compiled", ROOT / "domain" / "compiled.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def extensions() -> list[Extension]:
    if os.environ.get("CARDLEDGER_MYPYC", "") != "1":
        return []
    from mypyc.build import mypycify

    compiled = domain_compiled()
    sources = compiled.sources_to_compile()
    compiled.write_manifest(sources)
    return mypycify(
        [path.relative_to(ROOT).as_posix() for path in sources],
        group_name=compiled.GROUP,
        target_dir=str(ROOT / "build" / "mypyc"),
    )


setup(ext_modules=extensions())
