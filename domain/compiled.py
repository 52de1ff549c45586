"""Whether the domain runs compiled (mypyc extension modules, `make compiled`), and the refusal of a stale build.

An extension module is imported in preference to the `.py` file beside it: one built from other sources would
run old rules without a word. The build records the digest of every source it compiles (MANIFEST); importing
`domain` refuses any extension module whose `.py` differs from that record. This module and the package's
`__init__` are never compiled, so the check runs even when every other module is an extension.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import sys
from collections.abc import Iterable
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
MANIFEST = "compiled-sources.txt"  # one "<sha256 of the source>  <its path under domain/>" line per module
GROUP = "domain.compiled"  # mypyc's shared library of the group: domain/compiled__mypyc.<suffix>
# Of the package's own directory. errors.py too: mypyc leaves the class-level defaults of an exception class
# compiled natively unset (DomainError.code), and raising is not a hot path. No package's __init__ either: a
# compiled one cannot import its submodules by name (`import domain.cholek_tiga.rules` fails).
INTERPRETED = ("compiled.py", "errors.py")
_SUFFIXES = tuple(importlib.machinery.EXTENSION_SUFFIXES)


class StaleBuild(ImportError):
    """An extension module of domain/ built from other sources than the `.py` file beside it."""


def sources_to_compile(package_dir: Path = PACKAGE_DIR) -> list[Path]:
    return sorted(
        path
        for path in package_dir.rglob("*.py")
        if path.name != "__init__.py"
        and not (path.parent == package_dir and path.name in INTERPRETED)
        and "__pycache__" not in path.parts
    )


def write_manifest(sources: Iterable[Path], package_dir: Path = PACKAGE_DIR) -> None:
    lines = [f"{_digest(path)}  {path.relative_to(package_dir).as_posix()}\n" for path in sources]
    (package_dir / MANIFEST).write_text("".join(lines))


def refuse_stale_build(package_dir: Path = PACKAGE_DIR) -> None:
    extensions = [
        path
        for path in package_dir.rglob("*")
        if path.name.endswith(_SUFFIXES) and not _module_name(path).endswith("__mypyc")
    ]
    if not extensions:
        return
    recorded = _read_manifest(package_dir)
    for extension in extensions:
        source = extension.with_name(_module_name(extension) + ".py")
        relative = source.relative_to(package_dir).as_posix()
        if not source.exists() or recorded.get(relative) != _digest(source):
            raise StaleBuild(
                f"{extension} was not built from {source} as it is now; "
                "run `make compiled` again, or `make uncompiled` to run the plain Python"
            )


def compiled_modules() -> list[str]:
    """The domain modules imported so far from extension modules."""
    return sorted(
        name
        for name, module in list(sys.modules.items())
        if (name == "domain" or name.startswith("domain."))
        and isinstance(getattr(module, "__loader__", None), importlib.machinery.ExtensionFileLoader)
    )


def _module_name(extension: Path) -> str:
    return extension.name.split(".", 1)[0]


def _read_manifest(package_dir: Path) -> dict[str, str]:
    manifest = package_dir / MANIFEST
    if not manifest.exists():
        return {}
    return {path: digest for digest, path in (line.split(maxsplit=1) for line in manifest.read_text().splitlines())}


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()
