"""Beat's schedule in the server process on the embedded default (service.embedded_beat): which
process runs it (only the one serving ``flask run``, never the reloader's watcher, another
command, tests or production), one at a time per database, the schedule beat runs, and the
settings of the embedded default (its computer's delay, the short game clock tests use)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import click
import pytest
from flask import Flask

from service import create_app, embedded_beat
from service.config import ConfigError, config_from_env
from service.db import get_engine, upgrade_schema
from service.embedded_beat import EmbeddedBeat, lock_path, serves_flask_run
from service.mail import delivery
from tests.service.conftest import PRODUCTION_TEST_KEY, make_test_app

WAIT_S = 30.0
"""How long a test waits for the thread before it fails (a guard, not a measurement)."""


def in_command(name: str, params: dict[str, object], environ: dict[str, str]) -> bool:
    """``serves_flask_run`` as the app factory sees it while the command ``name`` loads it."""
    context = click.Context(click.Command(name), info_name=name)
    context.params = params
    with context:
        return serves_flask_run(environ)


@pytest.mark.parametrize(
    ("name", "params", "environ", "serves"),
    [
        # `flask run --debug`: the watcher loads the app, then starts the server process.
        ("run", {"reload": None}, {"FLASK_DEBUG": "1"}, False),
        ("run", {"reload": None}, {"FLASK_DEBUG": "1", "WERKZEUG_RUN_MAIN": "true"}, True),
        ("run", {"reload": True}, {}, False),
        ("run", {"reload": True}, {"WERKZEUG_RUN_MAIN": "true"}, True),
        # Without the reloader the one process serves.
        ("run", {"reload": False}, {"FLASK_DEBUG": "1"}, True),
        ("run", {"reload": None}, {}, True),
        # Any other command loads the app without serving it.
        ("upgrade", {}, {}, False),
        ("sweep", {}, {"WERKZEUG_RUN_MAIN": "true"}, False),
    ],
)
def test_only_the_process_serving_flask_run_runs_the_schedule(
    name: str,
    params: dict[str, object],
    environ: dict[str, str],
    serves: bool,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("FLASK_DEBUG", raising=False)
    for key, value in environ.items():
        monkeypatch.setenv(key, value)
    assert in_command(name, params, environ) is serves


def test_outside_the_flask_command_nothing_runs_the_schedule() -> None:
    # gunicorn, the worker, the tests: no click command at all.
    assert serves_flask_run({"WERKZEUG_RUN_MAIN": "true"}) is False


def settings(app_env: str, **env: str) -> dict[str, object]:
    return config_from_env("/nowhere", {"APP_ENV": app_env, **env})


def test_the_embedded_default_runs_the_schedule_and_nothing_else_does() -> None:
    assert settings("development")["EMBEDDED_BEAT"] is True
    assert settings("development", REDIS_URL="redis://127.0.0.1:6379/0")["EMBEDDED_BEAT"] is False
    assert settings("development", EMBEDDED_BEAT="0")["EMBEDDED_BEAT"] is False
    assert settings("testing")["EMBEDDED_BEAT"] is False
    assert settings("production")["EMBEDDED_BEAT"] is False


def test_the_schedule_is_refused_in_the_web_process_when_beat_runs(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="EMBEDDED_BEAT"):
        make_test_app(
            f"sqlite:///{tmp_path / 'x.sqlite3'}",
            EMBEDDED_BEAT=True,
            REDIS_URL="redis://127.0.0.1:6379/0",
        )


def test_the_computer_waits_seconds_on_the_embedded_default_and_minutes_elsewhere() -> None:
    assert settings("development")["COMPUTER_DELAY_S"] == 3
    assert settings("production")["COMPUTER_DELAY_S"] == 300
    assert settings("testing")["COMPUTER_DELAY_S"] == 300
    assert settings("development", COMPUTER_DELAY_S="0")["COMPUTER_DELAY_S"] == 0


def test_only_a_server_that_is_not_production_may_shorten_the_game_day(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    assert settings("production")["GAME_DAY_S"] == 86400
    assert settings("testing", GAME_DAY_S="30")["GAME_DAY_S"] == 30
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'x.sqlite3'}")
    monkeypatch.setenv("APP_ENV", "production")
    monkeypatch.setenv("SECRET_KEY", PRODUCTION_TEST_KEY)
    monkeypatch.setenv("BASE_URL", "https://battleline.example")
    monkeypatch.setenv("GAME_DAY_S", "30")
    with pytest.raises(ConfigError, match="GAME_DAY_S"):
        create_app()


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Flask]:
    """An app on a SQLite file of its own, the outbox swept every 10 ms."""
    url = f"sqlite:///{tmp_path / 'beat.sqlite3'}"
    upgrade_schema(url)
    # Its Celery app reads the schedule from these settings, as beat does.
    app = make_test_app(url, MAIL_SWEEP_EVERY_S=0.01)
    yield app
    get_engine(app).dispose()


@pytest.fixture
def sweeps(monkeypatch: pytest.MonkeyPatch) -> threading.Semaphore:
    """Released once per outbox sweep the schedule runs."""
    done = threading.Semaphore(0)
    real = delivery.sweep

    def counted(*args: object, **kwargs: object) -> delivery.SweepReport:
        report = real(*args, **kwargs)  # type: ignore[arg-type]
        done.release()
        return report

    monkeypatch.setattr(delivery, "sweep", counted)
    return done


def test_the_thread_runs_beat_s_own_schedule(app: Flask, sweeps: threading.Semaphore) -> None:
    beat = EmbeddedBeat(app, lock_path(app))
    beat.start()
    try:
        assert beat.running.wait(WAIT_S)
        # The sweep of beat_schedule (worker.celery_config) runs, again and again.
        for _ in range(3):
            assert sweeps.acquire(timeout=WAIT_S)
    finally:
        beat.stop()
    assert not beat.running.is_set()


def test_one_scheduler_per_database_and_the_next_takes_over(
    app: Flask, sweeps: threading.Semaphore
) -> None:
    first = EmbeddedBeat(app, lock_path(app))
    second = EmbeddedBeat(app, lock_path(app))
    first.start()
    assert first.running.wait(WAIT_S)
    second.start()
    try:
        # The second waits for the lock while the first runs the schedule.
        assert sweeps.acquire(timeout=WAIT_S) and sweeps.acquire(timeout=WAIT_S)
        assert not second.running.is_set()
        first.stop()
        assert second.running.wait(WAIT_S)
    finally:
        first.stop()
        second.stop()


def test_the_app_factory_starts_no_schedule_outside_flask_run(tmp_path: Path) -> None:
    app = make_test_app(f"sqlite:///{tmp_path / 'x.sqlite3'}", EMBEDDED_BEAT=True)
    assert embedded_beat.init_app(app) is None
    get_engine(app).dispose()


def test_each_database_has_its_own_lock(tmp_path: Path) -> None:
    one = make_test_app(f"sqlite:///{tmp_path / 'one.sqlite3'}")
    two = make_test_app(f"sqlite:///{tmp_path / 'two.sqlite3'}")
    assert lock_path(one) == tmp_path / "one.sqlite3.beat-lock"
    assert lock_path(one) != lock_path(two)
    for app in (one, two):
        get_engine(app).dispose()
