"""Messages with moves: the words of a reply that are no move, and the message field of the move
forms, reach the other seats (their private page, their next email) and nobody else; a message
is kept once with its move; mutes, blocks, messages off, reports and the operator's commands.
On SQLite and PostgreSQL (the ``app`` fixture)."""

from __future__ import annotations

import email.utils

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import col, select

import engine
from service import tokens
from service.db import session_scope
from service.inbound.outcomes import Outcome
from service.models import Game, Player
from service.players.blocks import block
from service.players.messages import mute
from service.players.models import GameMessage, MessageReport
from service.present.reply_chat import chat_message
from service.present.reply_reading import read_turn
from tests.service.replies import (
    ADDRESSES,
    inbound_rows,
    new_game,
    position,
    reply_bytes,
    turn_text,
)
from tests.service.test_reply_catalogue import Ctx, Inbound

BATTLELINE = engine.get_ruleset("battleline")


def _opening() -> engine.GameState:
    deal = engine.deal_from_seed(BATTLELINE, "seed0")
    return engine.start(BATTLELINE, engine.ClaimTiming.ADVANCED, deal)


def _chat_of(text: str) -> str:
    state = _opening()
    reading = read_turn(text, state, state.to_move)
    assert reading.problem is None, reading
    return chat_message(text, reading, BATTLELINE)


def test_the_chat_of_a_reply_is_its_message_in_its_own_words() -> None:
    turn = turn_text(_opening())
    assert _chat_of(f"Nice play on flag 2! {turn}") == "Nice play on flag 2!"
    assert _chat_of(f"Good play! {turn}\nSee you Friday") == "Good play!\nSee you Friday"
    said = _chat_of(f"Nice play on flag 2! {turn}. Is flag 7 really still open?\nSee you Friday")
    assert said == "Nice play on flag 2! Is flag 7 really still open?\nSee you Friday"
    assert _chat_of(turn) == ""
    assert _chat_of(f"よろしくお願いします。\n{turn}") == "よろしくお願いします。"
    # As written: the reader compares full-width marks and letters as ASCII, the message keeps them.
    assert _chat_of(f"いい手ですね！\n{turn}") == "いい手ですね！"
    assert _chat_of(f"{turn}\nＧＧ！　また明日？\nｶﾞﾝﾊﾞﾘﾏｽ") == "ＧＧ！ また明日？\nｶﾞﾝﾊﾞﾘﾏｽ"


def test_chat_on_the_line_of_a_turns_codes_is_the_message_and_the_codes_are_played() -> None:
    """Words that follow a turn written in codes on the same line (``R3>1 troops Good play!``)
    are what the player said: not swallowed by the draw, not cut at a verb."""
    state = _opening()
    turn = turn_text(state)
    play = turn.split()[0]
    for words, said in (
        ("Good play!", "Good play"),
        ("See you Friday", "See you Friday"),
        ("Well played, see you next time", "Well played, see you next time"),
        ("Cheers, Alice", "Cheers, Alice"),
        ("Take care :-)", "Take care :-)"),
        ("I'm in Tokyo next week", "I'm in Tokyo next week"),
        ("Two more flags to go", "Two more flags to go"),
        ("よろしくお願いします。", "よろしくお願いします"),
        ("Friday at 3?", "Friday at 3"),
    ):
        text = f"{turn} {words}"
        reading = read_turn(text, state, state.to_move)
        assert reading.playable, (text, reading.problem)
        assert [m.action_text() for m in reading.moves][-1].endswith(turn.split()[-1]), text
        assert len(reading.moves) == len(turn.split()), text
        assert chat_message(text, reading, BATTLELINE) == said, text
    # A question that names moves after its first words asks; it plays nothing.
    assert not read_turn(f"{play} or {play[:-1]}2?", state, state.to_move).moves
    # In Japanese, the words after a whole move and a space.
    text = "赤3をフラッグ1に出して部隊カードを引く よろしく"
    reading = read_turn(text, state, state.to_move)
    assert reading.playable and len(reading.moves) == 2, reading
    assert chat_message(text, reading, BATTLELINE) == "よろしく"
    # The words that go on with a code stay with its move.
    for text in (f"{play} draw from the troops deck please", f"{play} troops card now"):
        reading = read_turn(text, state, state.to_move)
        assert [m.action_text() for m in reading.moves] == [play, "draw troops"], text
        assert chat_message(text, reading, BATTLELINE) == "", text


