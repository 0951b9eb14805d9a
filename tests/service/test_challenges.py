"""Open challenges and automatch (service.lobby.challenges, service.lobby.automatch): accepting
deals the game at once with both seats in; the rules of who may meet whom; two accepting at once
make exactly one game. Runs on SQLite and PostgreSQL."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from flask import Flask
from sqlmodel import col, func, select

from engine import ClaimTiming
from service import clock
from service.db import session_scope
from service.games.players import find_or_add_player
from service.games.seats import read_seats
from service.lobby.automatch import RENEW_TASK, find_opponent, renew_due
from service.lobby.challenge_terms import ChallengeTerms
from service.lobby.challenges import (
    MAX_OPEN_CHALLENGES,
    ChallengeError,
    accept_challenge,
    open_challenges,
    post_challenge,
    withdraw_challenge,
)
from service.models import Game, GameStatus, Player
from service.outbox.models import OutboxMessage
from service.players.blocks import block
from service.players.challenge_models import Challenge, ChallengeKind, ChallengeStatus

TERMS = ChallengeTerms(ruleset="battleline", claims=ClaimTiming.ADVANCED, days_per_move=3)


def _players(app: Flask, *names: str) -> list[int]:
    with app.app_context(), session_scope() as session:
        players = [find_or_add_player(session, f"{n.lower()}@example.org", n) for n in names]
        session.flush()
        return [p.id for p in players if p.id is not None]


def _post(app: Flask, poster: int, terms: ChallengeTerms = TERMS) -> int:
    with app.app_context(), session_scope() as session:
        player = session.get(Player, poster)
        assert player is not None
        challenge = post_challenge(session, player, terms, ChallengeKind.OPEN)
        assert challenge.id is not None
        return challenge.id


def _accept(app: Flask, challenge_id: int, taker: int) -> int:
    with app.app_context(), session_scope() as session:
        player = session.get(Player, taker)
        assert player is not None
        game = accept_challenge(session, challenge_id, player)
        assert game.id is not None
        return game.id


def _refused(app: Flask, challenge_id: int, taker: int) -> int:
    with pytest.raises(ChallengeError) as caught:
        _accept(app, challenge_id, taker)
    return caught.value.status


def _games(app: Flask) -> int:
    with app.app_context(), session_scope() as session:
        return session.exec(select(func.count()).select_from(Game)).one()


def test_accepting_deals_the_game_at_once_and_mails_both(app: Flask) -> None:
    alice, bob = _players(app, "Alice", "Bob")
    challenge = _post(app, alice)
    with app.app_context(), session_scope() as session:
        listed = open_challenges(session)
        assert [(c.id, c.poster_name) for c in listed] == [(challenge, "Alice")]
    game_id = _accept(app, challenge, bob)
    with app.app_context(), session_scope() as session:
        game = session.get(Game, game_id)
        assert game is not None and game.status == GameStatus.ACTIVE
        seats = read_seats(session, game_id)
        assert {s: p.id for s, (_, p) in seats.items()} == {"A": alice, "B": bob}
        assert all(seat.accepted for seat, _ in seats.values())
        kinds = session.exec(
            select(OutboxMessage.kind, OutboxMessage.player_id).where(
                OutboxMessage.game_id == game_id
            )
        ).all()
        assert {p for k, p in kinds if k == "game_started"} == {alice, bob}
        assert not any(k == "invitation" for k, _ in kinds)
        assert open_challenges(session) == []
        row = session.get(Challenge, challenge)
        assert row is not None and row.status == ChallengeStatus.TAKEN and row.game_id == game_id


def test_own_taken_expired_and_withdrawn_challenges_are_refused(app: Flask) -> None:
    alice, bob, carol = _players(app, "Alice", "Bob", "Carol")
    challenge = _post(app, alice)
    assert _refused(app, challenge, alice) == 409
    _accept(app, challenge, bob)
    assert _refused(app, challenge, carol) == 409
    old = _post(app, carol)
    app.config["CLOCK_NOW"] = clock.now() + timedelta(days=8)
    with app.app_context(), session_scope() as session:
        assert open_challenges(session) == []
    assert _refused(app, old, alice) == 409
    del app.config["CLOCK_NOW"]
    gone = _post(app, carol)
    with app.app_context(), session_scope() as session:
        player = session.get(Player, carol)
        assert player is not None
        withdraw_challenge(session, gone, player)
    assert _refused(app, gone, alice) == 409
    assert _refused(app, 999_999, alice) == 404
    assert _games(app) == 1


def test_blocks_running_games_and_past_opponents_only(app: Flask) -> None:
    alice, bob, carol = _players(app, "Alice", "Bob", "Carol")
    with app.app_context(), session_scope() as session:
        block(session, bob, alice)  # the taker blocks the poster: refused both ways
    challenge = _post(app, alice)
    assert _refused(app, challenge, bob) == 403
    only_known = _post(app, alice, ChallengeTerms(**{**TERMS.__dict__, "played_only": True}))
    assert _refused(app, only_known, carol) == 403
    _accept(app, challenge, carol)
    again = _post(app, alice)
    assert _refused(app, again, carol) == 409  # they already play battleline
    assert _games(app) == 1


def test_a_player_has_at_most_five_open_challenges(app: Flask) -> None:
    (alice,) = _players(app, "Alice")
    for _ in range(MAX_OPEN_CHALLENGES):
        _post(app, alice)
    with pytest.raises(ChallengeError) as caught:
        _post(app, alice)
    assert caught.value.status == 429
    with app.app_context(), session_scope() as session:
        count = session.exec(select(func.count()).select_from(Challenge)).one()
    assert count == MAX_OPEN_CHALLENGES


def test_two_accepting_at_once_make_exactly_one_game(app: Flask) -> None:
    alice, bob, carol = _players(app, "Alice", "Bob", "Carol")
    challenge = _post(app, alice)
    start = threading.Barrier(2)
    outcomes: list[object] = []

    def accept(taker: int) -> None:
        start.wait()
        try:
            outcomes.append(_accept(app, challenge, taker))
        except ChallengeError as error:
            outcomes.append(error.status)

    threads = [threading.Thread(target=accept, args=(p,)) for p in (bob, carol)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes, key=str).count(409) == 1, outcomes
    assert _games(app) == 1


def test_automatch_pairs_the_next_compatible_request(app: Flask) -> None:
    alice, bob, carol = _players(app, "Alice", "Bob", "Carol")
    with app.app_context(), session_scope() as session:
        block(session, carol, alice)
    keep = ChallengeTerms(**{**TERMS.__dict__, "keep_going": True})
    with app.app_context(), session_scope() as session:
        first = find_opponent(session, session.get(Player, alice), keep)  # type: ignore[arg-type]
        assert first.status == ChallengeStatus.OPEN
        other = ChallengeTerms(**{**TERMS.__dict__, "days_per_move": 5})
        assert find_opponent(session, session.get(Player, bob), other).status == "open"  # type: ignore[arg-type]
    with app.app_context(), session_scope() as session:
        blocked = find_opponent(session, session.get(Player, carol), TERMS)  # type: ignore[arg-type]
        assert blocked.status == ChallengeStatus.OPEN
    with app.app_context(), session_scope() as session:
        paired = find_opponent(session, session.get(Player, bob), TERMS)  # type: ignore[arg-type]
        assert paired.status == ChallengeStatus.TAKEN and paired.game_id is not None
        game_id = paired.game_id
        seats = read_seats(session, game_id)
        assert {p.id for _, p in seats.values()} == {alice, bob}
        started = session.exec(
            select(OutboxMessage.player_id).where(
                OutboxMessage.game_id == game_id, OutboxMessage.kind == "game_started"
            )
        ).all()
        assert set(started) == {alice, bob} and len(started) == 2
    # The kept-going request is renewed once its game is over, not before.
    later = clock.now() + timedelta(hours=2)
    with app.app_context():
        assert renew_due(later).renewed == []
    with app.app_context(), session_scope() as session:
        game = session.get(Game, game_id)
        assert game is not None
        game.status = GameStatus.FINISHED
        session.add(game)
    with app.app_context():
        report = renew_due(later + timedelta(hours=2))
        assert len(report.renewed) == 1
        assert renew_due(later + timedelta(hours=4)).renewed == []
    with app.app_context(), session_scope() as session:
        fresh = session.get(Challenge, report.renewed[0])
        assert fresh is not None and fresh.poster_id == alice and fresh.keep_going
        assert (
            session.exec(
                select(func.count()).select_from(Challenge).where(col(Challenge.poster_id) == alice)
            ).one()
            == 2
        )


def test_the_beat_schedule_renews_standing_requests(app: Flask) -> None:
    celery = app.extensions["celery"]
    tasks = {entry["task"] for entry in celery.conf.beat_schedule.values()}
    assert RENEW_TASK in tasks
    with app.app_context():
        # The eager result's value, not .get(): Celery refuses .get() while any task context
        # (another test's eager task) is on its stack.
        ran = celery.tasks[RENEW_TASK].apply()
        assert ran.successful()
        assert ran.result == {
            "renewed": [],
            "waiting": 0,
            "expired": 0,
            "paired": [],
        }


def test_the_beat_task_marks_expired_challenges(app: Flask) -> None:
    alice, bob = _players(app, "Alice", "Bob")
    old, fresh = _post(app, alice), _post(app, bob)
    with app.app_context(), session_scope() as session:
        row = session.get(Challenge, old)
        assert row is not None
        row.expires_at = clock.now() - timedelta(minutes=1)
        session.add(row)
    with app.app_context():
        assert renew_due().expired == 1
        assert renew_due().expired == 0
    with app.app_context(), session_scope() as session:
        statuses = {c.id: c.status for c in session.exec(select(Challenge))}
    assert statuses == {old: ChallengeStatus.EXPIRED, fresh: ChallengeStatus.OPEN}


def test_the_renewal_task_runs_on_the_turns_queue() -> None:
    import worker

    assert worker.RENEW_TASK == RENEW_TASK
    assert worker.TASK_QUEUES[RENEW_TASK] == worker.TURNS_QUEUE


def test_the_beat_task_pairs_requests_that_did_not_see_each_other(app: Flask) -> None:
    alice, bob, carol = _players(app, "Alice", "Bob", "Carol")
    with app.app_context(), session_scope() as session:
        for poster in (alice, bob, carol):
            player = session.get(Player, poster)
            assert player is not None
            # Posted without pairing: as two transactions at the same moment leave them.
            post_challenge(session, player, TERMS, ChallengeKind.AUTOMATCH)
    with app.app_context():
        report = renew_due()
        assert len(report.paired) == 1
        assert renew_due().paired == []
    with app.app_context(), session_scope() as session:
        rows = session.exec(select(Challenge).order_by(col(Challenge.id))).all()
        assert [r.status for r in rows] == ["taken", "taken", "open"]
        assert rows[0].game_id == rows[1].game_id == report.paired[0]
        assert rows[0].taken_by_id == bob and rows[1].taken_by_id == alice


def _suspend(app: Flask, player_id: int) -> None:
    """The operator's command, as they type it."""
    said = app.test_cli_runner().invoke(args=["moderation", "suspend", str(player_id)])
    assert f"Player {player_id} suspended." in said.output, said.output


