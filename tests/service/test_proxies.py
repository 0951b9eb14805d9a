"""``TRUSTED_PROXIES``: the client's address is read from ``X-Forwarded-For`` only when the
request came from a proxy that ``FORWARDED_ALLOW_IPS`` names, so that a client reaching gunicorn
directly cannot rotate the header past the per-client limits; production refuses to take
anyone's word for it (``*``)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest
from flask import Flask
from sqlmodel import SQLModel

from service.config import ConfigError, config_from_env
from service.config_checks import check_config
from service.db import get_engine
from tests.service.conftest import VALID_FORM, make_test_app

REPO = Path(__file__).resolve().parents[2]

PRODUCTION = {
    "APP_ENV": "production",
    "SECRET_KEY": "Zq8v3LwP0xR7tN2mK5yB9cH4dF6gJ1sA-eU_iO",
    "BASE_URL": "https://battleline.example",
    "TRUSTED_PROXIES": "1",
}


def _app(database_url: str, **overrides: Any) -> Flask:
    return make_test_app(
        database_url,
        RATELIMIT_ENABLED=True,
        RATE_LIMIT_MAIL_PER_CLIENT="3/minute",
        RATE_LIMIT_MAIL_WHOLE_SITE="100/hour",
        TRUSTED_PROXIES=1,
        **overrides,
    )


@pytest.fixture
def behind_a_proxy(database_url: str) -> Iterator[Flask]:
    app = _app(database_url)
    yield app
    with get_engine(app).begin() as connection:
        for table in reversed(SQLModel.metadata.sorted_tables):
            connection.execute(table.delete())
    get_engine(app).dispose()


def _new_games(app: Flask, peer: str, forwarded_for: list[str]) -> list[int]:
    client = app.test_client()
    return [
        client.post(
            "/games/new",
            data={**VALID_FORM, "a_email": f"p{n}@example.net"},
            environ_base={"REMOTE_ADDR": peer},
            headers={"X-Forwarded-For": address},
        ).status_code
        for n, address in enumerate(forwarded_for)
    ]


def test_a_direct_client_cannot_rotate_x_forwarded_for(behind_a_proxy: Flask) -> None:
    rotating = [f"198.51.100.{n}" for n in range(5)]
    assert _new_games(behind_a_proxy, "203.0.113.9", rotating) == [303] * 3 + [429] * 2


def test_the_proxy_says_who_the_client_is(behind_a_proxy: Flask) -> None:
    """From the proxy (on this machine by default), each client is counted as itself."""
    clients = [f"198.51.100.{n}" for n in range(5)]
    assert _new_games(behind_a_proxy, "127.0.0.1", clients) == [303] * 5
    assert _new_games(behind_a_proxy, "127.0.0.1", ["192.0.2.1"] * 4)[-1] == 429


def test_a_named_proxy_network(database_url: str) -> None:
    app = _app(database_url, FORWARDED_ALLOW_IPS="10.0.0.0/8, 192.0.2.5")
    try:
        clients = [f"198.51.100.{n}" for n in range(4)]
        assert _new_games(app, "10.1.2.3", clients) == [303] * 4
        assert _new_games(app, "127.0.0.1", clients)[-1] == 429  # not named here
    finally:
        with get_engine(app).begin() as connection:
            for table in reversed(SQLModel.metadata.sorted_tables):
                connection.execute(table.delete())
        get_engine(app).dispose()


def test_production_refuses_to_trust_any_peer(tmp_path: Path) -> None:
    config = config_from_env(str(tmp_path), {**PRODUCTION, "FORWARDED_ALLOW_IPS": "*"})
    with pytest.raises(ConfigError, match="FORWARDED_ALLOW_IPS"):
        check_config(config)
    # Any other environment may (a test behind a local proxy); and a named proxy is fine.
    check_config(
        config_from_env(
            str(tmp_path), {**PRODUCTION, "APP_ENV": "testing", "FORWARDED_ALLOW_IPS": "*"}
        )
    )


@pytest.mark.parametrize("value", ["10.0.0.300", "proxy.internal", "10.0.0.5;10.0.0.6"])
def test_forwarded_allow_ips_must_name_addresses(tmp_path: Path, value: str) -> None:
    config = config_from_env(str(tmp_path), {**PRODUCTION, "FORWARDED_ALLOW_IPS": value})
    with pytest.raises(ConfigError, match="not an IP address"):
        check_config(config)


def _gunicorn_settings() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gunicorn_settings", REPO / "gunicorn.conf.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("command_line", "environment", "starts"),
    [
        (["127.0.0.1", "::1"], None, True),
        (["10.0.0.5"], "10.0.0.5", True),
        (["10.0.0.0/8"], " 10.0.0.0/8", True),
        (["10.0.0.5"], None, False),
        (["*"], "127.0.0.1", False),
    ],
)
def test_gunicorn_and_the_app_trust_the_same_proxies(
    monkeypatch: pytest.MonkeyPatch, command_line: list[str], environment: str | None, starts: bool
) -> None:
    settings = _gunicorn_settings()
    monkeypatch.setenv("TRUSTED_PROXIES", "1")
    if environment is None:
        monkeypatch.delenv("FORWARDED_ALLOW_IPS", raising=False)
    else:
        monkeypatch.setenv("FORWARDED_ALLOW_IPS", environment)
    server = SimpleNamespace(cfg=SimpleNamespace(forwarded_allow_ips=command_line))
    if starts:
        settings.on_starting(server)
    else:
        with pytest.raises(RuntimeError, match="FORWARDED_ALLOW_IPS"):
            settings.on_starting(server)


def test_gunicorn_refuses_a_proxy_named_on_its_command_line_only(tmp_path: Path) -> None:
    gunicorn = Path(sys.executable).with_name("gunicorn")
    result = subprocess.run(
        [str(gunicorn), "--config", str(REPO / "gunicorn.conf.py"), "--chdir", str(REPO),
         "--forwarded-allow-ips", "10.0.0.5", "--bind", "127.0.0.1:0", "service:create_app()"],
        env={"PATH": "/usr/bin:/bin", "TRUSTED_PROXIES": "1", "HOME": str(tmp_path)},
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert result.returncode != 0
    assert "set FORWARDED_ALLOW_IPS in the environment" in result.stdout + result.stderr