def _ctx(app: Flask, client: FlaskClient) -> Ctx:
    game_id, start = new_game(app, client)
    other = next(s for s in ADDRESSES if s != start.to_move)
    return Ctx(app, client, game_id, start.to_move, other)


def _messages(app: Flask, game_id: int) -> list[GameMessage]:
    with app.app_context(), session_scope() as session:
        return list(
            session.exec(
                select(GameMessage)
                .where(GameMessage.game_id == game_id)
                .order_by(col(GameMessage.id))
            )
        )


def _token(ctx: Ctx, seat: str) -> str:
    with ctx.app.app_context():
        return tokens.make_private_token(ctx.game_id, seat, 0)


def _private(ctx: Ctx, seat: str) -> str:
    token = _token(ctx, seat)
    page = ctx.client.get(f"/p/{token}")
    assert page.status_code == 200
    return page.get_data(as_text=True)


def test_a_replys_chat_is_played_around_and_reaches_the_other_seat_once(
    app: Flask, client: FlaskClient
) -> None:
    ctx = _ctx(app, client)
    text = f"Nice play on flag 2! {ctx.turn()}\nSee you Friday <b>soon</b>"
    raw = reply_bytes(ctx.row(), text, message_id=email.utils.make_msgid(domain="x.example"))
    assert ctx.receive(Inbound(raw)) is Outcome.APPLIED
    assert ctx.receive(Inbound(raw)) is Outcome.DUPLICATE
    (message,) = _messages(app, ctx.game_id)
    assert message.body == "Nice play on flag 2!\nSee you Friday <b>soon</b>"
    assert message.seat == ctx.mover
    # The other seat's next email, both parts, and their private page (escaped).
    email_row = ctx.row(ctx.other, kind="your_turn")
    assert "See you Friday <b>soon</b>" in " ".join(email_row.text_body.split())
    assert "See you Friday &lt;b&gt;soon&lt;/b&gt;" in email_row.mime
    page = _private(ctx, ctx.other)
    assert "Nice play on flag 2!" in page and "&lt;b&gt;soon&lt;/b&gt;" in page
    assert "<b>soon</b>" not in page
    # Never on a public page or record.
    with app.app_context(), session_scope() as session:
        game = session.get(Game, ctx.game_id)
        assert game is not None
        public_id = game.public_id
    for path in (f"/games/{public_id}", f"/games/{public_id}/record.json"):
        public = client.get(path).get_data(as_text=True)
        assert "Nice play" not in public and "Friday" not in public, path


def test_what_was_said_reaches_a_player_whose_turn_began_with_automatic_claims(
    app: Flask, client: FlaskClient
) -> None:
    """Claims made for a player at the start of their turn are no turn of theirs: the words
    the other seat said before them are in that turn's email (or the game-over email if the
    claims end the game), once."""
    ctx = _ctx(app, client)
    claimed_first = 0
    for turn in range(200):
        now = position(app, ctx.game_id)
        if now.status != "active":
            break
        mover = now.to_move
        other = next(s for s in ADDRESSES if s != mover)
        words = ("Good play!", "See you Friday")[turn % 2]
        raw = reply_bytes(ctx.row(mover), f"{words}\n{turn_text(now.state)}")
        assert ctx.receive(Inbound(raw)) is Outcome.APPLIED
        if position(app, ctx.game_id).to_move == mover:
            continue  # the turn goes on (a Scout's draws): its receipt asks for the rest
        told = ctx.row(other)
        assert told.kind in ("your_turn", "game_over"), told.kind
        assert told.text_body.count(f"  | {words}") == 1, (turn, told.text_body)
        claimed_first += "automatic claims" in told.text_body
    assert claimed_first, "no turn began with automatic claims"


def test_a_replys_message_is_kept_as_typed(app: Flask, client: FlaskClient) -> None:
    """The reader compares full-width marks and letters as ASCII; the message keeps them."""
    ctx = _ctx(app, client)
    text = f"いい手ですね！\n{ctx.turn()}\nＧＧ"
    assert ctx.receive(ctx.reply(text)) is Outcome.APPLIED
    (message,) = _messages(app, ctx.game_id)
    assert message.body == "いい手ですね！\nＧＧ"


def test_a_reply_whose_chat_is_too_long_plays_the_moves_and_says_the_message_was_not_sent(
    app: Flask, client: FlaskClient
) -> None:
    ctx = _ctx(app, client)
    chat = "Well played. " * 60
    assert ctx.receive(ctx.reply(f"{ctx.turn()}\n{chat}")) is Outcome.APPLIED
    assert _messages(app, ctx.game_id) == []
    receipt = ctx.row(kind="reply_receipt")
    assert "not sent" in " ".join(receipt.text_body.split())
    assert inbound_rows(app)[-1].outcome == "applied"