def _find(app: Flask, player_id: int, terms: ChallengeTerms = TERMS) -> Challenge:
    with app.app_context(), session_scope() as session:
        player = session.get(Player, player_id)
        assert player is not None
        return find_opponent(session, player, terms)


def test_suspending_a_player_withdraws_their_challenges_and_standing_requests(
    app: Flask,
) -> None:
    alice, bob, carol = _players(app, "Alice", "Bob", "Carol")
    keep = ChallengeTerms(**{**TERMS.__dict__, "keep_going": True})
    assert _find(app, alice, keep).status == ChallengeStatus.OPEN
    paired = _find(app, carol)  # takes Alice's kept-going request: a game, renewed when over
    assert paired.status == ChallengeStatus.TAKEN and paired.game_id is not None
    waiting = _find(app, alice, ChallengeTerms(**{**keep.__dict__, "days_per_move": 5}))
    lobby = _post(app, alice)
    bobs = _post(app, bob)
    _suspend(app, alice)
    with app.app_context(), session_scope() as session:
        rows = {c.id: c for c in session.exec(select(Challenge))}
        assert rows[waiting.id].status == ChallengeStatus.WITHDRAWN
        assert rows[lobby].status == ChallengeStatus.WITHDRAWN
        assert rows[bobs].status == ChallengeStatus.OPEN
        taken = next(c for c in rows.values() if c.poster_id == alice and c.game_id)
        assert taken.status == ChallengeStatus.TAKEN and taken.renew_at is None
        assert [c.id for c in open_challenges(session)] == [bobs]
        game = session.get(Game, paired.game_id)
        assert game is not None and game.status == GameStatus.ACTIVE  # their games go on
        game.status = GameStatus.FINISHED
        session.add(game)
    # Her kept-going request is not posted again once its game is over.
    with app.app_context():
        assert renew_due(clock.now() + timedelta(hours=2)).renewed == []


