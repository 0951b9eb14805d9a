"""Development links follow the host and port actually served (issue 10): a server started with
``flask run --port 5055`` links to :5055 in its pages' redirects and its emails, a worker (no
request) keeps BASE_URL, and a Host header from elsewhere changes nothing."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask

from service import create_app
from service.db import get_engine
from service.links import external_url
from tests.service.conftest import make_test_app

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def dev_app(tmp_path: Path) -> Iterator[Flask]:
    app = create_app(
        {
            "APP_ENV": "development",
            "DATABASE_URL": f"sqlite:///{tmp_path / 'dev.sqlite3'}",
            "BASE_URL": "http://127.0.0.1:5000",
            "REDIS_URL": None,
        }
    )
    yield app
    get_engine(app).dispose()


def test_development_links_follow_the_port_served(dev_app: Flask) -> None:
    with dev_app.test_request_context("/", base_url="http://127.0.0.1:5055"):
        assert external_url("lobby.new_game") == "http://127.0.0.1:5055/games/new"
    with dev_app.test_request_context("/", base_url="http://localhost:8080"):
        assert external_url("lobby.new_game") == "http://localhost:8080/games/new"
    # A worker or a command: no request, the configured address.
    with dev_app.app_context():
        assert external_url("lobby.new_game") == "http://127.0.0.1:5000/games/new"
    # A Host header naming another machine is not followed.
    with dev_app.test_request_context("/", base_url="http://evil.example:5055"):
        assert external_url("lobby.new_game") == "http://127.0.0.1:5000/games/new"


def test_testing_and_production_keep_base_url(tmp_path: Path) -> None:
    app = make_test_app(f"sqlite:///{tmp_path / 't.sqlite3'}")
    with app.test_request_context("/", base_url="http://127.0.0.1:5055"):
        assert external_url("lobby.new_game") == "http://bl.test/games/new"
    get_engine(app).dispose()


def test_scripts_run_installs_what_serving_needs_and_serves_the_port_given() -> None:
    script = (REPO / "scripts" / "run").read_text()
    assert "scripts/venv.sh\n" in script and "venv.sh test" not in script
    assert 'BASE_URL="${BASE_URL:-http://127.0.0.1:$port}"' in script