def _form(ctx: Ctx, **fields: str) -> dict[str, str]:
    state = position(ctx.app, ctx.game_id).state
    play = next(m for m in engine.legal_moves(state) if m.action is engine.Action.PLAY)
    return {"ply": str(state.ply), "move": play.action_text(), "then": "draw troops", **fields}


def test_the_private_page_sends_a_message_with_the_move(app: Flask, client: FlaskClient) -> None:
    ctx = _ctx(app, client)
    token = _token(ctx, ctx.mover)
    assert 'name="message"' in _private(ctx, ctx.mover)
    body = "Good luck!\x07 see https://evil.example/x <script>alert(1)</script>"
    answer = client.post(f"/p/{token}/move", data=_form(ctx, message=body))
    assert answer.status_code == 303
    (message,) = _messages(app, ctx.game_id)
    assert message.body == "Good luck! see https://evil.example/x <script>alert(1)</script>"
    page = _private(ctx, ctx.other)
    assert "&lt;script&gt;" in page and "<script>alert" not in page
    assert 'href="https://evil.example' not in page


def test_a_message_too_long_on_the_page_plays_nothing(app: Flask, client: FlaskClient) -> None:
    ctx = _ctx(app, client)
    token = _token(ctx, ctx.mover)
    before = position(app, ctx.game_id).log
    answer = client.post(f"/p/{token}/move", data=_form(ctx, message="x" * 10_000))
    assert answer.status_code == 400
    assert "at most 500" in answer.get_data(as_text=True)
    assert position(app, ctx.game_id).log == before
    assert _messages(app, ctx.game_id) == []


def test_the_move_link_page_sends_a_message(app: Flask, client: FlaskClient) -> None:
    ctx = _ctx(app, client)
    state = position(app, ctx.game_id).state
    moves = engine.legal_moves(state)
    index = next(i for i, m in enumerate(moves) if m.action is engine.Action.PLAY)
    with app.app_context():
        token = tokens.make_move_token(ctx.game_id, ctx.mover, 0, state.ply)
    confirm = client.get(f"/m/{token}/{index}")
    assert confirm.status_code == 200 and 'name="message"' in confirm.get_data(as_text=True)
    answer = client.post(f"/m/{token}/{index}", data={"then": "draw troops", "message": "Hi!"})
    assert answer.status_code == 303
    assert [m.body for m in _messages(app, ctx.game_id)] == ["Hi!"]
    again = client.post(f"/m/{token}/{index}", data={"then": "draw troops", "message": "Hi!"})
    assert again.status_code in (200, 409)
    assert [m.body for m in _messages(app, ctx.game_id)] == ["Hi!"]


def _player(app: Flask, seat: str) -> int:
    with app.app_context(), session_scope() as session:
        player = session.exec(select(Player).where(Player.email == ADDRESSES[seat])).one()
        assert player.id is not None
        return player.id


def _say(ctx: Ctx, words: str) -> None:
    token = _token(ctx, ctx.mover)
    assert ctx.client.post(f"/p/{token}/move", data=_form(ctx, message=words)).status_code == 303


def test_muted_and_blocked_players_messages_are_not_shown(app: Flask, client: FlaskClient) -> None:
    ctx = _ctx(app, client)
    mover, other = _player(app, ctx.mover), _player(app, ctx.other)
    with app.app_context(), session_scope() as session:
        assert mute(session, other, mover)
    _say(ctx, "Muted words")
    assert "Muted words" not in _private(ctx, ctx.other)
    assert "Muted words" not in ctx.row(ctx.other, kind="your_turn").text_body
    assert "Muted words" in _private(ctx, ctx.mover)
    ctx2 = _ctx(app, client)
    with app.app_context(), session_scope() as session:
        assert block(session, _player(app, ctx2.mover), _player(app, ctx2.other))
    _say(ctx2, "Blocked words")
    assert "Blocked words" not in _private(ctx2, ctx2.other)
    assert "Blocked words" not in ctx2.row(ctx2.other, kind="your_turn").text_body


