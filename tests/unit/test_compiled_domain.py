"""Which domain the tests ran: the extension modules of `make compiled` (mypyc) or the plain Python, and the
refusal of extension modules built from other sources than the `.py` files beside them (domain/compiled.py).

CARDLEDGER_EXPECT_COMPILED=1 (the compiled run of .ci/run) fails here unless the domain was imported compiled;
=0 fails if it was. pytest's header says which one ran either way (tests/conftest.py)."""

from __future__ import annotations

import importlib.machinery
import os
import subprocess
import sys
from pathlib import Path

import pytest

import domain.table
from domain import compiled
from domain.compiled import StaleBuild, refuse_stale_build, sources_to_compile, write_manifest

SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]


def test_the_domain_ran_compiled_or_not_as_expected() -> None:
    ran_compiled = "domain.table" in compiled.compiled_modules()
    assert ran_compiled == domain.table.__file__.endswith(SUFFIX)
    expected = os.environ.get("CARDLEDGER_EXPECT_COMPILED", "").strip()
    if expected:
        assert ran_compiled == (expected == "1"), f"domain.table came from {domain.table.__file__}"


def test_the_package_and_its_check_stay_interpreted() -> None:
    assert not domain.__file__ or domain.__file__.endswith("__init__.py")
    assert compiled.__file__.endswith("compiled.py")
    names = {path.relative_to(compiled.PACKAGE_DIR).as_posix() for path in sources_to_compile()}
    assert {"table.py", "hashchain.py", "cholek_tiga/evolve.py", "cha_kau_tsz/rules.py"} <= names
    assert names.isdisjoint({"__init__.py", "compiled.py", "errors.py", "cholek_tiga/__init__.py"})


def test_every_module_imports_first_on_its_own() -> None:
    """Compiled, an import order that works in Python can fail (a compiled package could not import its
    submodules): each module is imported first in a fresh interpreter."""
    modules = [
        "domain." + ".".join(path.relative_to(compiled.PACKAGE_DIR).with_suffix("").parts).removesuffix(".__init__")
        for path in sorted(compiled.PACKAGE_DIR.rglob("*.py"))
        if "__pycache__" not in path.parts
    ]
    script = "import importlib, sys\nfor name in sys.argv[1:]: importlib.import_module(name)"
    for module in modules:
        done = subprocess.run([sys.executable, "-c", script, module], capture_output=True, text=True, check=False)
        assert done.returncode == 0, f"import {module}: {done.stderr[-500:]}"


def a_package(root: Path) -> Path:
    package = root / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "rules.py").write_text("RULE = 1\n")
    (package / "sub" / "more.py").write_text("MORE = 2\n")
    return package


def test_a_package_without_extension_modules_passes(tmp_path: Path) -> None:
    refuse_stale_build(a_package(tmp_path))


def test_extension_modules_built_from_the_sources_beside_them_pass(tmp_path: Path) -> None:
    package = a_package(tmp_path)
    write_manifest([package / "rules.py", package / "sub" / "more.py"], package)
    (package / f"rules{SUFFIX}").write_bytes(b"")
    (package / "sub" / f"more{SUFFIX}").write_bytes(b"")
    (package / f"compiled__mypyc{SUFFIX}").write_bytes(b"")  # the group's shared library has no source
    refuse_stale_build(package)


@pytest.mark.parametrize("change", ["edited", "deleted", "never recorded", "no manifest"])
def test_an_extension_module_of_other_sources_is_refused(tmp_path: Path, change: str) -> None:
    package = a_package(tmp_path)
    write_manifest([package / "rules.py"], package)
    (package / f"rules{SUFFIX}").write_bytes(b"")
    stale = package / "rules.py"
    if change == "edited":
        stale.write_text("RULE = 2\n")
    elif change == "deleted":
        stale.unlink()
    elif change == "never recorded":
        stale = package / "sub" / "more.py"
        (package / "sub" / f"more{SUFFIX}").write_bytes(b"")
    else:
        (package / compiled.MANIFEST).unlink()
    with pytest.raises(StaleBuild, match=f"not built from {stale}"):
        refuse_stale_build(package)
