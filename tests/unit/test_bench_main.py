"""`python -m bench`: its usage, a clear error for a word that names no module, and the CPU rows of bench.api."""

from __future__ import annotations

import pytest

from bench import api
from bench.__main__ import main, print_table, selected


def test_help_prints_the_usage_and_the_modules(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    assert "usage: python -m bench" in out and "modules: rules" in out


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


def test_the_targets_of_bench_api_are_the_issues_ratios_on_the_targeted_client_only() -> None:
    from bench.__main__ import verdict

    summary = {
        "actions_per_s": 300.0,
        "requests_per_s": 310.0,
        "latency_ms": {"p50": 10.0, "p99": 30.0},
        "deals_completed": 5,
        "deals_failed": 0,
        "errors": {},
        "cpu": {},
        "actions": 3000,
    }
    baseline = {"rate": 1000.0, "p50": 4.0, "p99": 12.0}
    targeted = {row["benchmark"].removeprefix("x: "): row for row in api.client_rows("x", summary, baseline, True)}
    assert targeted["actions/s / baseline requests/s"]["value"] == pytest.approx(0.3)
    assert verdict(targeted["actions/s / baseline requests/s"]) == "MISSED"
    p99 = targeted["action POST p99 / baseline p99"]
    assert p99["value"] == pytest.approx(2.5) and p99["target"] == api.P99_RATIO_TARGET
    assert verdict(p99) == "MISSED"
    assert verdict({**p99, "value": 1.9}) == "ok"
    others = api.client_rows("x", summary, baseline, False)
    assert all(row["target"] is None for row in others)
    assert api.TARGETED_CLIENT in api.CLIENTS
