"""Validation of the new-game form (shared by the web form and the command line)."""

from __future__ import annotations

import pytest

from engine import ClaimTiming
from service.lobby.forms import FormError, NewGame, parse_new_game
from service.models import Visibility
from tests.service.conftest import VALID_FORM


def _errors(**changes: str) -> dict[str, str]:
    with pytest.raises(FormError) as caught:
        parse_new_game({**VALID_FORM, **changes})
    return caught.value.errors


def test_valid_form() -> None:
    new = parse_new_game({**VALID_FORM, "a_email": "  Alice@Example.ORG ", "a_name": " Alice "})
    assert new == NewGame(
        a_name="Alice",
        a_email="alice@example.org",
        b_name="Bob",
        b_email="bob@example.org",
        ruleset="battleline",
        claims=ClaimTiming.ADVANCED,
        days_per_move=3,
        visibility=Visibility.UNLISTED,
    )


def test_defaults_for_optional_fields() -> None:
    required = {k: VALID_FORM[k] for k in ("a_name", "a_email", "b_name", "b_email")}
    new = parse_new_game(required)
    assert (new.ruleset, new.claims, new.days_per_move, new.visibility) == (
        "battleline",
        ClaimTiming.ADVANCED,
        3,
        Visibility.UNLISTED,
    )


@pytest.mark.parametrize(
    "email",
    [
        "",
        "alice",
        "alice@",
        "@example.org",
        "alice@example",
        "alice@@example.org",
        "alice example@example.org",
        "alice@exa mple.org",
        ".alice@example.org",
        "alice.@example.org",
        "al..ice@example.org",
        "alice@-example.org",
        "alice@example..org",
        "Alice <alice@example.org>",
        "alice@example.org, eve@example.org",
        "alicé@example.org",
        "a" * 65 + "@example.org",
        "a@" + "b" * 250 + ".org",
    ],
)
def test_bad_emails(email: str) -> None:
    assert "a_email" in _errors(a_email=email)


@pytest.mark.parametrize(
    "email",
    [
        "alice@example.org\r\nBcc: eve@example.org",
        "alice@example.org\n",
        "\ralice@example.org",
        "alice@example.org\u2028",
    ],
)
def test_header_injection_in_email(email: str) -> None:
    assert _errors(b_email=email)["b_email"] == "must be on one line"


@pytest.mark.parametrize("name", ["Eve\r\nBcc: victim@example.org", "Eve\n", "Eve\x85Bcc", "\rEve"])
def test_header_injection_in_name(name: str) -> None:
    assert _errors(a_name=name)["a_name"] == "must be on one line"


@pytest.mark.parametrize("name", ["Eve\x00", "Eve\x1b[31m", "Eve\u202eevil", "Eve\tTab"])
def test_control_characters_in_name(name: str) -> None:
    assert _errors(b_name=name)["b_name"] == "must not contain control characters"


@pytest.mark.parametrize(
    "name", ["=?utf-8?q?Alice=40bank=2Eexample?=", "Eve =?UTF-8?B?QWxpY2U=?=", "a=?b"]
)
def test_encoded_words_in_name(name: str) -> None:
    """A receiver would decode ``=?charset?q?...?=`` in To: into other text (RFC 2047)."""
    assert _errors(a_name=name)["a_name"] == 'must not contain "=?" (it reads as encoded text)'


@pytest.mark.parametrize("name", ["", "   ", "\u200b\u200b", " \u2063 ", "\u0301", "\u3000\u200d"])
def test_name_required(name: str) -> None:
    """A name of invisible characters only is no name (it would show as nothing)."""
    assert _errors(a_name=name)["a_name"].startswith("is required")


def test_oversized_fields() -> None:
    errors = _errors(a_name="x" * 41, b_email="b" * 300 + "@example.org")
    assert errors == {
        "a_name": "must be at most 40 characters",
        "b_email": "must be at most 254 characters",
    }
    assert parse_new_game({**VALID_FORM, "a_name": "x" * 40}).a_name == "x" * 40


def test_opponent_must_be_someone_else() -> None:
    assert "b_email" in _errors(b_email="ALICE@example.org")


@pytest.mark.parametrize("days", ["0", "15", "-1", "3.5", "three", "１", "007", "1e1"])
def test_days_per_move_range(days: str) -> None:
    assert "days_per_move" in _errors(days_per_move=days)


@pytest.mark.parametrize("days", ["1", "14"])
def test_days_per_move_bounds(days: str) -> None:
    assert parse_new_game({**VALID_FORM, "days_per_move": days}).days_per_move == int(days)


@pytest.mark.parametrize(
    ("field", "value"),
    [("ruleset", "chess"), ("claims", "whenever"), ("visibility", "secret")],
)
def test_choices(field: str, value: str) -> None:
    assert field in _errors(**{field: value})


def test_every_ruleset_is_offered() -> None:
    for name in ("battleline", "no-tactics", "playing-cards", "schotten-totten"):
        assert parse_new_game({**VALID_FORM, "ruleset": name}).ruleset == name


def test_all_errors_at_once() -> None:
    errors = _errors(a_name="", a_email="x", b_name="", b_email="y", days_per_move="99")
    assert set(errors) == {"a_name", "a_email", "b_name", "b_email", "days_per_move"}
