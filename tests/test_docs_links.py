"""The documentation links only to files of this repository: every relative link of README.md and docs/*.md names a
file (or folder) that exists in the repository, and none leads outside it (a clone has nothing there).

Links are Markdown links and images (`[text](target)`, `[text]: target`) and HTML `href`/`src`, outside code
blocks and code spans. A link to a heading of a Markdown page (`page.md#heading`, `#heading`) must name a
heading that page has (GitHub's anchors). Code spans that spell a path upwards (`../...`) count as links too:
readers follow them all the same.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

_FENCE = re.compile(r"^ {0,3}(```|~~~)")
_CODE_SPAN = re.compile(r"(`+)(.+?)\1")
_INLINE = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
_REFERENCE = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$")
_HTML = re.compile(r"""\b(?:href|src)\s*=\s*["']([^"']+)["']""", re.IGNORECASE)
_HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_UPWARD_PATH = re.compile(r"(?:^|[\s(])(\.\./[\w./-]+)")


def _prose_lines(text: str) -> list[tuple[int, str]]:
    """The lines outside fenced code blocks, numbered from 1."""
    lines: list[tuple[int, str]] = []
    fence: str | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        opened = _FENCE.match(line)
        if fence is not None:
            if opened and opened.group(1) == fence:
                fence = None
            continue
        if opened:
            fence = opened.group(1)
            continue
        if line.startswith("    ") and not line.lstrip().startswith(("-", "*", "|")):
            continue  # an indented code block (or a continuation line: it holds no link in these pages)
        lines.append((number, line))
    return lines


def links(page: Path) -> list[tuple[int, str]]:
    """(line, target) of every link of `page`, code excluded."""
    found: list[tuple[int, str]] = []
    for number, line in _prose_lines(page.read_text(encoding="utf-8")):
        prose = _CODE_SPAN.sub("", line)
        found += [(number, target) for target in _INLINE.findall(prose)]
        found += [(number, target) for target in _HTML.findall(prose)]
        reference = _REFERENCE.match(prose)
        if reference:
            found.append((number, reference.group(1)))
    return found


def anchors(page: Path) -> set[str]:
    """GitHub's anchors of the page's headings: lowercase, punctuation dropped, spaces as hyphens, `-N` for
    repeats."""
    seen: dict[str, int] = {}
    result: set[str] = set()
    for _, line in _prose_lines(page.read_text(encoding="utf-8")):
        heading = _HEADING.match(line)
        if heading is None:
            continue
        text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading.group(2))  # a link's text
        slug = re.sub(r"[^\w\- ]", "", text.replace("`", "").strip().lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        result.add(slug if count == 0 else f"{slug}-{count}")
    return result


def _is_external(target: str) -> bool:
    parts = urlsplit(target)
    return bool(parts.scheme) or target.startswith("//")


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def problems_of(page: Path, root: Path = ROOT) -> list[str]:
    """What is wrong with the links of `page`, a page of the repository at `root`."""
    problems: list[str] = []
    where = page.relative_to(root)
    for number, target in links(page):
        if not target or _is_external(target):
            continue
        parts = urlsplit(target)
        path, fragment = unquote(parts.path), unquote(parts.fragment)
        if path.startswith("/"):
            problems.append(f"{where}:{number}: {target} is an absolute path; link relative to the page")
            continue
        resolved = (page.parent / path).resolve() if path else page
        if not _inside(resolved, root):
            problems.append(f"{where}:{number}: {target} leads outside the repository")
            continue
        if not resolved.exists():
            problems.append(f"{where}:{number}: {target} names {resolved.relative_to(root)}, which does not exist")
            continue
        if fragment and resolved.suffix == ".md" and fragment not in anchors(resolved):
            problems.append(f"{where}:{number}: {target}: {resolved.relative_to(root)} has no heading #{fragment}")
    for number, line in _prose_lines(page.read_text(encoding="utf-8")):
        for span in _CODE_SPAN.findall(line):
            for upward in _UPWARD_PATH.findall(span[1]):
                named = (page.parent / upward).resolve()
                if not _inside(named, root):
                    problems.append(f"{where}:{number}: `{upward}` names a file outside the repository")
                elif not named.exists():
                    problems.append(f"{where}:{number}: `{upward}` names a file that does not exist")
    return problems


@pytest.mark.parametrize("page", PAGES, ids=[str(page.relative_to(ROOT)) for page in PAGES])
def test_every_relative_link_names_a_file_of_the_repository(page: Path) -> None:
    assert problems_of(page) == []


def test_the_pages_are_all_there() -> None:
    names = {page.name for page in PAGES}
    assert {"README.md", "rules.md", "api.md", "hashing.md", "house-rules.md", "rulings.md"} <= names


def test_the_readme_links_the_rules_and_the_api_guide() -> None:
    targets = {target for _, target in links(ROOT / "README.md")}
    assert {"docs/rules.md", "docs/api.md"} <= targets


def test_the_checker_finds_bad_links(tmp_path: Path) -> None:
    """The checks themselves, on a repository of two pages with every kind of bad link."""
    root = tmp_path / "repo"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "rules.md").write_text("# Rules\n\n## Table options\n", encoding="utf-8")
    page = root / "docs" / "probe.md"
    page.write_text(
        "# Probe\n\n"
        "[ok](rules.md) [ok](#probe) [ok](rules.md#table-options) [web](https://example.com/x) [up](../docs)\n"
        "[gone](nothing.md) [out](../../shared/RULES.md) [abs](/etc/passwd) [anchor](rules.md#no-such-heading)\n"
        '<a href="missing.html">x</a>\n\n'
        "[ref]: ../../outside.md\n\n"
        "See `../../shared/API.md` and `../shared/x.md`; `[not a link](nothing.md)` in code is not checked.\n\n"
        "```\n[in a block](nothing-either.md)\n```\n",
        encoding="utf-8",
    )
    found = problems_of(page, root)
    assert len(found) == 8, found
    needles = ("nothing.md", "RULES.md", "/etc/passwd", "no heading", "missing.html", "outside.md", "API.md", "x.md")
    for needle in needles:
        assert any(needle in problem for problem in found), (needle, found)
