"""The translation catalogues: every marked message is in the template, translated in every
language, and each compiled catalogue (what the server reads) is its .po compiled."""

from __future__ import annotations

import io
import re
import subprocess
import sys
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from service.i18n import LANGUAGE_CODES, TRANSLATIONS

ROOT = Path(__file__).resolve().parents[2]
TRANSLATED = [code for code in LANGUAGE_CODES if code != "en"]


def _catalog(code: str) -> Catalog:
    with open(TRANSLATIONS / code / "LC_MESSAGES" / "messages.po", "rb") as f:
        return read_po(f, locale=code)


def test_the_template_holds_every_marked_message(tmp_path: Path) -> None:
    fresh = tmp_path / "messages.pot"
    subprocess.run(
        [str(Path(sys.executable).parent / "pybabel"), "--quiet", "extract", "-F", "babel.cfg",
         "-k", "lazy_gettext", "-o", str(fresh), "--no-location", "--sort-output", "."],
        cwd=ROOT, check=True,
    )  # fmt: skip
    with open(fresh, "rb") as f:
        marked = {m.id for m in read_po(f) if m.id}
    with open(TRANSLATIONS / "messages.pot", "rb") as f:
        kept = {m.id for m in read_po(f) if m.id}
    assert marked == kept, "run scripts/translations all"


@pytest.mark.parametrize("code", TRANSLATED)
def test_every_message_is_translated(code: str) -> None:
    with open(TRANSLATIONS / "messages.pot", "rb") as f:
        template = {m.id for m in read_po(f) if m.id}
    catalog = _catalog(code)
    missing = sorted(
        str(m.id) for m in catalog if m.id and (not m.string or m.fuzzy or
                                                (isinstance(m.string, tuple) and not all(m.string)))
    )  # fmt: skip
    absent = sorted(str(i) for i in template if i not in catalog)
    assert not missing and not absent, f"untranslated in {code}: {missing + absent}"


@pytest.mark.parametrize("code", TRANSLATED)
def test_the_compiled_catalogue_is_the_po_compiled(code: str) -> None:
    compiled = io.BytesIO()
    write_mo(compiled, _catalog(code))
    kept = (TRANSLATIONS / code / "LC_MESSAGES" / "messages.mo").read_bytes()
    assert kept == compiled.getvalue(), "run scripts/translations compile"


@pytest.mark.parametrize("code", TRANSLATED)
def test_placeholders_survive_translation(code: str) -> None:
    placeholder = re.compile(r"%\((\w+)\)[sd]")
    for message in _catalog(code):
        if message.id and message.string and isinstance(message.id, str):
            assert set(placeholder.findall(message.id)) == set(
                placeholder.findall(str(message.string))
            ), message.id


def test_the_japanese_honorific_joins_the_name_it_follows() -> None:
    """Japanese writes さん against the name ("Hanaさん"): 48 messages had a space between,
    56 none, so one page read "Hana さん" and the next "Hanaさん"."""
    spaced = sorted(
        str(message.id)
        for message in _catalog("ja")
        for string in (message.string if isinstance(message.string, tuple) else [message.string])
        if string and re.search(r"%\(\w+\)s\s+さん", string)
    )
    assert spaced == []
