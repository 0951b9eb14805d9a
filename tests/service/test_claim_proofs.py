"""A claim is kept with the proof that made it hold (``moves.proof``), so that saying why it held
needs no replay: the kept proof says exactly what a replay to the position before the claim says,
on the pages and in the emails; claims logged before proofs were kept are still explained."""

from __future__ import annotations

import random
import re
from datetime import UTC, datetime

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import col, update

import engine
from service.db import session_scope
from service.games.claim_proofs import proof_record
from service.games.loaded import load_game
from service.games.move_log import LogEntry, move_log
from service.games.state import apply_moves, load_state, state_at
from service.kept import Kept
from service.models import MoveEntry
from service.present import claims as claim_words
from tests.engine.builders import position
from tests.service.play_driver import create_and_accept


def play_with_claims(app: Flask, game_id: int, rng: random.Random) -> engine.GameState:
    """Random legal moves through the service, claiming whatever can be claimed, to the end."""
    for _ in range(2000):
        with app.app_context(), session_scope() as session:
            state = load_state(session, load_game(session, game_id))
            if state.result is not None:
                return state
            moves = engine.legal_moves(state)
            claims = [m for m in moves if m.action is engine.Action.CLAIM]
            move = claims[0] if claims else rng.choice(moves)
            assert state.to_move is not None
            apply_moves(session, game_id, state.to_move, state.ply, [move])
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("ruleset", ["battleline", "schotten-totten"])
def test_every_claim_is_kept_with_what_a_replay_says_of_it(
    app: Flask, client: FlaskClient, ruleset: str
) -> None:
    game = create_and_accept(app, client, ruleset=ruleset, seed=f"kept-proofs-{ruleset}")
    final = play_with_claims(app, game["id"], random.Random(ruleset))
    assert final.result is not None
    with app.app_context(), session_scope() as session:
        row = load_game(session, game["id"])
        entries = move_log(session, game["id"])
        claims = [e for e in entries if " claim " in f" {e.notation} "]
        assert claims, "random movers that claim what they can make claims"
        for entry in entries:
            assert (entry.proof is not None) == (entry in claims), entry
        for entry in claims:
            before = state_at(session, row, entry.ply)
            assert before is not None
            move = engine.parse_move(entry.notation, before.ruleset)
            assert move.flag is not None
            replayed = claim_words.claims_now(before, move.seat)[move.flag]
            assert claim_words.from_record(entry, row.game.ruleset) == replayed


def without_link_times(html: str) -> str:
    """A page with its signed links' timestamps taken out (each render signs anew)."""
    return re.sub(r"(/p/[\w-]+)\.[\w-]+\.[\w-]+", r"\1", html)


def test_pages_say_the_same_of_claims_kept_and_of_claims_logged_before(
    app: Flask, client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = create_and_accept(app, client, seed="kept-proofs-pages")
    play_with_claims(app, game["id"], random.Random(7))
    pages = [f"/games/{game['public_id']}", f"/p/{game['token']['A']}", f"/p/{game['token']['B']}"]
    kept = [without_link_times(client.get(page).get_data(as_text=True)) for page in pages]
    assert all('class="why"' in html for html in kept)
    # As a game logged before revision 0011 stands: no proof kept, explained by a replay.
    with app.app_context(), session_scope() as session:
        session.exec(
            update(MoveEntry).where(col(MoveEntry.game_id) == game["id"]).values(proof=None)
        )
    monkeypatch.setattr(claim_words, "_KEPT", Kept(claim_words.KEPT_CLAIMS))
    replayed = [without_link_times(client.get(page).get_data(as_text=True)) for page in pages]
    assert replayed == kept


WEDGE_8_9_10 = ["R8", "R9", "R10"]
WHEN = datetime(2026, 1, 1, tzinfo=UTC)


@pytest.mark.parametrize(
    ("flag", "hands", "empty_decks", "said"),
    [
        ({"A": WEDGE_8_9_10, "B": ["G1"]}, {"A": ["Y1"]}, True, "stands: too few unseen troops"),
        ({"A": WEDGE_8_9_10, "B": ["G1", "Y5"]}, {}, False, "stands: nothing Bob could still"),
        ({"A": WEDGE_8_9_10, "B": ["G1", "G2"]}, {}, False, "cannot be beaten: the best Bob"),
        ({"A": ["R1", "R2", "R3"], "B": ["G1", "G2"]}, {}, False, "can at best be tied, by Bob's"),
        (
            {"A": ["R1", "R2", "R3"], "B": ["G1", "G2", "G3"]},
            {},
            False,
            "and Bob completed Bob's side last (R12)",
        ),
    ],
)
def test_why_a_claim_held_is_said_the_same_live_and_from_the_kept_proof(
    flag: dict[str, list[str]], hands: dict[str, list[str]], empty_decks: bool, said: str
) -> None:
    """Each ground of a claim (the two ties of R12 included) is said from the engine's proof,
    live and from the fields kept with the claim, with the same words."""
    state = position(flags={1: flag}, hands=hands, empty_decks=empty_decks)
    names = {"A": "Alice", "B": "Bob"}
    live = claim_words.claims_now(state, "A")[1]
    text = " ".join(p.value for p in live.words(names, None))
    assert said in text
    record = proof_record(state, engine.parse_move("A: claim 1", state.ruleset))
    assert record is not None
    kept = claim_words.from_record(
        LogEntry(state.ply, "A", "A: claim 1", WHEN, record), "battleline"
    )
    assert kept == live
    # A proof kept with "done" for a loser complete below the claimer reads the same.
    if "cannot be beaten" in said:
        older = claim_words.from_record(
            LogEntry(state.ply, "A", "A: claim 1", WHEN, {**record, "done": True}),
            "battleline",
        )
        assert older.words(names, None) == live.words(names, None)
