"""Public names: what every other player sees of a person, never their address.

A player chooses their name (signed in, or confirming a game they started under it). Names are
unique by their *key*, which folds case and look-alike characters together: "AIice" (capital
i), "Аlice" (Cyrillic а) and "alice" all have the key of "Alice", so whoever holds that key
first keeps it. The key is stored with a unique index (``Player.name_key``): two players
claiming the same name at once get it exactly once.

Why a documented map and not a library: the look-alike libraries on PyPI
(``confusable_homoglyphs``, ``confusables``) compare two given strings or list candidates;
neither gives one canonical key per name that a unique index can hold. The key is UTS #39's
idea of a skeleton, on the characters names are written in here: NFKC (full-width letters,
ligatures and compatibility forms fold into plain ones), ``str.casefold``, then the Cyrillic and
Greek letters and digits drawn like Latin letters; capital I looks like small l and case is
folded, so i, I, l (and 1, |) are one letter of the key ("Bill" and "Biil" are one name); then
letter pairs
drawn like one letter (``rn``/``m``), and no spaces or separators at all ("Al ice", "A.lice").
Characters that draw nothing or reorder text (control, format, bidirectional and zero-width
characters) are refused outright, never folded away: a name shows exactly what it is.
"""

from __future__ import annotations

import enum
import unicodedata
from datetime import datetime, timedelta

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from service.catalogue import lazy_gettext
from service.models import Player
from service.refusal import Refusal

MAX_PUBLIC_NAME_LENGTH = 40
"""As ``Player.display_name``'s column."""
NAME_CHANGE_INTERVAL = timedelta(days=30)
"""A name chosen is kept at least this long before the next change (the first choice is free)."""

_LOOKALIKES = str.maketrans(
    {
        "I": "l",  # Latin capital i
        "\u0399": "l",  # Greek capital iota
        "\u0406": "l",  # Cyrillic capital byelorussian-ukrainian i
        "\u04c0": "l",  # Cyrillic palochka
    }
)
"""Capitals that are drawn as a lower-case ``l`` in most fonts: folded before case is."""

_LOOKALIKES = str.maketrans(
    {
        # Cyrillic small letters drawn like Latin ones.
        "\u0430": "a", "\u0435": "e", "\u043e": "o", "\u0440": "p", "\u0441": "c",
        "\u0443": "y", "\u0445": "x", "\u0456": "l", "\u0458": "j", "\u0455": "s",
        "\u0501": "d", "\u04cf": "l", "\u0432": "b", "\u043d": "h", "\u043a": "k",
        "\u043c": "m", "\u0442": "t", "\u0454": "e", "\u0457": "l", "\u04bb": "h",
        "\u051b": "q", "\u051d": "w",
        # Greek small letters drawn like Latin ones (capitals fold into these).
        "\u03b1": "a", "\u03b2": "b", "\u03b5": "e", "\u03b7": "n", "\u03b9": "l",
        "\u03ba": "k", "\u03bd": "v", "\u03bf": "o", "\u03c1": "p", "\u03c4": "t",
        "\u03c5": "u", "\u03c7": "x", "\u03b6": "z", "\u03bc": "u",
        # Latin letters and signs drawn like others.
        # Capital I is small l in most fonts, and case is folded: i, I, l and their
        # look-alikes are one letter.
        "i": "l", "\u0131": "l", "\u0269": "l", "\u01c0": "l", "|": "l", "1": "l",
        "\u0261": "g", "0": "o",
    }
)  # fmt: skip
"""Look-alikes of Latin letters, folded after case is."""

_LETTER_PAIRS = (("rn", "m"), ("vv", "w"))
"""Two letters drawn together like one."""

_SEPARATORS = frozenset(" -_.'’,·・")
"""Left out of the key: "Al ice", "A.lice" and "Alice" are one name."""

_REFUSED_SIGNS = frozenset("@/\\<>")
"""An address (``@``), a path (``/``) or markup: never part of a name."""

_REFUSED_CATEGORIES = frozenset(("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"))
"""Control, format (bidirectional, zero-width), surrogate, private-use and unassigned
characters, and line or paragraph separators."""

RESERVED_NAMES = frozenset(
    (
        "admin", "administrator", "computer", "moderator", "mod", "system", "support",
        "operator", "staff", "root", "postmaster", "abuse", "noreply", "battleline",
        "battle line", "anonymous", "a former player", "former player", "nobody", "you",
        # The computer's levels (``engine.bots.BotLevel``): they name its players.
        "random", "easy", "normal", "strong", "expert",
    )
)  # fmt: skip
"""Names nobody may take: they would pass for the service, the computer or nobody at all."""
_RESERVED_PARTS = ("admin", "moderator", "computer", "battleline")
"""Reserved inside a name too ("Computer (expert)", "Admin Bob")."""


def name_key(name: str) -> str:
    """The key two names share exactly when they are the same or look alike (module docs)."""
    text = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
    text = text.translate(_LOOKALIKES)
    text = "".join(ch for ch in text if ch not in _SEPARATORS and not ch.isspace())
    for pair, letter in _LETTER_PAIRS:
        text = text.replace(pair, letter)
    return text


_RESERVED_KEYS = frozenset(name_key(name) for name in RESERVED_NAMES)
_RESERVED_PART_KEYS = tuple(name_key(part) for part in _RESERVED_PARTS)


