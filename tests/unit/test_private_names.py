"""No module of the service or its benches reaches into a library's private names: an attribute or an import
whose name starts with one underscore must be one the project's own source defines (a function, a class, an
assignment, a parameter). A library's private name can change in any release, without notice."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from tests.unit.source_trees import parse

ROOT = Path(__file__).resolve().parents[2]
CHECKED = ("domain", "infra", "services", "bench")
# A named tuple's documented methods and attributes (underscored so as not to clash with its fields).
NAMED_TUPLE_API = frozenset({"_replace", "_asdict", "_fields", "_make", "_field_defaults"})


def modules() -> Iterator[tuple[Path, ast.Module]]:
    for package in CHECKED:
        for path in sorted((ROOT / package).rglob("*.py")):
            yield path, parse(path.read_text(), str(path))


def private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _on_self(node: ast.Attribute) -> bool:
    return isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")


def defined_names(tree: ast.AST) -> set[str]:
    """Every name `tree` defines: functions, classes, assigned names, attributes set on self or cls, parameters,
    names imported as."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and _on_self(node):
            names.add(node.attr)  # set on another object, an attribute is that object's (its library's)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.alias) and node.asname is not None:
            names.add(node.asname)
        elif isinstance(node, ast.keyword) and node.arg is not None:
            names.add(node.arg)  # a dataclass's field given by name, a namedtuple's
    return names


def reaches(tree: ast.AST, own: set[str]) -> Iterator[tuple[int, str]]:
    """(line, name) of each private name `tree` takes from elsewhere than the project's own source."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and private(node.attr) and node.attr not in own | NAMED_TUPLE_API:
            yield node.lineno, node.attr
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            ours = (node.module or "").split(".")[0] in CHECKED
            for alias in node.names:
                if private(alias.name) and not ours:
                    yield node.lineno, f"{node.module}.{alias.name}"


def test_no_module_reaches_into_a_librarys_private_names() -> None:
    trees = list(modules())
    own: set[str] = set().union(*(defined_names(tree) for _, tree in trees))
    found = [f"{path.relative_to(ROOT)}:{line}: {name}" for path, tree in trees for line, name in reaches(tree, own)]
    assert found == [], "private names of libraries:\n" + "\n".join(found)


def test_the_check_finds_a_librarys_private_attribute_and_import() -> None:
    tree = parse("import rq\nfrom json.encoder import _make_iterencode\nworker._stop_requested = rq.x._lock\n")
    own = {"worker", "_stop_requested"}  # assigned here, so the project's own
    assert sorted(reaches(tree, own)) == [(2, "json.encoder._make_iterencode"), (3, "_lock")]
