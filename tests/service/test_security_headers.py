"""Every response carries headers that keep pages from being framed, scripted, sniffed or cached
(issue: no security headers)."""

from __future__ import annotations

import re
from types import SimpleNamespace

from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import select

from service import tokens
from service.db import get_engine, session_scope
from service.models import Game, Player, Seat
from service.outbox.signed import MailPurpose, make_token
from tests.service.conftest import PRODUCTION_SETTINGS, make_test_app


def _csp(response: object) -> dict[str, str]:
    header = response.headers["Content-Security-Policy"]  # type: ignore[attr-defined]
    return {part.split()[0]: part for part in (p.strip() for p in header.split(";")) if part}


def test_pages_forbid_script_framing_and_inline_style(
    client: FlaskClient, new_game: SimpleNamespace
) -> None:
    for url in ("/games/new", f"/p/{new_game.token['A']}", f"/games/{new_game.public_id}", "/me"):
        response = client.get(url)
        assert response.status_code == 200, url
        csp = _csp(response)
        assert csp["default-src"] == "default-src 'none'"
        # Our one static script (deadlines in the browser's zone), nothing inline, no eval.
        assert csp["script-src"] == "script-src 'self'"
        assert csp["style-src"] == "style-src 'self'"
        assert csp["frame-ancestors"] == "frame-ancestors 'none'"
        assert response.headers["X-Frame-Options"] == "DENY"
        assert response.headers["Referrer-Policy"] == "no-referrer"
        assert response.headers["X-Content-Type-Options"] == "nosniff"
        page = response.get_data(as_text=True)
        scripts = re.findall(r"<script[^>]*>(.*?)</script>", page, re.S)
        assert scripts in ([], [""]), url
        assert not scripts or re.search(r'<script src="/static/local-time\.js\?v=\w+" defer>', page)
        assert "style=" not in page and "<style" not in page, url


def test_private_pages_and_move_links_are_never_stored(
    client: FlaskClient, new_game: SimpleNamespace
) -> None:
    for url in (f"/p/{new_game.token['A']}", f"/p/{new_game.token['B']}/accept", "/m/x/1"):
        response = client.get(url)
        assert response.headers["Cache-Control"] == "no-store", url


def test_style_sheet_is_cached_by_its_content_hash(client: FlaskClient) -> None:
    page = client.get("/games/new").get_data(as_text=True)
    match = re.search(r'href="(/static/site\.css\?v=[0-9a-f]{12})"', page)
    assert match, "the page links the style sheet by its content hash"
    with client.get(match.group(1)) as response:
        assert response.status_code == 200
        assert response.mimetype == "text/css"
        assert "max-age=31536000" in response.headers["Cache-Control"]
        assert ".card-R" in response.get_data(as_text=True)


def test_hsts_only_in_production(client: FlaskClient, database_url: str) -> None:
    assert "Strict-Transport-Security" not in client.get("/healthz").headers
    app: Flask = make_test_app(database_url, **PRODUCTION_SETTINGS)
    try:
        response = app.test_client().get("/healthz")
        assert response.headers["Strict-Transport-Security"].startswith("max-age=31536000")
    finally:
        get_engine(app).dispose()


def test_posts_from_another_site_are_refused(
    app: Flask, client: FlaskClient, new_game: SimpleNamespace
) -> None:
    """A page elsewhere cannot press a seat's buttons or sign a browser in."""
    path = f"/p/{new_game.token['B']}/decline"
    for headers in (
        {"Sec-Fetch-Site": "cross-site"},
        {"Origin": "https://evil.example"},
        {"Origin": "null"},
    ):
        response = client.post(path, headers=headers)
        assert response.status_code == 403, headers
        assert "another site" in response.get_data(as_text=True)
    with app.app_context(), session_scope() as session:
        assert session.exec(select(Game)).one().status == "invited"
        seat = session.exec(select(Seat).where(Seat.letter == "A")).one()
        token = tokens.make_games_token(seat.player_id, 0)
    assert (
        client.post(f"/me/{token}/sign-in", headers={"Origin": "https://evil.example"}).status_code
        == 403
    )
    # The site's own pages, and clients that are not browsers, still work.
    assert client.post(path, headers={"Sec-Fetch-Site": "same-origin"}).status_code == 303
    assert (
        client.post(f"/me/{token}/sign-in", headers={"Origin": "http://localhost"}).status_code
        == 303
    )


def test_only_the_same_origin_counts_as_this_site(
    app: Flask, client: FlaskClient, new_game: SimpleNamespace, database_url: str
) -> None:
    """A sibling subdomain (``same-site``) is another site, and so is an ``http:`` page of an
    https site (a network attacker can write one)."""
    path = f"/p/{new_game.token['B']}/decline"
    for fetch_site in ("same-site", "none", "anything"):
        response = client.post(path, headers={"Sec-Fetch-Site": fetch_site})
        assert response.status_code == 403, fetch_site
    with app.app_context(), session_scope() as session:
        assert session.exec(select(Game)).one().status == "invited"
    production = make_test_app(database_url, **PRODUCTION_SETTINGS)
    web = production.test_client()
    try:
        host = "battleline.example"
        sign_out = "/me/sign-out"
        plain = web.post(sign_out, base_url=f"https://{host}", headers={"Origin": f"http://{host}"})
        assert plain.status_code == 403
        same = web.post(sign_out, base_url=f"https://{host}", headers={"Origin": f"https://{host}"})
        assert same.status_code == 303
    finally:
        get_engine(production).dispose()


def test_one_click_unsubscribe_works_from_anywhere(app: Flask, client: FlaskClient) -> None:
    with app.app_context(), session_scope() as session:
        player = Player(email="p@example.org", display_name="P")
        session.add(player)
        session.flush()
        assert player.id is not None
        token = make_token(MailPurpose.UNSUBSCRIBE, player.id)
    response = client.post(
        f"/mail/unsubscribe/{token}",
        data={"List-Unsubscribe": "One-Click"},
        headers={"Sec-Fetch-Site": "cross-site", "Origin": "https://mail.example"},
    )
    assert response.status_code == 200