class NameProblem(enum.StrEnum):
    """Why a name cannot be anyone's."""

    EMPTY = "empty"
    TOO_LONG = "too-long"
    INVISIBLE = "invisible"
    """A control, format, bidirectional or zero-width character, or a line break."""
    SIGN = "sign"
    """``@``, ``/``, ``\\``, ``<``, ``>`` or ``=?``."""
    NO_LETTER = "no-letter"
    RESERVED = "reserved"


_PROBLEM_WORDS = {
    NameProblem.EMPTY: lazy_gettext("Please type a name."),
    NameProblem.TOO_LONG: lazy_gettext("A name has at most 40 characters."),
    NameProblem.INVISIBLE: lazy_gettext(
        "A name cannot contain control characters, right-to-left marks, zero-width characters "
        "or line breaks: other players must see exactly what it is."
    ),
    NameProblem.SIGN: lazy_gettext(
        "A name cannot contain @, /, \\, < or > (nor =?): it is not an address or a link."
    ),
    NameProblem.NO_LETTER: lazy_gettext("A name needs at least one letter or digit."),
    NameProblem.RESERVED: lazy_gettext(
        "That name is kept for the service or the computer: please choose another."
    ),
}


class NameRefusedError(Refusal):
    """A name that cannot be chosen; nothing was changed."""

    status = 400
    title = lazy_gettext("That name cannot be used")

    def __init__(self, problem: NameProblem) -> None:
        self.problem = problem
        super().__init__(_PROBLEM_WORDS[problem])


class NameTakenError(Refusal):
    """Another player's name has the same key (the same, or a look-alike)."""

    status = 409
    title = lazy_gettext("That name is taken")
    message = lazy_gettext(
        "Another player's name is the same or looks the same (letters of other alphabets, "
        "capital I and small l, 0 and O count alike). Please choose another. Nothing was "
        "changed."
    )


class NameTooSoonError(Refusal):
    """The player changed their name less than ``NAME_CHANGE_INTERVAL`` ago."""

    status = 429
    title = lazy_gettext("Not yet")

    def __init__(self, allowed_at: datetime) -> None:
        self.allowed_at = allowed_at
        super().__init__(
            lazy_gettext(
                "A name can be changed once a month; yours can be changed again from "
                "%(date)s (UTC). Nothing was changed.",
                date=allowed_at.strftime("%Y-%m-%d"),
            )
        )


def check_public_name(value: str) -> str:
    """``value`` as a name (NFC, spaces trimmed at either end). Raises ``NameRefusedError``."""
    if any(unicodedata.category(ch) in _REFUSED_CATEGORIES for ch in value):
        raise NameRefusedError(NameProblem.INVISIBLE)
    name = unicodedata.normalize("NFC", value).strip()
    if not name:
        raise NameRefusedError(NameProblem.EMPTY)
    if len(name) > MAX_PUBLIC_NAME_LENGTH:
        raise NameRefusedError(NameProblem.TOO_LONG)
    if any(ch in _REFUSED_SIGNS for ch in name) or "=?" in name:
        raise NameRefusedError(NameProblem.SIGN)
    if not any(unicodedata.category(ch)[0] in "LN" for ch in name):
        raise NameRefusedError(NameProblem.NO_LETTER)
    key = name_key(name)
    if key in _RESERVED_KEYS or any(part in key for part in _RESERVED_PART_KEYS):
        raise NameRefusedError(NameProblem.RESERVED)
    return name


def player_by_name(session: Session, name: str) -> Player | None:
    """The player whose chosen name is ``name`` or looks like it, if any (none for text no
    name can hold: PostgreSQL refuses a NUL outright)."""
    if any(unicodedata.category(ch) in _REFUSED_CATEGORIES for ch in name):
        return None
    return session.exec(select(Player).where(col(Player.name_key) == name_key(name))).first()


def name_change_allowed_at(player: Player) -> datetime | None:
    """When ``player`` may change their name next; None: now (no change made yet)."""
    if player.name_changed_at is None:
        return None
    return player.name_changed_at + NAME_CHANGE_INTERVAL


def choose_name(session: Session, player: Player, value: str, now: datetime) -> bool:
    """``player`` names themselves ``value``: their public name from now on. False when it is
    already their name, exactly (nothing changes).

    Raises ``NameRefusedError`` (the name itself), ``NameTakenError`` (someone else's, or a
    look-alike of it) and ``NameTooSoonError`` (changed less than a month ago). The first
    choice starts the month only once it is changed: a typo found at once can be mended.
    """
    name = check_public_name(value)
    key = name_key(name)
    if player.name_confirmed and player.display_name == name and player.name_key == key:
        return False
    allowed_at = name_change_allowed_at(player)
    changing = player.name_confirmed and player.name_key is not None
    if changing and allowed_at is not None and now < allowed_at:
        raise NameTooSoonError(allowed_at)
    holder = session.exec(
        select(Player.id).where(col(Player.name_key) == key, col(Player.id) != player.id)
    ).first()
    if holder is not None:
        raise NameTakenError()
    try:
        # A savepoint: the unique index decides between two players claiming it at once.
        with session.begin_nested():
            player.display_name = name
            player.name_key = key
            player.name_confirmed = True
            if changing:
                player.name_changed_at = now
            session.add(player)
    except IntegrityError:
        session.refresh(player)
        raise NameTakenError() from None
    return True
