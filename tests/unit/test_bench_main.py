"""`python -m bench`: its usage, a clear error for a word that names no module, and the CPU rows of bench.api."""

from __future__ import annotations

import pytest

from bench import api
from bench.__main__ import main, print_table, selected


def test_help_prints_the_usage_and_the_modules(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    assert "usage: python -m bench" in out and "modules: domain_cholek_tiga" in out


def test_a_word_naming_no_module_is_an_error_that_names_it(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["api", "nosuch"]) == 2
    err = capsys.readouterr().err
    assert "no benchmark module matches 'nosuch'" in err and "--help" in err


def test_words_select_the_modules_whose_names_contain_them() -> None:
    assert selected(["append", "lag"]) == ["bench.append", "bench.lag"]
    assert len(selected([])) > 2


def test_an_empty_table_prints() -> None:
    print_table([])


def test_the_backends_total_comes_before_its_parts_and_counts_once() -> None:
    used = {api.API: 3.0, api.PG_API: 1.0, api.PG_RELAY: 0.5, api.PG_OTHERS: 0.25, api.REDIS: 0.1}
    rows = api.cpu_rows("x", used, 1, "action")
    values = {row["benchmark"].removeprefix("x: CPU per action, "): row["value"] for row in rows}
    assert list(values) == [
        api.API,
        api.PG_BACKENDS,
        api.PG_API,
        api.PG_RELAY,
        api.PG_OTHERS,
        api.REDIS,
        "all components",
    ]
    assert values[api.PG_BACKENDS] == pytest.approx(1.75e6)
    assert values["all components"] == pytest.approx(4.85e6)
