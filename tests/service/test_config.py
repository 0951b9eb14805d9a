"""Settings from the environment, and the refusal to start production unsafely."""

from __future__ import annotations

from pathlib import Path

import pytest

from service import create_app
from service.config import DEVELOPMENT_SECRET_KEY, ConfigError, config_from_env
from service.db import get_engine

GOOD_KEY = "k" * 48


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> pytest.MonkeyPatch:
    for name in ("APP_ENV", "SECRET_KEY", "SECRET_KEY_FALLBACKS", "BASE_URL", "TOKEN_MAX_AGE_DAYS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'unused.sqlite3'}")
    return monkeypatch


def test_development_starts_with_defaults(clean_env: pytest.MonkeyPatch) -> None:
    app = create_app()
    assert app.config["SECRET_KEY"] == DEVELOPMENT_SECRET_KEY
    assert app.config["BASE_URL"] == "http://127.0.0.1:5000"
    assert app.config["MAX_CONTENT_LENGTH"] == 64 * 1024
    get_engine(app).dispose()


def test_default_database_is_sqlite_in_instance(tmp_path: Path) -> None:
    config = config_from_env(str(tmp_path), {})
    assert config["DATABASE_URL"] == f"sqlite:///{tmp_path / 'battleline.sqlite3'}"


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("postgres://u@h/db", "postgresql+psycopg://u@h/db"),
        ("postgresql://u@h/db", "postgresql+psycopg://u@h/db"),
        ("postgresql+psycopg://u@h/db", "postgresql+psycopg://u@h/db"),
    ],
)
def test_postgres_urls_use_psycopg3(tmp_path: Path, given: str, expected: str) -> None:
    assert config_from_env(str(tmp_path), {"DATABASE_URL": given})["DATABASE_URL"] == expected


def test_key_fallbacks_from_env(tmp_path: Path) -> None:
    config = config_from_env(str(tmp_path), {"SECRET_KEY_FALLBACKS": "old1, old2\nold3"})
    assert config["SECRET_KEY_FALLBACKS"] == ["old1", "old2", "old3"]


def test_production_refuses_missing_secret_key(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("APP_ENV", "production")
    clean_env.setenv("BASE_URL", "https://battleline.example")
    with pytest.raises(ConfigError, match="needs SECRET_KEY"):
        create_app()


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"SECRET_KEY": DEVELOPMENT_SECRET_KEY}, "development SECRET_KEY"),
        ({"SECRET_KEY": "short"}, "at least 32"),
        (
            {"SECRET_KEY": GOOD_KEY, "SECRET_KEY_FALLBACKS": DEVELOPMENT_SECRET_KEY},
            "development SECRET_KEY",
        ),
        ({"SECRET_KEY": GOOD_KEY, "BASE_URL": ""}, "needs BASE_URL"),
    ],
)
def test_production_refuses_unsafe_settings(
    clean_env: pytest.MonkeyPatch, env: dict[str, str], message: str
) -> None:
    clean_env.setenv("APP_ENV", "production")
    clean_env.setenv("BASE_URL", "https://battleline.example")
    for name, value in env.items():
        clean_env.setenv(name, value)
    with pytest.raises(ConfigError, match=message):
        create_app()


def test_production_refuses_unsafe_test_config(clean_env: pytest.MonkeyPatch) -> None:
    with pytest.raises(ConfigError, match="development SECRET_KEY"):
        create_app({"APP_ENV": "production", "SECRET_KEY": DEVELOPMENT_SECRET_KEY})


def test_production_starts_with_a_real_key(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("APP_ENV", "production")
    clean_env.setenv("SECRET_KEY", GOOD_KEY)
    clean_env.setenv("BASE_URL", "https://battleline.example")
    app = create_app()
    assert app.config["BASE_URL"] == "https://battleline.example"
    get_engine(app).dispose()


def test_links_must_outlive_the_longest_turn(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("TOKEN_MAX_AGE_DAYS", "14")
    with pytest.raises(ConfigError, match="TOKEN_MAX_AGE_DAYS"):
        create_app()
