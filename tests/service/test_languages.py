"""Pages in the reader's language, emails in the recipient's (service.i18n)."""

from __future__ import annotations

import html
import re
from types import SimpleNamespace

from flask import Flask
from flask.testing import FlaskClient

import engine
from service.catalogue import page_language
from service.db import session_scope
from service.games.loaded import load_game
from service.games.players import find_or_add_player
from service.models import Player
from service.outbox import MailKind
from service.outbox.queue import queue_email
from tests.service.conftest import VALID_FORM, sign_in_as

JAPANESE = {"Accept-Language": "ja,en;q=0.5"}


def _language(app: Flask, email: str) -> str | None:
    with app.app_context(), session_scope() as session:
        player = find_or_add_player(session, email, "X")
        return player.language


def test_a_page_follows_the_browser_language(client: FlaskClient) -> None:
    english = client.get("/games").get_data(as_text=True)
    assert '<html lang="en">' in english and "Watch games" in english
    japanese = client.get("/games", headers=JAPANESE).get_data(as_text=True)
    assert '<html lang="ja">' in japanese
    # The header, footer and switch are translated (every page's own words: issue 23's next step).
    assert ">対局を観る</a>" in japanese and ">Watch games</a>" not in japanese
    assert client.get("/games", headers=JAPANESE).vary.as_set() >= {"accept-language", "cookie"}


