"""Who is honoured by name: Japanese writes さん after a person's name ("Hanaさん"), after each
name of a list ("HanaさんとKenさん"), and never after the computer's ("コンピューター (ふつう)")
nor after "a former player".

The Japanese catalogue writes the honorific where the sentence wants it, right after the
placeholder (「%(opponents)sさんとの…」); ``honoured_message`` takes it out of the message and
``honoured`` puts it back on each value that is a person's name. The values say what they are:
a plain string is a person's name, ``Unhonoured`` names no person, and ``NameList`` is a list
of names in words, its parts kept so that each is honoured on its own.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import lru_cache

from markupsafe import Markup

HONORIFIC = "さん"
"""The honorific the Japanese catalogue writes after a person's name."""

_HONOURED = re.compile(r"%\((\w+)\)s" + HONORIFIC)


class Unhonoured(str):
    """A name that takes no honorific: the computer's, "a former player"."""

    __slots__ = ()


class NameList(str):
    """Names as a list in words ("Hana and Ken"), with the names it lists and the function that
    wrote it (to write the list again of the honoured names)."""

    parts: tuple[str, ...]
    rewrite: Callable[[list[str]], str]

    def __new__(
        cls, text: str, parts: Sequence[str], rewrite: Callable[[list[str]], str]
    ) -> NameList:
        made = super().__new__(cls, text)
        made.parts = tuple(parts)
        made.rewrite = rewrite
        return made


@lru_cache(maxsize=2048)
def honoured_message(text: str) -> tuple[str, frozenset[str]]:
    """A translated message without the honorific after its placeholders, and the names of the
    placeholders that had it."""
    if HONORIFIC not in text:
        return text, frozenset()
    names = frozenset(_HONOURED.findall(text))
    return _HONOURED.sub(r"%(\1)s", text), names


def honoured(value: object) -> object:
    """``value`` as a sentence names it with the honorific: a person's name with it, each name
    of a list with it, a name of no person as it is."""
    if isinstance(value, NameList):
        return value.rewrite([str(honoured(part)) for part in value.parts])
    if isinstance(value, Unhonoured):
        return str(value)
    if isinstance(value, Markup):
        return value + HONORIFIC  # a name in a link stays markup
    return f"{value}{HONORIFIC}"


def honour(text: str, variables: dict[str, object]) -> tuple[str, dict[str, object]]:
    """The message and values to format: those of a message with honorifics after some of its
    placeholders (Japanese) honoured by what each value is; any other as they are."""
    if HONORIFIC not in text:
        return text, variables
    text, names = honoured_message(text)
    if not names:
        return text, variables
    return text, {k: honoured(v) if k in names else v for k, v in variables.items()}


def with_name(text: str, mark: str, name: str, shown: str | None = None) -> str:
    """``text`` (a sentence kept for any player, ``mark`` where the name goes) naming ``name``,
    written as ``shown`` (default: itself; an escaped name in HTML): with the honorific where
    the sentence wrote one after the mark, if ``name`` takes one."""
    written = name if shown is None else shown
    if HONORIFIC in text:
        honorific = "" if isinstance(name, Unhonoured) else HONORIFIC
        text = text.replace(mark + HONORIFIC, written + honorific)
    return text.replace(mark, written)
