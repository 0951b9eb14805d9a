"""Reading the outbox and following the links of an email, for the mail tests."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import col, select

from service.db import session_scope
from service.outbox.models import OutboxMessage
from tests.service.conftest import TEST_BASE_URL

URL = re.compile(r"https?://[^\s<>\"']+")


def rows(app: Flask, **where: Any) -> list[OutboxMessage]:
    """Outbox rows, oldest first, filtered by column values."""
    with app.app_context(), session_scope() as session:
        statement = select(OutboxMessage).order_by(col(OutboxMessage.id))
        for name, value in where.items():
            statement = statement.where(getattr(OutboxMessage, name) == value)
        return list(session.exec(statement).all())


def only_row(app: Flask, **where: Any) -> OutboxMessage:
    found = rows(app, **where)
    assert len(found) == 1, [(r.kind, r.recipient) for r in found]
    return found[0]


def links(text: str) -> list[str]:
    """Every http(s) address in a text or HTML body, in order, without repeats."""
    seen: list[str] = []
    for url in URL.findall(text):
        url = url.replace("&amp;", "&")
        if url not in seen:
            seen.append(url)
    return seen


def path_of(url: str) -> str:
    """The path of one of our absolute links, for the test client."""
    assert url.startswith(TEST_BASE_URL + "/"), url
    return urlsplit(url).path


def link_to(text: str, fragment: str) -> str:
    """The one link of ``text`` whose path contains ``fragment``."""
    found = [url for url in links(text) if fragment in url]
    assert len(found) == 1, (fragment, links(text))
    return found[0]


def get_ok(client: FlaskClient, url: str) -> str:
    """GET one of our links and return the page; it must answer 200."""
    response = client.get(path_of(url))
    assert response.status_code == 200, (url, response.status_code)
    return response.get_data(as_text=True)