def test_the_switch_overrides_the_browser_and_returns_to_the_page(client: FlaskClient) -> None:
    response = client.post("/language", data={"language": "ja", "next": "/games?ply=2"})
    assert response.status_code == 303
    assert response.location == "/games?ply=2"
    page = client.get("/games", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert '<html lang="ja">' in page
    assert 'value="ja" lang="ja" aria-describedby="language-label" aria-pressed="true"' in page


def test_the_switch_refuses_an_unknown_language_and_foreign_targets(
    client: FlaskClient,
) -> None:
    refused = client.post("/language", data={"language": "xx", "next": "/games"})
    assert refused.status_code == 400
    assert '<html lang="en">' in client.get("/games").get_data(as_text=True)
    for target in ("//evil.example/", "https://evil.example/", "/\\evil.example"):
        response = client.post("/language", data={"language": "ja", "next": target})
        assert response.status_code == 303
        assert response.location == "/games/new"


def test_a_signed_in_choice_is_kept_on_the_player(app: Flask, client: FlaskClient) -> None:
    sign_in_as(app, client, "alice@example.org")
    assert _language(app, "alice@example.org") == "en"  # the page it signed in on
    client.post("/language", data={"language": "ja", "next": "/me"})
    assert _language(app, "alice@example.org") == "ja"
    client.post("/me/sign-out")
    # The language is not a credential: it stays on this browser after signing out.
    assert '<html lang="ja">' in client.get("/games").get_data(as_text=True)


def test_signing_in_on_a_japanese_page_sets_a_new_players_language(
    app: Flask, client: FlaskClient
) -> None:
    client.post("/language", data={"language": "ja", "next": "/games"})
    sign_in_as(app, client, "kenji@example.org")
    assert _language(app, "kenji@example.org") == "ja"


def test_a_saved_language_follows_the_player_to_a_new_browser(
    app: Flask, client: FlaskClient
) -> None:
    with app.app_context(), session_scope() as session:
        find_or_add_player(session, "yuki@example.org", "Yuki").language = "ja"
    sign_in_as(app, client, "yuki@example.org")
    assert '<html lang="ja">' in client.get("/games").get_data(as_text=True)


def _queue_my_games(app: Flask, player_language: str | None, page_headers: dict[str, str]) -> str:
    """The text of a "my games" email to a player of ``player_language``, queued while serving
    a page to a browser sending ``page_headers``."""
    with app.test_request_context("/games", headers=page_headers), session_scope() as session:
        player = find_or_add_player(session, "bob@example.org", "Bob")
        player.language = player_language
        row = queue_email(
            session, MailKind.MY_GAMES, player, subject="Your games", context={"url": "u"}
        )
        assert row is not None and row.text_body is not None and row.html_body is not None
        return row.text_body + row.html_body


def test_an_email_is_in_its_recipients_language_not_the_senders(app: Flask) -> None:
    english = _queue_my_games(app, None, JAPANESE)
    assert "Hello Bob," in english and "さん" not in english
    assert '<html lang="en">' in english
    japanese = _queue_my_games(app, "ja", {"Accept-Language": "en"})
    assert "Bobさん" in japanese and "Hello" not in japanese
    assert '<html lang="ja">' in japanese


def test_the_page_language_is_restored_after_an_email(app: Flask) -> None:

    with app.test_request_context("/games", headers=JAPANESE), session_scope() as session:
        assert page_language() == "ja"
        player = find_or_add_player(session, "bob@example.org", "Bob")
        player.language = "en"
        queue_email(session, MailKind.MY_GAMES, player, subject="s", context={"url": "u"})
        assert page_language() == "ja"


def test_the_etag_differs_by_language(client: FlaskClient, new_game: object) -> None:
    url = f"/games/{new_game.public_id}"  # type: ignore[attr-defined]
    english = client.get(url)
    tag = english.headers["ETag"]
    again = client.get(url, headers={**JAPANESE, "If-None-Match": tag})
    assert again.status_code == 200
    assert '<html lang="ja">' in again.get_data(as_text=True)


def test_player_language_column_defaults_to_none(app: Flask) -> None:
    with app.app_context(), session_scope() as session:
        player = find_or_add_player(session, "new@example.org", "New")
        assert isinstance(player, Player) and player.language is None


def _your_turn_html(app: Flask, client: FlaskClient, reader: str | None, page: str) -> str:
    """The HTML part of the "your turn" email to the seat to move (of language ``reader``),
    queued while serving a page in ``page``."""
    from service.games.state import apply_moves, load_state
    from service.outbox.models import OutboxMessage
    from service.present.game_emails import queue_your_turn
    from tests.service.play_driver import create_and_accept

    game = create_and_accept(app, client)
    with app.app_context(), session_scope() as session:
        # One whole turn of the first player: the email then tells it, card by card.
        state = load_state(session, load_game(session, game["id"]))
        first = state.to_move
        while state.to_move == first:
            move = [m for m in engine.legal_moves(state) if m.card is not None][:1] or [
                engine.legal_moves(state)[0]
            ]
            state, _ = apply_moves(session, game["id"], first, state.ply, move)
    headers = {"Accept-Language": page}
    with app.test_request_context("/", headers=headers), session_scope() as session:
        loaded = load_game(session, game["id"])
        state = load_state(session, loaded)
        player = loaded.seats[state.to_move].player
        player.language = reader
        queued = queue_your_turn(session, loaded, state)
        assert isinstance(queued, OutboxMessage) and queued.html_body is not None
        return html.unescape(queued.html_body)  # the part is ASCII: characters as references


def test_an_emails_content_is_built_in_its_recipients_language(
    app: Flask, client: FlaskClient
) -> None:
    # Cards are named in words (aria-label) in the context the email is built from, not only
    # in its templates: all of it must be in the recipient's language.
    english = _your_turn_html(app, client, None, "ja")
    assert not re.search(r'aria-label="[^"]*[赤橙黄緑青紫]', english)
    assert re.search(r'aria-label="(red|orange|yellow|green|blue|purple) \d+"', english)
    japanese = _your_turn_html(app, client, "ja", "en")
    assert not re.search(r'aria-label="(red|orange|yellow|green|blue|purple) \d+"', japanese)
    assert re.search(r'aria-label="[赤橙黄緑青紫]\d+"', japanese)


def _subjects(app: Flask, email: str) -> list[str]:
    """The subjects of the emails queued to ``email``, oldest first."""
    from sqlmodel import col, select

    from service.outbox.models import OutboxMessage

    with app.app_context(), session_scope() as session:
        player = find_or_add_player(session, email, "X")
        rows = session.exec(
            select(OutboxMessage)
            .where(OutboxMessage.player_id == player.id)
            .order_by(col(OutboxMessage.id))
        ).all()
        return [row.subject for row in rows]


KANA = re.compile("[\u3040-\u30ff]")


def test_confirming_on_a_page_sets_a_new_players_language(
    app: Flask, client: FlaskClient, new_game: SimpleNamespace
) -> None:
    """A player who has chosen no language gets the one of the page they prove their address
    on: the creator pressing "Send the invitation" on the private page the confirmation email
    linked, an invited player accepting. Their emails follow it from then on."""
    assert client.post(f"/p/{new_game.token['A']}/invite", headers=JAPANESE).status_code == 303
    assert _language(app, "alice@example.org") == "ja"
    assert client.post(f"/p/{new_game.token['B']}/accept").status_code == 303
    assert _language(app, "bob@example.org") == "en"
    alice, bob = _subjects(app, "alice@example.org"), _subjects(app, "bob@example.org")
    assert len(alice) >= 2 and len(bob) >= 2  # a confirmation or invitation, then the deal
    assert KANA.search(alice[-1]), alice
    assert not any(KANA.search(subject) for subject in bob), bob


def test_a_chosen_language_is_kept_when_confirming_on_a_page_in_another(
    app: Flask, client: FlaskClient, new_game: SimpleNamespace
) -> None:
    with app.app_context(), session_scope() as session:
        find_or_add_player(session, "alice@example.org", "Alice").language = "en"
        find_or_add_player(session, "bob@example.org", "Bob").language = "ja"
    client.post(f"/p/{new_game.token['A']}/invite", headers=JAPANESE)
    client.post(f"/p/{new_game.token['B']}/accept")
    assert _language(app, "alice@example.org") == "en"
    assert _language(app, "bob@example.org") == "ja"


def test_confirming_an_address_on_a_page_sets_a_new_players_language(
    app: Flask, client: FlaskClient
) -> None:
    from service.outbox.signed import MailPurpose
    from service.outbox.signed import make_token as make_mail_token

    with app.app_context(), session_scope() as session:
        player = find_or_add_player(session, "kenji@example.org", "Kenji")
        token = make_mail_token(MailPurpose.CONFIRM_ADDRESS, player.id)
    assert client.post(f"/mail/confirm/{token}", headers=JAPANESE).status_code == 200
    assert _language(app, "kenji@example.org") == "ja"


def test_a_newcomers_confirmation_is_in_the_language_of_the_form(
    app: Flask, client: FlaskClient
) -> None:
    """Whoever fills in the form on a Japanese page and has chosen no language reads the
    confirmation in Japanese; nothing is saved for the address before its owner proves it. A
    language the address's owner chose is kept."""
    with app.app_context(), session_scope() as session:
        find_or_add_player(session, "bob@example.org", "Bob").language = "en"
    assert client.post("/games/new", data=VALID_FORM, headers=JAPANESE).status_code == 303
    assert KANA.search(_subjects(app, "alice@example.org")[-1])
    assert _language(app, "alice@example.org") is None
    form = {**VALID_FORM, "a_email": "bob@example.org", "b_email": "carol@example.org"}
    assert client.post("/games/new", data=form, headers=JAPANESE).status_code == 303
    assert not KANA.search(_subjects(app, "bob@example.org")[-1])
