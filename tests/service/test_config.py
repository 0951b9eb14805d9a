"""Settings from the environment, and the refusal to start production unsafely."""

from __future__ import annotations

from pathlib import Path

import pytest

from service import create_app
from service.config import DEVELOPMENT_SECRET_KEY, ConfigError, config_from_env
from service.db import get_engine
from service.secret_keys import MIN_KEY_BITS, estimated_bits
from tests.service.conftest import PRODUCTION_TEST_KEY, TEST_SECRET_KEY, make_test_app

GOOD_KEY = PRODUCTION_TEST_KEY
SERVICES = {"REDIS_URL": "redis://127.0.0.1:9/0", "MAIL_SERVER": "smtp.battleline.example"}
"""What production needs besides its secrets (DATABASE_URL is set by ``clean_env``)."""


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> pytest.MonkeyPatch:
    for name in (
        "APP_ENV",
        "SECRET_KEY",
        "SECRET_KEY_FALLBACKS",
        "BASE_URL",
        "TOKEN_MAX_AGE_DAYS",
        "REDIS_URL",
        "MAIL_SERVER",
        "MAIL_SUPPRESS_SEND",
        "EMBEDDED_BEAT",
    ):
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
    config = config_from_env(str(tmp_path), {"APP_ENV": "development"})
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
    _give_services(clean_env)
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
    _give_services(clean_env)
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
    _give_services(clean_env)
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


# --- production cannot start wrong (issue 22, item 2) --------------------------------------------


def _give_services(env: pytest.MonkeyPatch) -> None:
    for name, value in SERVICES.items():
        env.setenv(name, value)


def _production(env: pytest.MonkeyPatch, **settings: str) -> None:
    env.setenv("APP_ENV", "production")
    env.setenv("SECRET_KEY", GOOD_KEY)
    env.setenv("BASE_URL", "https://battleline.example")
    _give_services(env)
    for name, value in settings.items():
        env.setenv(name, value)


@pytest.mark.parametrize("missing", ["MAIL_SERVER", "DATABASE_URL", "REDIS_URL"])
def test_production_refuses_to_start_without_its_services(
    clean_env: pytest.MonkeyPatch, missing: str
) -> None:
    """Without MAIL_SERVER every email was dropped and marked sent; without DATABASE_URL it ran
    on a SQLite file; without REDIS_URL each process kept its own limits."""
    _production(clean_env)
    clean_env.delenv(missing)
    with pytest.raises(ConfigError, match=f"needs {missing}"):
        create_app()


def test_production_refuses_to_drop_mail_even_with_a_server(clean_env: pytest.MonkeyPatch) -> None:
    _production(clean_env, MAIL_SUPPRESS_SEND="1")
    with pytest.raises(ConfigError, match="MAIL_SERVER"):
        create_app()


@pytest.mark.parametrize("key", ["a" * 32, " " * 32, "password" * 4, "password" * 12, "k" * 48])
def test_production_refuses_keys_without_entropy(clean_env: pytest.MonkeyPatch, key: str) -> None:
    _production(clean_env, SECRET_KEY=key)
    with pytest.raises(ConfigError, match="SECRET_KEY to be random"):
        create_app()
    _production(clean_env, SECRET_KEY=GOOD_KEY, SECRET_KEY_FALLBACKS=key.replace(" ", "_"))
    with pytest.raises(ConfigError, match="SECRET_KEY_FALLBACKS key to be random"):
        create_app()


def test_random_keys_have_the_entropy_production_asks_for() -> None:
    import secrets

    for _ in range(200):
        assert estimated_bits(secrets.token_urlsafe(48)) >= MIN_KEY_BITS
        assert estimated_bits(secrets.token_hex(32)) >= MIN_KEY_BITS
    assert estimated_bits(GOOD_KEY) >= MIN_KEY_BITS


