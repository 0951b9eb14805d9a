"""The development outbox (embedded mode): the list, each message in full, working links."""

from __future__ import annotations

import html
import re
from pathlib import Path

from flask import Flask
from flask.testing import FlaskClient

from service.db import get_engine
from service.outbox import MailKind
from tests.service.conftest import PRODUCTION_SETTINGS, VALID_FORM, make_test_app
from tests.worker.outbox_rows import get_ok, only_row, path_of

HREF = re.compile(r'href="(http://bl\.test/[^"]+)"')


def test_list_and_message(app: Flask, client: FlaskClient) -> None:
    empty = client.get("/dev/outbox")
    assert empty.status_code == 200 and b"No email yet" in empty.data
    assert client.post("/games/new", data=VALID_FORM).status_code == 303
    row = only_row(app, kind=MailKind.CONFIRM_ADDRESS)
    listing = client.get("/dev/outbox").get_data(as_text=True)
    assert f'href="/dev/outbox/{row.id}"' in listing
    assert html.escape(row.subject) in listing and "alice@example.org" in listing

    page = client.get(f"/dev/outbox/{row.id}").get_data(as_text=True)
    assert row.message_id in html.unescape(page)
    for header in ("List-Unsubscribe", "List-Unsubscribe-Post", "Auto-Submitted"):
        assert header in page
    # The text body with its links made clickable, and the HTML body rendered beside it.
    text_links = HREF.findall(page.split("<h2>HTML</h2>")[0])
    assert any("/p/" in url for url in text_links)
    assert "srcdoc=" in page
    for url in text_links:
        get_ok(client, html.unescape(url))

    body = client.get(f"/dev/outbox/{row.id}/html")
    assert body.mimetype == "text/html"
    assert body.get_data(as_text=True) == row.html_body
    confirm = [url for url in HREF.findall(row.html_body) if "/p/" in url]
    assert confirm
    # The link in the email works: its page's button sends Bob's invitation.
    assert client.post(path_of(html.unescape(confirm[0])) + "/invite").status_code == 303
    invitation = only_row(app, kind=MailKind.INVITATION)
    assert f'href="/dev/outbox/{invitation.id}"' in client.get("/dev/outbox").get_data(as_text=True)
    assert client.get("/dev/outbox/99999").status_code == 404


def test_not_in_production(tmp_path: Path) -> None:
    production = make_test_app(f"sqlite:///{tmp_path / 'prod.sqlite3'}", **PRODUCTION_SETTINGS)
    try:
        assert production.test_client().get("/dev/outbox").status_code == 404
    finally:
        get_engine(production).dispose()
