"""`cardledger simulate` over several API instances: `--url` more than once spreads the clients round-robin."""

from __future__ import annotations

import argparse

import pytest

from services.cli.simulate import add_arguments, run_from_args
from services.cli.simulate.command import config_from_args
from services.cli.simulate.runner import SimulationConfig

A, B, C = "http://127.0.0.1:8001", "http://127.0.0.1:8002", "http://127.0.0.1:8003"


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return parser.parse_args(["--game", "cholek-tiga", "--tables", "4", "--seats", "2", "--concurrency", "4", *argv])


def test_clients_take_the_urls_in_turn() -> None:
    config = SimulationConfig(base_url=A, other_urls=(B, C), game="cholek-tiga", tables=1, seats=2, concurrency=1)
    assert config.urls == (A, B, C)
    assert [config.url(n) for n in range(7)] == [A, B, C, A, B, C, A]
    single = SimulationConfig(base_url=A, game="cholek-tiga", tables=1, seats=2, concurrency=1)
    assert {single.url(n) for n in range(5)} == {A}


def test_url_given_twice_makes_two_instances_in_order() -> None:
    args = parse("--url", A + "/", "--url", B)
    config = config_from_args(args, args.url[0], args.url[1:])
    assert config.urls == (A, B)


def test_a_bad_second_url_is_refused_before_anything_runs(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_from_args(parse("--url", A, "--url", "ftp://127.0.0.1:8002", "--no-progress")) == 2
    err = capsys.readouterr().err
    assert err.startswith("cardledger: error: simulate: ") and "ftp://127.0.0.1:8002" in err


def test_the_streaming_client_is_a_choice() -> None:
    assert config_from_args(parse("--client", "streaming"), A).client == "streaming"
