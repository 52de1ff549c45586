"""REDIS_URL's Sentinel form and the multi-host DATABASE_URL: parsed, refused in one line, named in errors."""

from __future__ import annotations

import pytest

from infra.config import Settings
from infra.endpoints import check_database_hosts, database_hosts
from infra.redis_clients import SentinelUrl, is_sentinel_url, parse_sentinel_url
from services.api.middleware.limits import storage_options, storage_uri


def test_a_sentinel_url_names_its_sentinels_service_database_and_password() -> None:
    url = "redis+sentinel://:s%40cret@10.0.0.1:26379,[::1]:26380,sentinel-c:26381/cardledger/3"
    parsed = parse_sentinel_url(url)
    assert parsed == SentinelUrl(
        sentinels=(("10.0.0.1", 26379), ("::1", 26380), ("sentinel-c", 26381)),
        service="cardledger",
        db=3,
        password="s@cret",
    )
    assert "s@cret" not in repr(parsed)
    assert is_sentinel_url(url) and not is_sentinel_url("redis://127.0.0.1:6379/0")


def test_the_rate_limiter_gets_the_same_sentinels_and_the_database_as_an_option() -> None:
    url = "redis+sentinel://:pw@10.0.0.1:26379,10.0.0.2:26379/cardledger/3"
    uri = storage_uri(url)
    assert uri == "redis+sentinel://:pw@10.0.0.1:26379,10.0.0.2:26379/cardledger"
    assert storage_options(uri, url)["db"] == 3
    assert "db" not in storage_options("redis://127.0.0.1:6379/0", "redis://127.0.0.1:6379/0")


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("redis+sentinel://:pw@/cardledger", "names no Sentinel"),
        ("redis+sentinel://:pw@sentinel-a/cardledger", "'sentinel-a' is not host:port"),
        ("redis+sentinel://:pw@sentinel-a:26379", "must name the Sentinels' service"),
        ("redis+sentinel://:pw@sentinel-a:26379/cardledger/zero", "database 'zero'"),
        ("redis+sentinel://:pw@sentinel-a:26379/a/1/2", "must name the Sentinels' service"),
        ("redis+sentinel://:pw@sentinel-a:26379/cardledger?ssl=true", "takes no query parameters"),
    ],
)
def test_a_bad_sentinel_url_is_one_error_naming_the_variable_never_the_password(url: str, said: str) -> None:
    with pytest.raises(ValueError) as refused:
        Settings.from_env({"REDIS_URL": url})
    assert said in str(refused.value) and "REDIS_URL" in str(refused.value)
    assert "pw" not in str(refused.value).replace("password", "")


def test_a_multi_host_database_url_must_want_the_writable_server() -> None:
    hosts = "postgresql://svc@pg-1:5432,pg-2:5432/cardledger"
    with pytest.raises(ValueError, match="lists 2 hosts but not \\?target_session_attrs=read-write"):
        Settings.from_env({"DATABASE_URL": hosts})
    for wanted in ("read-write", "primary"):
        settings = Settings.from_env({"DATABASE_URL": f"{hosts}?target_session_attrs={wanted}"})
        assert settings.database_url is not None and database_hosts(settings.database_url) == ["pg-1", "pg-2"]


def test_a_host_that_does_not_resolve_is_named_with_its_setting() -> None:
    url = "postgresql://svc@127.0.0.1:5432,no-such-node.invalid:5432/db?target_session_attrs=read-write"
    with pytest.raises(ValueError, match=r"DATABASE_URL: host 'no-such-node\.invalid' does not resolve"):
        check_database_hosts(url, "DATABASE_URL")
    check_database_hosts("postgresql://svc@127.0.0.1:5432,localhost:5433/db", "DATABASE_URL")
    assert database_hosts("postgresql:///db?host=/var/run/postgresql") == []
