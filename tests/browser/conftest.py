"""Fixtures for the browser tests: the real service on a free 127.0.0.1 port, Debian's chromium
driven by Playwright, and screenshots of each step.

- ``live_server``: ``create_app`` on a fresh, migrated SQLite file, served by werkzeug's
  ``make_server`` (threaded) in a background thread of the test process. Mail runs in the
  embedded eager mode (no Redis, nothing sent): every email is on the /dev/outbox page, with
  links to this server.
- ``browser``: Debian's chromium at /usr/bin/chromium, headless, launched by Playwright (which
  cannot download its own browsers here). A missing chromium fails the tests with what
  to install: they never skip.
- ``shots``: saves a full-page screenshot of a page at a phone width (390) and a desktop width
  (1280) under test-artefacts/browser/ (gitignored).
- ``axe``: axe-core (``AXE_VERSION``, from the npm registry by ``npm pack``, kept under .cache/,
  gitignored) run in a page: its WCAG 2.1 A and AA violations.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tarfile
import tempfile
import threading
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from playwright.sync_api import Browser, BrowserContext, Page, Playwright, sync_playwright
from werkzeug.serving import BaseWSGIServer, make_server

from service import create_app
from service.db import get_engine, upgrade_schema

REPO = Path(__file__).resolve().parents[2]
ARTEFACTS = REPO / "test-artefacts" / "browser"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}


@dataclass
class LiveServer:
    """The service running in this process, and the Flask app behind it (to reach its
    database from the test, as an operator's command would)."""

    app: Flask
    url: str


@pytest.fixture(scope="session")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    database = tmp_path_factory.mktemp("browser") / "service.sqlite3"
    url = f"sqlite:///{database}"
    upgrade_schema(url)
    app = create_app(
        {
            "APP_ENV": "testing",
            "DATABASE_URL": url,
            "SECRET_KEY": "browser-test-secret-key-of-the-live-server",
            "SECRET_KEY_FALLBACKS": [],
            # The embedded default whatever the environment says: tasks run eagerly in the web
            # process and every email stays in the outbox.
            "REDIS_URL": None,
            "MAIL_SUPPRESS_SEND": True,
            "BASE_URL": "http://127.0.0.1",  # replaced below, once the port is known
        }
    )
    server: BaseWSGIServer = make_server("127.0.0.1", 0, app, threaded=True)
    # Links in emails are built from BASE_URL at request time.
    app.config["BASE_URL"] = f"http://127.0.0.1:{server.port}"
    thread = threading.Thread(target=server.serve_forever, name="live-server", daemon=True)
    thread.start()
    live = LiveServer(app=app, url=app.config["BASE_URL"])
    with urllib.request.urlopen(f"{live.url}/healthz", timeout=5) as response:
        assert response.read() == b"ok", "the service did not answer /healthz"
    yield live
    server.shutdown()
    thread.join(timeout=5)
    server.server_close()
    get_engine(app).dispose()


@pytest.fixture(scope="session")
def playwright() -> Iterator[Playwright]:
    with sync_playwright() as driver:
        yield driver


@pytest.fixture(scope="session")
def browser(playwright: Playwright) -> Iterator[Browser]:
    if not (CHROMIUM.is_file() and os.access(CHROMIUM, os.X_OK)):
        pytest.fail(
            f"The browser tests need Debian's chromium at {CHROMIUM}; it is missing. Install it "
            "with `apt-get install -y chromium` (scripts/services.sh does this when run as "
            "root). Playwright cannot download its own browsers here.",
            pytrace=False,
        )
    chromium = playwright.chromium.launch(
        executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
    )
    yield chromium
    chromium.close()


@pytest.fixture
def browser_contexts(browser: Browser) -> Iterator[tuple[BrowserContext, BrowserContext]]:
    """Two people, two browsers as far as cookies go: one context per seat, at a phone width."""
    contexts = (
        browser.new_context(viewport=PHONE, locale="en-GB"),
        browser.new_context(viewport=PHONE, locale="en-GB"),
    )
    yield contexts
    for context in contexts:
        context.close()


class Shots:
    """Numbered screenshots of the steps of a test, at a phone and a desktop width."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.count = 0
        self.saved: list[Path] = []

    def __call__(self, page: Page, name: str) -> None:
        self.count += 1
        before = page.viewport_size or PHONE
        for label, size in (("390", PHONE), ("desktop", DESKTOP)):
            page.set_viewport_size(size)
            path = self.directory / f"{self.count:02d}-{name}-{label}.png"
            page.screenshot(path=str(path), full_page=True)
            self.saved.append(path)
        page.set_viewport_size(before)


@pytest.fixture(scope="session")
def shots() -> Shots:
    # Only this run's pictures: an old step must not pass for a new one.
    shutil.rmtree(ARTEFACTS, ignore_errors=True)
    ARTEFACTS.mkdir(parents=True)
    return Shots(ARTEFACTS)


AXE_VERSION = "4.14.1"
AXE_SCRIPT = REPO / ".cache" / f"axe-core-{AXE_VERSION}" / "axe.min.js"
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
"""The rules run: WCAG 2.1, levels A and AA."""


def fetch_axe() -> Path:
    """axe-core's browser script, fetched once from the npm registry (``npm pack``) into .cache/:
    the test command brings what the tests need, on a clean clone as here."""
    if AXE_SCRIPT.is_file():
        return AXE_SCRIPT
    npm = shutil.which("npm")
    if npm is None:
        pytest.fail(
            "The accessibility check needs npm to fetch axe-core from the npm registry "
            "(scripts/services.sh installs Debian's npm when run as root).",
            pytrace=False,
        )
    with tempfile.TemporaryDirectory() as folder:
        subprocess.run(
            [npm, "pack", f"axe-core@{AXE_VERSION}", "--pack-destination", folder, "--silent"],
            check=True,
            capture_output=True,
            timeout=120,
        )
        (packed,) = Path(folder).glob("axe-core-*.tgz")
        with tarfile.open(packed) as archive:
            member = archive.extractfile("package/axe.min.js")
            assert member is not None, "axe-core's package has no axe.min.js"
            AXE_SCRIPT.parent.mkdir(parents=True, exist_ok=True)
            partial = AXE_SCRIPT.with_suffix(".part")
            partial.write_bytes(member.read())
            partial.replace(AXE_SCRIPT)
    return AXE_SCRIPT


class Axe:
    """axe-core in a page: ``axe(page)`` is the list of its WCAG 2.1 A/AA violations there, each
    ``{"id", "impact", "help", "nodes"}``. The page's context must bypass the Content-Security-
    Policy (``bypass_csp=True``): our pages allow no script, axe's included."""

    def __init__(self, script: Path) -> None:
        self.script = script

    def __call__(self, page: Page) -> list[dict[str, Any]]:
        page.add_script_tag(path=str(self.script))
        found: list[dict[str, Any]] = page.evaluate(
            """async (tags) => {
                const result = await axe.run(document, {
                    runOnly: {type: "tag", values: tags}, resultTypes: ["violations"]});
                return result.violations.map(v => ({
                    id: v.id, impact: v.impact, help: v.help,
                    nodes: v.nodes.slice(0, 5).map(n => n.target.join(" ") + " -- " + n.html)}));
            }""",
            AXE_TAGS,
        )
        return found


@pytest.fixture(scope="session")
def axe() -> Axe:
    return Axe(fetch_axe())
