"""Poison messages: an email nested too deep (or in too many parts) for the standard library's
parser is kept as dropped and refused for good by the real SMTP receiver (554, in process on a
free port), never answered 451 for the sending server to retry for days. On SQLite and
PostgreSQL (the ``app`` fixture)."""

from __future__ import annotations

import email
import email.policy
import smtplib
import socket
from collections.abc import Iterator

import pytest
from flask import Flask
from hypothesis import given, settings
from hypothesis import strategies as st

from service.inbound import mime_shape, smtp
from service.inbound.outcomes import Outcome
from service.inbound.receive import receive
from tests.service.replies import REPLY_ADDRESS, inbound_rows, nested


def many_parts(count: int) -> bytes:
    raw = b"From: someone@example.org\r\nTo: " + REPLY_ADDRESS.encode() + b"\r\n"
    raw += b'Content-Type: multipart/mixed; boundary="b"\r\n\r\n'
    for _ in range(count):
        raw += b"--b\r\nContent-Type: text/plain\r\n\r\nhi\r\n"
    return raw + b"--b--\r\n"


def test_the_scan_finds_deep_nesting_with_any_line_ending() -> None:
    assert mime_shape.shape_problem(nested(3)) is None
    for newline in (b"\r\n", b"\n", b"\r"):
        assert mime_shape.shape_problem(nested(1000, newline=newline)) is not None
    folded = nested(30).replace(
        b"Content-Type: multipart", b"Content-Type:\r\n" + b" " * 200 + b"multipart"
    )
    assert email.message_from_bytes(folded).get_content_type() == "multipart/mixed"
    assert mime_shape.shape_problem(folded) is not None
    assert mime_shape.shape_problem(many_parts(50)) is None
    assert mime_shape.shape_problem(many_parts(500)) is not None


@settings(max_examples=60, deadline=None)
@given(
    depth=st.integers(min_value=0, max_value=1200),
    newline=st.sampled_from([b"\r\n", b"\n", b"\r"]),
)
def test_every_message_the_scan_lets_through_parses(depth: int, newline: bytes) -> None:
    """The bound holds: what passes the scan never makes the parser recurse too deep."""
    raw = nested(depth, newline=newline)
    if mime_shape.shape_problem(raw) is None:
        message = email.message_from_bytes(raw, policy=email.policy.compat32)
        assert len(list(message.walk())) == depth + 1


def test_a_deep_message_is_kept_as_malformed_once(app: Flask) -> None:
    with app.app_context():
        first = receive(nested(1000))
        again = receive(nested(1000))
    assert first.outcome is Outcome.MALFORMED
    assert again.outcome is Outcome.DUPLICATE
    rows = inbound_rows(app)
    assert [(r.outcome, r.sender) for r in rows] == [("malformed", "someone@example.org")]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def receiver(app: Flask) -> Iterator[smtp.Controller]:
    controller = smtp.receiver(app, host="127.0.0.1", port=_free_port())
    controller.start()
    yield controller
    controller.stop()


def test_the_smtp_receiver_refuses_a_deep_message_for_good(
    app: Flask, receiver: smtp.Controller
) -> None:
    with smtplib.SMTP(receiver.hostname, receiver.port, timeout=30) as client:
        with pytest.raises(smtplib.SMTPDataError) as refused:
            client.sendmail("someone@example.org", [REPLY_ADDRESS], nested(1000))
        # Still talking after the refusal: the next message of the session is taken.
        ordinary = nested(2, message_id=b"<fine@x.example>")
        assert client.sendmail("someone@example.org", [REPLY_ADDRESS], ordinary) == {}
    assert refused.value.smtp_code == 554
    assert [r.outcome for r in inbound_rows(app)] == ["malformed", "unknown_key"]
