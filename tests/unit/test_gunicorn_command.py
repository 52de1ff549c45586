"""The API's gunicorn command line: threads for requests plus threads for streams, both told to the app."""

from __future__ import annotations

import pytest

from infra.config import ServingLimits, Settings
from services.cli import main
from services.supervisor import gunicorn_command


def option(command: list[str], name: str) -> list[str]:
    return [command[i + 1] for i, part in enumerate(command) if part == name]


def test_threads_for_requests_and_streams_and_the_app_is_told_both() -> None:
    command = gunicorn_command(Settings(port=8123), workers=2, threads=4, streams=32)
    assert option(command, "--worker-class") == ["gthread"]
    assert option(command, "--threads") == ["36"]
    assert option(command, "--env") == ["CARDLEDGER_API_THREADS=4", "CARDLEDGER_API_STREAMS=32"]
    assert command[-1] == "services.api:create_served_app()"


def test_one_thread_and_no_streams_is_the_sync_worker() -> None:
    command = gunicorn_command(Settings(), threads=1, streams=0)
    assert option(command, "--worker-class") == ["sync"]
    assert option(command, "--env") == ["CARDLEDGER_API_THREADS=1", "CARDLEDGER_API_STREAMS=0"]


def test_the_sync_worker_follows_no_streams() -> None:
    command = gunicorn_command(Settings(), threads=4, streams=32, worker_class="sync")
    assert option(command, "--threads") == ["1"]
    assert option(command, "--env") == ["CARDLEDGER_API_THREADS=1", "CARDLEDGER_API_STREAMS=0"]


def serving(environ: dict[str, str]) -> tuple[int, int]:
    limits = ServingLimits.from_env(environ)
    return limits.threads, limits.streams


def test_defaults_and_environment() -> None:
    assert serving({}) == (4, 32)
    assert serving({"CARDLEDGER_API_THREADS": " 8 ", "CARDLEDGER_API_STREAMS": "0"}) == (8, 0)


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        ("CARDLEDGER_API_THREADS", "0", "CARDLEDGER_API_THREADS must be between 1 and 64, got '0'"),
        ("CARDLEDGER_API_THREADS", "four", "CARDLEDGER_API_THREADS must be an integer, got 'four'"),
        ("CARDLEDGER_API_STREAMS", "-1", "CARDLEDGER_API_STREAMS must be between 0 and 512, got '-1'"),
        ("CARDLEDGER_API_STREAMS", "513", "CARDLEDGER_API_STREAMS must be between 0 and 512, got '513'"),
    ],
)
def test_bad_values_are_refused_by_name(variable: str, value: str, message: str) -> None:
    with pytest.raises(ValueError) as caught:
        ServingLimits.from_env({variable: value})
    assert str(caught.value) == message


@pytest.mark.parametrize(("variable", "value"), [("CARDLEDGER_API_THREADS", "0"), ("CARDLEDGER_API_STREAMS", "x")])
def test_the_command_line_reports_a_bad_value_as_a_configuration_error(
    variable: str, value: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(variable, value)
    assert main(["api"]) == 2
    assert capsys.readouterr().err.startswith(f"cardledger: error: configuration error: {variable} must be")
