"""The embedded default as a newcomer meets it: the real ``scripts/run`` on a free port, driven
over HTTP only, nothing run by hand (issue 20). A game against the computer is played to its end
from the links in /dev/outbox and the private page (the server plays the computer's turns), and a
second game, left alone on a short clock (``GAME_DAY_S``), gets its reminder and is lost on time.
Then ``scripts/flask mail sweep`` works as the README shows it.

The server runs on its own SQLite file; ``RUN_SETTINGS_FILE`` keeps the settings that scripts/run
writes for scripts/flask out of the checkout's ``instance/``. It reuses ``.venv`` as it is."""

from __future__ import annotations

import os
import random
import re
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from html import unescape
from pathlib import Path

import pytest

from tests.service.play_driver import move_submissions, pick

REPO = Path(__file__).resolve().parents[2]
GAME_DAY_S = 30
"""A day of the short clock: a turn of one day lasts 30 s, its reminder comes at half of it."""
START_S = 120.0
"""The longest the server may take to answer its first request (a guard against a hang)."""
GAME_S = 400.0
"""The longest a game may take here (a guard: about a minute on a quiet machine)."""
KEPT_OUT = ("APP_ENV", "BASE_URL", "REDIS_URL", "DATABASE_URL", "EMBEDDED_BEAT", "MAIL_SERVER")


@dataclass
class Server:
    base: str
    log: Path
    env: dict[str, str]

    def get(self, path: str) -> str:
        with urllib.request.urlopen(self.url(path), timeout=30) as response:
            text: str = response.read().decode()
            return text

    def post(self, path: str, data: dict[str, str] | None = None) -> str:
        body = urllib.parse.urlencode(data or {}).encode()
        with urllib.request.urlopen(self.url(path), data=body, timeout=60) as response:
            text: str = response.read().decode()
            return text

    def url(self, path: str) -> str:
        return path if path.startswith("http") else self.base + path


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    port = free_port()
    env = {
        name: value
        for name, value in os.environ.items()
        if name not in KEPT_OUT and not name.startswith(("FLASK_", "WERKZEUG_", "SECRET_KEY"))
    }
    env |= {
        "DATABASE_URL": f"sqlite:///{tmp_path / 'embedded.sqlite3'}",
        "RUN_SETTINGS_FILE": str(tmp_path / "run.env"),
        "GAME_DAY_S": str(GAME_DAY_S),
        "COMPUTER_DELAY_S": "1",
    }
    log = tmp_path / "server.log"
    with open(log, "wb") as out:
        process = subprocess.Popen(
            [str(REPO / "scripts" / "run"), "--port", str(port)],
            cwd=REPO,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its reloader and server process, stopped together
        )
    server = Server(f"http://127.0.0.1:{port}", log, env)
    try:
        deadline = time.monotonic() + START_S
        while True:
            assert process.poll() is None, f"scripts/run stopped:\n{log.read_text()}"
            try:
                server.get("/healthz")
                break
            except (urllib.error.URLError, ConnectionError):
                assert time.monotonic() < deadline, f"no answer:\n{log.read_text()}"
                time.sleep(0.2)
        yield server
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


@dataclass(frozen=True)
class Email:
    id: int
    recipient: str
    kind: str


def outbox(server: Server) -> list[Email]:
    """The rows of /dev/outbox, newest first."""
    found = []
    for row in server.get("/dev/outbox").split("<tr>")[1:]:
        link = re.search(r'href="/dev/outbox/(\d+)"', row)
        cells = [unescape(re.sub(r"<[^>]+>", "", c)).strip() for c in row.split("<td")[1:]]
        if link is None or len(cells) < 4:
            continue
        address = re.search(r"<([^<>]+)>\s*$", cells[1].split(">", 1)[-1])
        kind = cells[3].split(">", 1)[-1].strip()
        found.append(Email(int(link.group(1)), address.group(1) if address else "", kind))
    return found


