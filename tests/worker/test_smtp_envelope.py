"""The envelope the worker sends (MAIL FROM, RCPT TO): the lines smtplib's own client would send,
though a plain address is quoted without parsing it again
(``service.mail.delivery.smtp.DeadlineSMTP``)."""

from __future__ import annotations

import smtplib
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from service.mail.delivery.smtp import PLAIN_ADDRESS, DeadlineSMTP, Postman, Wire, envelope_address
from tests.service.conftest import make_test_app
from tests.worker.conftest import SMTPServer, wait_for


def _commands(client: type[smtplib.SMTP], address: str, options: tuple[str, ...]) -> list[Any]:
    """The commands ``client`` puts for MAIL FROM and RCPT TO of ``address`` (no server: every
    reply is 250)."""
    sent: list[Any] = []

    class Recording(client):  # type: ignore[misc, valid-type]
        does_esmtp = True

        def putcmd(self, cmd: str, args: str = "") -> None:
            sent.append((cmd, args))

        def getreply(self) -> tuple[int, bytes]:
            return 250, b"OK"

    recording = Recording()
    assert recording.mail(address, options) == (250, b"OK")
    assert recording.rcpt(address, options) == (250, b"OK")
    return sent


ADDRESSES = st.one_of(
    st.from_regex(PLAIN_ADDRESS, fullmatch=True),
    st.text(max_size=30),
    st.builds(lambda name, plain: f"{name} <{plain}>", st.text(max_size=8),
              st.from_regex(PLAIN_ADDRESS, fullmatch=True)),
)  # fmt: skip
OPTIONS = st.sampled_from([(), ("size=2734",), ("size=1", "BODY=8BITMIME")])


@given(address=ADDRESSES, options=OPTIONS)
def test_the_envelope_lines_are_smtplibs_own(address: str, options: tuple[str, ...]) -> None:
    assert _commands(DeadlineSMTP, address, options) == _commands(smtplib.SMTP, address, options)


def test_plain_and_international_addresses_arrive_as_sent(
    database_url: str, smtp: SMTPServer
) -> None:
    """Over a real connection to aiosmtpd: a plain address as it is, an international domain
    as its IDNA form (``envelope_address``)."""
    plain = "o'neil+game-12@example.org"
    international = envelope_address("zoe@bücher.example")
    assert international == "zoe@xn--bcher-kva.example"
    app = make_test_app(
        database_url, MAIL_SERVER="127.0.0.1", MAIL_PORT=smtp.port, MAIL_SUPPRESS_SEND=False
    )
    data = b"From: a@example.org\r\nTo: b@example.org\r\nSubject: envelope\r\n\r\nHello.\r\n"
    with app.app_context(), Postman() as postman:
        postman.send(Wire(plain, plain, data))
        postman.send(Wire(international, international, data))
    wait_for(lambda: len(smtp.mailbox.arrived) == 2, 10, "both emails arriving")
    assert [(a.mail_from, a.rcpt_tos) for a in smtp.mailbox.arrived] == [
        (plain, [plain]),
        (international, [international]),
    ]