@pytest.mark.parametrize(
    ("database_url", "local"),
    [
        ("postgresql+psycopg://app:pw@db.internal.example:5432/battleline", False),
        ("postgresql+psycopg://app@10.0.0.7/battleline", False),
        ("postgres://app@prod-db.example.com/battleline", False),
        ("postgresql+psycopg://postgres@127.0.0.1:5432/x", True),
        ("postgresql+psycopg://postgres@localhost/x", True),
        ("postgresql+psycopg://postgres@[::1]/x", True),
        ("postgresql+psycopg:///x", True),
        ("postgresql+psycopg:///x?host=/var/run/postgresql", True),
        ("postgresql+psycopg://u@/x?host=db.example", False),
    ],
)
def test_testing_runs_only_on_a_local_database(
    clean_env: pytest.MonkeyPatch, database_url: str, local: bool
) -> None:
    clean_env.setenv("APP_ENV", "testing")
    clean_env.setenv("SECRET_KEY", TEST_SECRET_KEY)
    clean_env.setenv("BASE_URL", "http://bl.test")
    clean_env.setenv("DATABASE_URL", database_url)
    if local:
        get_engine(create_app()).dispose()
    else:
        with pytest.raises(ConfigError, match="APP_ENV=testing runs only on SQLite"):
            create_app()


def test_testing_refuses_a_short_key(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("APP_ENV", "testing")
    clean_env.setenv("SECRET_KEY", "fourteen-chars")
    clean_env.setenv("BASE_URL", "http://bl.test")
    with pytest.raises(ConfigError, match="APP_ENV=testing needs every SECRET_KEY to be at least"):
        create_app()


def test_the_outbox_is_served_only_to_this_machine(tmp_path: Path) -> None:
    """The outbox shows every player's links: never to a public host name or another machine."""
    app = make_test_app(f"sqlite:///{tmp_path / 'x.sqlite3'}")
    from service.db import upgrade_schema

    upgrade_schema(app.config["DATABASE_URL"])
    client = app.test_client()
    try:
        assert client.get("/dev/outbox").status_code == 200
        assert client.get("/dev/outbox", base_url="http://127.0.0.1:5000").status_code == 200
        assert client.get("/dev/outbox", base_url="http://bl.test").status_code == 200
        for base_url in ("http://battleline.example.org", "http://203.0.113.9"):
            assert client.get("/dev/outbox", base_url=base_url).status_code == 404, base_url
        outside = {"REMOTE_ADDR": "203.0.113.9"}
        assert client.get("/dev/outbox", environ_base=outside).status_code == 404
        assert client.post("/dev/outbox/1/reply", environ_base=outside).status_code == 404
        # The rest of a test server still answers other addresses (the limit tests need them).
        assert client.get("/healthz", environ_base=outside).status_code == 200
    finally:
        get_engine(app).dispose()


def test_development_refuses_requests_from_another_machine(clean_env: pytest.MonkeyPatch) -> None:
    """``flask run --host 0.0.0.0``: the embedded default reached from outside says so."""
    clean_env.setenv("APP_ENV", "development")
    app = create_app()
    try:
        client = app.test_client()
        outside = client.get("/games", environ_base={"REMOTE_ADDR": "192.0.2.4"})
        assert outside.status_code == 403
        assert "development server" in outside.get_data(as_text=True)
        assert client.get("/healthz").status_code == 200
    finally:
        get_engine(app).dispose()


@pytest.mark.parametrize(
    ("host", "starts"),
    [
        ("0.0.0.0", False),
        ("192.0.2.4", False),
        ("::", False),
        ("127.0.0.1", True),
        ("localhost", True),
    ],
)
def test_development_refuses_to_start_on_a_public_bind(
    clean_env: pytest.MonkeyPatch, host: str, starts: bool
) -> None:
    """``flask run --host 0.0.0.0`` with APP_ENV=development: refused at start."""
    import click

    clean_env.setenv("APP_ENV", "development")
    clean_env.setenv("EMBEDDED_BEAT", "0")  # it would start in `flask run`: not here
    context = click.Context(click.Command("run"), info_name="run")
    context.params = {"host": host, "port": 5000}
    with context:
        if starts:
            get_engine(create_app()).dispose()
        else:
            with pytest.raises(ConfigError, match="only on a loopback address"):
                create_app()