def links_of(server: Server, email: Email) -> list[str]:
    """The links in the text of an email, as the outbox page shows it."""
    page = server.get(f"/dev/outbox/{email.id}")
    text = page.split('class="mail-text"', 1)[1].split("</pre>", 1)[0]
    return [unescape(link) for link in re.findall(r'href="([^"]+)"', text)]


def start_game_against_the_computer(server: Server, name: str, email: str) -> str:
    """The new-game form against the computer (a turn of one game day, no vacation days), then
    the confirmation email's link and its "Deal the cards" button: the private page's URL."""
    before = {row.id for row in outbox(server)}
    server.post(
        "/games/new",
        {
            "a_name": name,
            "a_email": email,
            "b_computer": "random",
            "ruleset": "battleline",
            "claims": "advanced",
            "days_per_move": "1",
            "vacation_days": "0",
            "visibility": "unlisted",
        },
    )
    [confirmation] = [row for row in outbox(server) if row.id not in before]
    assert confirmation.recipient == email
    private = next(link for link in links_of(server, confirmation) if "/p/" in link)
    # The email links to the port the server runs on.
    assert private.startswith(server.base + "/p/")
    page = server.get(private)
    invite = re.search(r'<form method="post" action="([^"]+/invite)"', page)
    assert invite is not None, page
    server.post(invite.group(1))
    return private


def wait_for(what: str, check: Callable[[], bool], limit_s: float) -> None:
    deadline = time.monotonic() + limit_s
    while not check():
        assert time.monotonic() < deadline, f"{what} did not happen"
        time.sleep(0.5)


def test_scripts_run_plays_against_the_computer_and_keeps_the_clock(server: Server) -> None:
    rng = random.Random(20)
    # Left alone from the start: a reminder at half of its 30 s turn, then the loss on time.
    idle = start_game_against_the_computer(server, "Dora", "dora@example.org")
    played = start_game_against_the_computer(server, "Alice", "alice@example.org")

    told_when = False
    deadline = time.monotonic() + GAME_S
    while "The game is over" not in (page := server.get(played)):
        assert time.monotonic() < deadline, "the game against the computer did not end"
        told_when = told_when or "will play in" in page
        submissions = move_submissions(page, rng)
        if not submissions:  # the computer's turn: the server plays it by itself
            time.sleep(0.2)
            continue
        choice = pick(submissions, rng)
        try:
            server.post(choice.action, choice.data)
        except urllib.error.HTTPError as refused:
            # A random follow-up the turn does not allow: a clear 4xx, and nothing changed.
            assert 400 <= refused.code < 500
    assert told_when, "the page never said when the computer would play"
    kinds = {row.kind for row in outbox(server) if row.recipient == "alice@example.org"}
    assert "game_over" in kinds

    def dora(kind: str) -> bool:
        return any(r.recipient == "dora@example.org" and r.kind == kind for r in outbox(server))

    wait_for("the reminder", lambda: dora("reminder"), 3 * GAME_DAY_S)
    wait_for("the loss on time", lambda: dora("game_over"), 3 * GAME_DAY_S)
    reminder = next(
        r for r in outbox(server) if r.recipient == "dora@example.org" and r.kind == "reminder"
    )
    assert all(link.startswith(server.base) for link in links_of(server, reminder) if "/p/" in link)
    page = server.get(idle)
    assert "The game is over" in page and "Computer (random) won" in page

    # One scheduler, in the server process the reloader started.
    assert server.log.read_text().count("embedded beat started") == 1

    # The README's command, with the settings scripts/run left for it.
    env = {k: v for k, v in server.env.items() if k not in ("DATABASE_URL", "GAME_DAY_S")}
    swept = subprocess.run(
        [str(REPO / "scripts" / "flask"), "mail", "sweep"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert swept.returncode == 0, swept.stderr
    assert "emails sent" in swept.stdout
