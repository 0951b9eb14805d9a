"""The real ways in of play by reply, for the worker tests: the SMTP receiver as its own process
(``flask --app service inbound smtp``), a dovecot IMAP server of the test's own, and a player who
answers every email that asks for a move with a whole turn, replying as a mail program does."""

from __future__ import annotations

import email.message
import email.policy
import email.utils
import grp
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from flask import Flask
from sqlmodel import select

import engine
from service.db import session_scope
from service.games.loaded import load_game
from service.games.state import load_state
from service.models import GameStatus
from service.outbox.models import OutboxMessage
from tests.worker.conftest import REPO, Stack, free_port, wait_for

FLASK = Path(sys.executable).with_name("flask")
IMAP_USER = "play@localhost"
IMAP_PASSWORD = "secret-for-the-tests"


@dataclass
class ReplyStack(Stack):
    """A stack whose processes (worker, beat, receiver) also get the play-by-reply settings."""

    inbound: dict[str, str] = field(default_factory=dict)

    def env(self) -> dict[str, str]:
        return {**super().env(), **self.inbound}


def _port_open(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


class SMTPReceiver:
    """``flask --app service inbound smtp`` as a process of its own, on a free port."""

    def __init__(self, stack: Stack, log: Path) -> None:
        self.port = free_port()
        self.stack = stack
        self.log = log
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        env = {**os.environ, **self.stack.env(), "INBOUND_SMTP_PORT": str(self.port)}
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen(
                [str(FLASK), "--app", "service", "inbound", "smtp"],
                cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
            )  # fmt: skip
        wait_for(self._ready, 30, f"the SMTP receiver on port {self.port} (log: {self.log})")

    def _ready(self) -> bool:
        assert self.process is not None
        if self.process.poll() is not None:
            pytest.fail(f"the SMTP receiver exited:\n{self.log.read_text()[-3000:]}", pytrace=False)
        return _port_open(self.port)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=10)
        self.process = None


def _dovecot_config(folder: Path, port: int) -> str:
    return f"""protocols = imap
listen = 127.0.0.1
base_dir = {folder}/run
state_dir = {folder}/run
log_path = {folder}/dovecot.log
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
default_internal_user = dovecot
default_internal_group = dovecot
default_login_user = dovenull
first_valid_uid = 1
passdb {{
  driver = passwd-file
  args = scheme=PLAIN {folder}/users
}}
userdb {{
  driver = static
  args = uid=dovecot gid=dovecot home={folder}/mail/%u
}}
mail_location = maildir:~/Maildir
service imap-login {{
  inet_listener imap {{
    address = 127.0.0.1
    port = {port}
  }}
}}
"""