def test_messages_turned_off_are_neither_sent_nor_read(app: Flask, client: FlaskClient) -> None:
    ctx = _ctx(app, client)
    token = _token(ctx, ctx.other)
    assert client.post(f"/p/{token}/messages", data={"messages": "off"}).status_code == 303
    _say(ctx, "Unread words")
    assert "Unread words" not in _private(ctx, ctx.other)
    # Their own pages offer no message field any more.
    page = _private(ctx, ctx.other)
    assert 'name="message"' not in page and "Turn messages on" in page
    state = position(app, ctx.game_id).state
    index = next(
        i for i, m in enumerate(engine.legal_moves(state)) if m.action is engine.Action.PLAY
    )
    with app.app_context():
        link = tokens.make_move_token(ctx.game_id, ctx.other, 0, state.ply)
    confirm = client.get(f"/m/{link}/{index}").get_data(as_text=True)
    assert "Confirm" in confirm and 'name="message"' not in confirm


def test_a_report_is_kept_and_the_operator_hides_the_message_and_suspends_the_sender(
    app: Flask, client: FlaskClient
) -> None:
    ctx = _ctx(app, client)
    _say(ctx, "Rude words")
    (message,) = _messages(app, ctx.game_id)
    token = _token(ctx, ctx.other)
    own = _token(ctx, ctx.mover)
    assert client.post(f"/p/{own}/messages/{message.id}/report").status_code == 404
    for _ in range(2):
        assert client.post(f"/p/{token}/messages/{message.id}/report").status_code == 303
    with app.app_context(), session_scope() as session:
        assert len(session.exec(select(MessageReport)).all()) == 1
    runner = app.test_cli_runner()
    listed = runner.invoke(args=["moderation", "reports"])
    assert "Rude words" in listed.output, listed.output
    assert "hidden" in runner.invoke(args=["moderation", "hide", str(message.id)]).output
    assert "Rude words" not in _private(ctx, ctx.other)
    sender = _player(app, ctx.mover)
    assert "suspended" in runner.invoke(args=["moderation", "suspend", str(sender)]).output
    with app.app_context(), session_scope() as session:
        from service.players.moderation import is_suspended

        player = session.get(Player, sender)
        assert player is not None and is_suspended(player)
    assert "No report" in runner.invoke(args=["moderation", "reports"]).output


def test_the_daily_digest_carries_what_was_said(app: Flask, client: FlaskClient) -> None:
    from service.games.preferences import TurnPreferences, set_player_defaults
    from service.outbox.models import OutboxMessage
    from service.turns.digest import send_digests

    ctx = _ctx(app, client)
    with app.app_context(), session_scope() as session:
        other = session.get(Player, _player(app, ctx.other))
        assert other is not None
        set_player_defaults(session, other, TurnPreferences(digest=True))
    _say(ctx, "Digest <em>words</em>")
    with app.app_context():
        assert send_digests() == [_player(app, ctx.other)]
    with app.app_context(), session_scope() as session:
        digest = session.exec(select(OutboxMessage).where(OutboxMessage.kind == "digest")).one()
        text, html = digest.text_body, digest.mime
    assert "Digest <em>words</em>" in text
    assert "Digest &lt;em&gt;words&lt;/em&gt;" in html


ASIDES = (
    "Great move with the red 7!",
    "Your blue 9 was a surprise.",
    "I hope the tactics deck is kind to me",
    "That Fog on flag 5 hurt",
    "I don't like your green 3 at all",
)
"""Chat that names a card, a deck or a flag but no verb and no move that can be made: before or
after the moves, it is the message, never the reason to refuse the reply."""


def test_chat_naming_cards_or_flags_never_sinks_a_reply() -> None:
    state = _opening()
    turn = turn_text(state)
    for aside in ASIDES:
        for text in (f"{aside}\n{turn}", f"{turn}\n{aside}"):
            reading = read_turn(text, state, state.to_move)
            assert reading.playable, (text, reading.problem)
            assert len(reading.moves) == len(turn.split()), text
            assert chat_message(text, reading, BATTLELINE) == aside, text
    # A move the player cannot make, written as a move, is still refused.
    for wrong in ("play FOG on flag 5", "FOG>5", "play the red 7 on flag 3 please"):
        held = [c for c in state.hands[engine.SEATS.index(state.to_move)]]
        if "R7" in held:
            continue
        assert not read_turn(f"{wrong}\n{turn}", state, state.to_move).playable, wrong


