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
    clean_env.setenv("APP_ENV", "development")
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
    clean_env.setenv("APP_ENV", "development")
    clean_env.setenv("TOKEN_MAX_AGE_DAYS", "14")
    with pytest.raises(ConfigError, match="TOKEN_MAX_AGE_DAYS"):
        create_app()


# --- failing closed (issue: production fails open) ---------------------------------------------


def test_unset_app_env_is_production(clean_env: pytest.MonkeyPatch) -> None:
    """Production settings with APP_ENV forgotten: no development secret, no outbox page."""
    clean_env.setenv("BASE_URL", "https://battleline.example")
    with pytest.raises(ConfigError, match="needs SECRET_KEY"):
        create_app()
    clean_env.setenv("SECRET_KEY", GOOD_KEY)
    app = create_app()
    assert app.config["APP_ENV"] == "production"
    assert app.config["SECRET_KEY"] == GOOD_KEY
    assert app.config["SESSION_COOKIE_SECURE"] is True
    assert "outbox.outbox_list" not in app.view_functions
    assert app.test_client().get("/dev/outbox").status_code == 404
    get_engine(app).dispose()


@pytest.mark.parametrize("value", ["prod", "dev", "Production ", "staging", "debug"])
def test_unknown_app_env_is_refused(clean_env: pytest.MonkeyPatch, value: str) -> None:
    clean_env.setenv("APP_ENV", value)
    clean_env.setenv("SECRET_KEY", GOOD_KEY)
    clean_env.setenv("BASE_URL", "https://battleline.example")
    if value.strip().lower() == "production":
        create_app()  # the same word with other case or spaces is still production
        return
    with pytest.raises(ConfigError, match="is not one of"):
        create_app()


@pytest.mark.parametrize("fallback", ["x", "short-old-key", DEVELOPMENT_SECRET_KEY])
def test_production_refuses_weak_fallback_keys(
    clean_env: pytest.MonkeyPatch, fallback: str
) -> None:
    clean_env.setenv("SECRET_KEY", GOOD_KEY)
    clean_env.setenv("SECRET_KEY_FALLBACKS", f"{'o' * 40},{fallback}")
    clean_env.setenv("BASE_URL", "https://battleline.example")
    with pytest.raises(ConfigError, match="SECRET_KEY_FALLBACKS"):
        create_app()


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"APP_ENV": "development", "BASE_URL": "https://battleline.games"}, "loopback"),
        ({"APP_ENV": "testing", "SECRET_KEY": GOOD_KEY, "BASE_URL": "http://10.1.2.3"}, "loopback"),
        ({"APP_ENV": "testing", "BASE_URL": "http://bl.test"}, "needs SECRET_KEY"),
        (
            {"APP_ENV": "development", "DATABASE_URL": "postgresql+psycopg://u@db.example/x"},
            "embedded default",
        ),
    ],
)
def test_development_runs_only_where_nobody_else_can_reach_it(
    clean_env: pytest.MonkeyPatch, env: dict[str, str], message: str
) -> None:
    for name, value in env.items():
        clean_env.setenv(name, value)
    with pytest.raises(ConfigError, match=message):
        create_app()


@pytest.mark.parametrize(
    "base_url", ["http://127.0.0.1:5055", "http://localhost:5000", "http://[::1]:5000"]
)
def test_development_on_loopback_starts(clean_env: pytest.MonkeyPatch, base_url: str) -> None:
    clean_env.setenv("APP_ENV", "development")
    clean_env.setenv("BASE_URL", base_url)
    app = create_app()
    assert "outbox.outbox_list" in app.view_functions
    assert app.config["SESSION_COOKIE_SECURE"] is False
    get_engine(app).dispose()