def _suspended_directly(app: Flask, player_id: int) -> None:
    """Suspended without the command's withdrawal (a row the command has not reached): the
    lobby and automatch still must not offer what is theirs."""
    with app.app_context(), session_scope() as session:
        player = session.get(Player, player_id)
        assert player is not None
        player.suspended_at = clock.now()
        session.add(player)


def test_a_suspended_players_challenges_are_never_listed_taken_or_paired(app: Flask) -> None:
    alice, bob, carol = _players(app, "Alice", "Bob", "Carol")
    challenge = _post(app, alice)
    assert _find(app, alice).status == ChallengeStatus.OPEN
    _suspended_directly(app, alice)
    with app.app_context(), session_scope() as session:
        assert open_challenges(session) == []
        assert open_challenges(session, viewer_id=bob) == []
    assert _refused(app, challenge, bob) == 409
    assert _find(app, bob).status == ChallengeStatus.OPEN  # not paired with Alice's
    with app.app_context():
        paired = renew_due().paired
    with app.app_context(), session_scope() as session:
        seated = {p.id for g in paired for _, p in read_seats(session, g).values()}
    assert alice not in seated
    assert _find(app, carol).game_id is not None  # Bob's request is paired with Carol's
    assert _games(app) == 1


def test_a_suspended_player_cannot_post_accept_or_ask_for_an_opponent(app: Flask) -> None:
    alice, bob = _players(app, "Alice", "Bob")
    bobs = _post(app, bob)
    _suspend(app, alice)
    for attempt in (
        lambda: _post(app, alice),
        lambda: _find(app, alice),
        lambda: _accept(app, bobs, alice),
    ):
        with pytest.raises(ChallengeError) as caught:
            attempt()
        assert caught.value.status == 403
        assert "suspended" in str(caught.value)
    with app.app_context(), session_scope() as session:
        assert [c.poster_id for c in session.exec(select(Challenge))] == [bob]
    assert _games(app) == 0