def test_a_block_from_the_page_stops_messages_both_ways_and_is_lifted(
    app: Flask, client: FlaskClient
) -> None:
    ctx = _ctx(app, client)
    token = _token(ctx, ctx.other)
    assert client.post(f"/p/{token}/block", data={"block": "on"}).status_code == 303
    assert "Stop blocking" in _private(ctx, ctx.other)
    _say(ctx, "Words across a block")
    assert "Words across a block" not in _private(ctx, ctx.other)
    assert "Words across a block" not in ctx.row(ctx.other, kind="your_turn").text_body
    assert client.post(f"/p/{token}/block", data={"block": "off"}).status_code == 303
    assert "Stop blocking" not in _private(ctx, ctx.other)


def test_the_last_words_of_a_game_reach_the_other_seat_in_the_game_over_email(
    app: Flask, client: FlaskClient
) -> None:
    from service.outbox.models import OutboxMessage

    ctx = _ctx(app, client)
    state = position(app, ctx.game_id).state
    resign = {"ply": str(state.ply), "move": "resign", "message": "Well played, <b>GG</b>"}
    assert client.post(f"/p/{_token(ctx, ctx.mover)}/move", data=resign).status_code == 303
    with app.app_context(), session_scope() as session:
        over = {
            row.recipient: row
            for row in session.exec(select(OutboxMessage).where(OutboxMessage.kind == "game_over"))
        }
        other, mover = over[ADDRESSES[ctx.other]], over[ADDRESSES[ctx.mover]]
        assert "Well played, <b>GG</b>" in other.text_body
        assert "Well played, &lt;b&gt;GG&lt;/b&gt;" in other.mime
        assert "Well played" not in mover.text_body


def test_a_message_is_plain_text_and_its_senders_real_name_is_the_link(
    app: Flask, client: FlaskClient
) -> None:
    """Names, addresses and links typed in a message are its words, escaped and never linked; the
    name beside it is its sender's own public name, linked to their page."""
    import re

    from service.games.players import find_or_add_player
    from service.models import utcnow
    from service.players.names import choose_name

    ctx = _ctx(app, client)
    with app.app_context(), session_scope() as session:
        mover = session.get(Player, _player(app, ctx.mover))
        assert mover is not None
        choose_name(session, mover, "Zelda Quill", utcnow())
        bob = find_or_add_player(session, "real-bob@example.org", "Bob")
        choose_name(session, bob, "Bobby Real", utcnow())
    words = (
        "I am Bobby Real, not Zelda. Bobby Reаl (with a Cyrillic a) says hi: see "
        "http://evil.example/x, www.evil.example, /players/Bobby%20Real and mail "
        'bobby@evil.example <a href="https://evil.example">here</a>'
    )
    _say(ctx, words)
    page = _private(ctx, ctx.other)
    items = re.findall(r'<ol class="messages">(.*?)</ol>', page, re.S)
    assert len(items) == 1, page
    (said,) = re.findall(r"<li>(.*?)</li>", items[0], re.S)
    sender, body = said.split('<span class="message-body">', 1)
    body = body.split("</span>", 1)[0]
    assert '<a href="/players/Zelda%20Quill">Zelda Quill</a>' in sender, sender
    assert "<a" not in body and "href" not in body.replace("href=&#34;", ""), body
    escaped = words.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    assert body == escaped.replace('"', "&#34;"), body
    # Nothing on the page links to the names or addresses the message typed.
    for target in ("evil.example", "/players/Bobby", "mailto:"):
        assert f'href="{target}' not in page and f'href="http://{target}' not in page
    assert not re.search(r'href="[^"]*(evil|Bobby)', page), page


def test_finding_a_replys_words_as_written_costs_work_in_proportion_to_its_length(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A reply's sentences are found as typed by normalising stretches of it; a reply made of
    long sentences strewn with invisible characters (each found only far from where its
    normalised length says) must not cost work in the square of its length: an email costs the
    service at most a bounded multiple of its size."""
    from service.present import reply_chat

    work = [0]
    real = reply_chat.normalised

    def counted(text: str) -> str:
        work[0] += len(text)
        return real(text)

    monkeypatch.setattr(reply_chat, "normalised", counted)
    text = ("a\u200b" * 900 + ". ") * 20
    found = reply_chat.as_written(text)
    assert [sentence.strip() for sentence, _ in found][:2] == ["a" * 900 + "."] * 2
    # The whole reply normalised once, then the stretches within the budget.
    most = len(text) + reply_chat.WRITTEN_WORK_PER_CHAR * len(text) + reply_chat.WRITTEN_WORK_MIN
    assert work[0] <= most