class Dovecot:
    """Debian's dovecot as an IMAP server of one test (a config of our own in a
    temporary folder, its own port; it daemonizes, and is stopped by its master's pid)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.port = free_port()

    def start(self) -> None:
        binary = shutil.which("dovecot") or "/usr/sbin/dovecot"
        missing = []
        if not Path(binary).exists():
            missing.append("the dovecot binary (apt-get install -y dovecot-imapd)")
        for user in ("dovecot", "dovenull"):
            try:
                pwd.getpwnam(user)
            except KeyError:
                missing.append(f"the system user {user!r} (made by the dovecot-core package)")
        if os.geteuid() != 0:
            missing.append("root, to start dovecot with a configuration of its own")
        if missing:
            pytest.fail(
                "The IMAP tests need Debian's dovecot; missing: " + "; ".join(missing)
                + ". scripts/services.sh installs it when run as root.",
                pytrace=False,
            )  # fmt: skip
        (self.folder / "run").mkdir()
        (self.folder / "mail").mkdir()
        (self.folder / "users").write_text(f"{IMAP_USER}:{{PLAIN}}{IMAP_PASSWORD}\n")
        (self.folder / "dovecot.conf").write_text(_dovecot_config(self.folder, self.port))
        # mkdtemp makes 0700 folders: the dovecot users must enter it for their mail and the
        # users file (the folder is in /tmp itself, not in pytest's own 0700 folders).
        self.folder.chmod(0o755)
        (self.folder / "users").chmod(0o644)
        uid, gid = pwd.getpwnam("dovecot").pw_uid, grp.getgrnam("dovecot").gr_gid
        os.chown(self.folder / "mail", uid, gid)
        # Not captured through pipes: the daemon would keep them open, and the wait would never
        # end.
        with open(self.folder / "start.log", "wb") as log:
            result = subprocess.run(
                [binary, "-c", str(self.folder / "dovecot.conf")],
                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, timeout=30,
            )  # fmt: skip
        if result.returncode != 0:
            started = (self.folder / "start.log").read_text(errors="replace")
            pytest.fail(f"dovecot did not start: {started}{self._log()}", pytrace=False)
        wait_for(lambda: _port_open(self.port), 20, f"dovecot on port {self.port}{self._log()}")

    def _log(self) -> str:
        log = self.folder / "dovecot.log"
        return f"\n{log.read_text()[-2000:]}" if log.exists() else ""

    def stop(self) -> None:
        pid_file = self.folder / "run" / "master.pid"
        if not pid_file.exists():
            return
        pid = int(pid_file.read_text().split()[0])
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.05)
        os.kill(pid, signal.SIGKILL)

    def settings(self) -> dict[str, str]:
        return {
            "INBOUND_IMAP_HOST": "127.0.0.1",
            "INBOUND_IMAP_PORT": str(self.port),
            "INBOUND_IMAP_SSL": "0",
            "INBOUND_IMAP_USER": IMAP_USER,
            "INBOUND_IMAP_PASSWORD": IMAP_PASSWORD,
            "INBOUND_IMAP_TIMEOUT_S": "10",
        }


@pytest.fixture
def dovecot() -> Iterator[Dovecot]:
    folder = Path(tempfile.mkdtemp(prefix="battleline-dovecot-"))
    server = Dovecot(folder)
    try:
        server.start()
        yield server
    finally:
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)


# ------------------------------------------------------------------------------ the player


def turn_text(state: engine.GameState) -> str:
    """A whole turn for the player to move, as short codes: the first card to the first flag
    it may go to, then the first draw (or ``end``) after it; a pass and its draw; or the first
    legal move alone (a Mud discard, a Scout draw: the turn goes on, and the receipt asks for
    the rest)."""
    moves = engine.legal_moves(state)
    first = next((m for m in moves if m.action is engine.Action.PLAY), None)
    if first is None:
        first = next((m for m in moves if m.action is engine.Action.PASS), moves[0])
    codes = [first.action_text()]
    if first.action in (engine.Action.PLAY, engine.Action.PASS):
        endings = engine.turn_endings(state, first)
        if endings:
            end = endings[0]
            codes.append(str(end.deck) if end.action is engine.Action.DRAW else "end")
    if first.action is engine.Action.DRAW:
        return str(first.deck)
    return " ".join(codes)


GMAIL_ATTRIBUTION = "On a day in January, Battle Line by mail wrote:"


def reply_to(
    message: email.message.EmailMessage, text: str, *, attribution: str = GMAIL_ATTRIBUTION
) -> bytes:
    """The recipient's reply to an email that arrived: From its To, To its Reply-To, threaded
    after it, the text above the quoted email under ``attribution`` (as Gmail writes it)."""
    reply = email.message.EmailMessage(policy=email.policy.SMTP)
    reply["From"] = str(message["To"])
    reply["To"] = str(message["Reply-To"])
    reply["Subject"] = f"Re: {message['Subject']}"
    reply["Date"] = email.utils.format_datetime(email.utils.localtime())
    reply["Message-ID"] = email.utils.make_msgid(domain="mail.example.org")
    reply["In-Reply-To"] = str(message["Message-ID"])
    references = str(message.get("References", "")).split()
    reply["References"] = " ".join([*references, str(message["Message-ID"])])
    body = message.get_body(("plain",))
    quoted = ""
    if body is not None:
        content = body.get_content()
        quoted = "\n".join(f"> {line}".rstrip() for line in str(content).splitlines())
    reply.set_content(f"{text}\n\n{attribution}\n{quoted}\n")
    return reply.as_bytes()


ASKING_KINDS = frozenset({"your_turn", "reply_receipt"})
"""The emails a player answers with a move: the turn's email, and a receipt that says the turn
goes on."""


@dataclass
class Asked:
    """What an arrived email asks of its recipient: a whole turn (``text``), or nothing."""

    text: str | None
    kind: str


def what_it_asks(web: Flask, message: email.message.EmailMessage) -> Asked:
    """The move the recipient makes in reply to ``message``: if it is an email of a game whose
    position is still the one it was written at, and that position is the recipient's turn."""
    with web.app_context(), session_scope() as session:
        row = session.exec(
            select(OutboxMessage).where(OutboxMessage.message_id == str(message["Message-ID"]))
        ).one()
        if row.game_id is None or row.ply is None:
            return Asked(None, row.kind)
        loaded = load_game(session, row.game_id)
        game = loaded.game
        if game.status != GameStatus.ACTIVE or game.ply != row.ply:
            return Asked(None, row.kind)
        if row.kind not in ASKING_KINDS:
            return Asked(None, row.kind)
        state = load_state(session, loaded)
        _, player = loaded.seats[state.to_move]
        if player.email != row.recipient:
            return Asked(None, row.kind)
        return Asked(turn_text(state), row.kind)


def play_by_replies(
    web: Flask,
    next_message: Callable[[], email.message.EmailMessage],
    send_reply: Callable[[email.message.EmailMessage, bytes], None],
    *,
    max_replies: int = 400,
) -> dict[str, int]:
    """Answer every email that asks for a move, until both game-over emails arrived. Returns
    how many emails of each kind arrived (and ``replies``: how many were sent)."""
    kinds: dict[str, int] = {"replies": 0}
    over = 0
    while over < 2:
        message = next_message()
        asked = what_it_asks(web, message)
        kinds[asked.kind] = kinds.get(asked.kind, 0) + 1
        if asked.kind == "game_over":
            over += 1
        if asked.text is not None:
            kinds["replies"] += 1
            assert kinds["replies"] <= max_replies, "the game does not end"
            send_reply(message, reply_to(message, asked.text))
    return kinds