def _post_and_suspend_at_once(app: Flask, poster: int) -> list[str]:
    """One post and one suspension of ``poster`` started together: what each came to."""
    from service.players.moderation import suspend

    start = threading.Barrier(2)
    outcomes: list[str] = []

    def post() -> None:
        start.wait()
        try:
            _post(app, poster)
            outcomes.append("posted")
        except ChallengeError as error:
            outcomes.append(str(error.status))

    def suspend_now() -> None:
        start.wait()
        with app.app_context(), session_scope() as session:
            outcomes.append("suspended" if suspend(session, poster, clock.now()) else "not")

    threads = [threading.Thread(target=post), threading.Thread(target=suspend_now)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sorted(outcomes)


def test_a_challenge_posted_while_its_poster_is_suspended_is_refused_or_withdrawn(
    app: Flask,
) -> None:
    """Posting and suspending at the same moment, in either order: never an open challenge of a
    suspended player afterwards."""
    for round_ in range(4):
        (poster,) = _players(app, f"Racer{round_}")
        outcomes = _post_and_suspend_at_once(app, poster)
        assert outcomes in (["403", "suspended"], ["posted", "suspended"]), outcomes
        with app.app_context(), session_scope() as session:
            statuses = session.exec(
                select(Challenge.status).where(col(Challenge.poster_id) == poster)
            ).all()
        assert all(status != ChallengeStatus.OPEN for status in statuses), statuses
