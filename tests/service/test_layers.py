"""The service's packages point one way (docs/architecture.md):

    foundation modules  <  games (the game store)  <  outbox  <  present  <  areas  <  the factory

An area (play, history, lobby, turns, mail, inbound, people) imports the layers below and never
another area; no two packages import each other in a circle; no import hides inside a function to
dodge one (the app factory registering blueprints is the one exception). Read from the source
with ``ast``: nothing is imported to check it.

Templates receive typed values only: every page and email a game brings about is rendered, and
no value handed to a template is a dict (or a list of dicts) that mypy cannot check.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from flask import Flask, template_rendered
from flask.testing import FlaskClient
from jinja2 import Template

import engine
from service import tokens
from service.db import session_scope
from service.games.rows import get_game
from service.games.seats import read_seats
from service.models import Series
from service.outbox.addresses import confirm, mark_bouncing
from tests.service.conftest import VALID_FORM, sign_in_as
from tests.worker.outbox_rows import link_to, links, path_of, rows
from tests.worker.turn_games import (
    bring_every_turn_email,
    confirm_and_draw,
    create_confirm_accept,
    state_of,
)

SERVICE = Path(__file__).resolve().parents[2] / "service"

# service.players reads only the foundation, so the game store may ask it (who blocks whom, names).
LAYERS = {
    "service.players": 0,
    "service.games": 1,
    "service.ratings": 2,
    "service.outbox": 2,
    "service.present": 3,
}
AREAS = (
    "service.play",
    "service.history",
    "service.lobby",
    "service.turns",
    "service.mail",
    "service.inbound",
    "service.people",
    "service.tournaments",
)
TOP = ("service", "service.embedded_beat")
"""The app factory and the embedded mode's sweep command: they wire the areas together."""


@dataclass(frozen=True)
class Import:
    source: str
    """The importing unit (``service.play``, ``service.models``)."""
    target: str
    where: str
    nested: bool
    """Inside a function or class body rather than at the top of the module."""


def unit(module: str) -> str:
    """service.play.routes -> service.play; service.models -> service.models."""
    return ".".join(module.split(".")[:2])


def rank(name: str) -> int:
    if name in TOP:
        return 5
    if name in AREAS:
        return 4
    return LAYERS.get(name, 0)


def imports() -> Iterator[Import]:
    for path in sorted(SERVICE.rglob("*.py")):
        if "migrations" in path.parts:
            continue
        relative = path.relative_to(SERVICE.parent)
        module = ".".join(relative.with_suffix("").parts).removesuffix(".__init__")
        package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
        tree = ast.parse(path.read_text(), str(path))
        top_level = {id(node) for node in tree.body}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*parts, base] if base else parts)
                names = [base, *(f"{base}.{alias.name}" for alias in node.names)]
            else:
                continue
            for name in names:
                if name.startswith("service.") and unit(name) != unit(module):
                    yield Import(
                        source=unit(module),
                        target=unit(name),
                        where=f"{relative}:{node.lineno}",
                        nested=id(node) not in top_level,
                    )


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one member (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in list(edges):
        if v not in index:
            visit(v)
    return found


@pytest.fixture(scope="module")
def found() -> list[Import]:
    return [i for i in imports() if i.source != "service"]


def test_no_two_service_packages_import_each_other_in_a_circle(found: list[Import]) -> None:
    edges: dict[str, set[str]] = {}
    for i in found:
        edges.setdefault(i.source, set()).add(i.target)
    assert circles(edges) == []


def test_no_import_hides_inside_a_function(found: list[Import]) -> None:
    hidden = [i.where for i in found if i.nested and i.source not in TOP]
    assert hidden == []


def test_python_code_translates_through_the_catalogue() -> None:
    """Flask-Babel's ``gettext`` finds the catalogue through Flask's ``g`` proxy on every
    message; the service's code asks ``service.catalogue``, which gives the same words
    (docs/translating.md)."""
    found = []
    for path in sorted(SERVICE.rglob("*.py")):
        if path.name == "catalogue.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and node.module == "flask_babel":
                found += [
                    f"{path.relative_to(SERVICE.parent)}:{node.lineno} {alias.name}"
                    for alias in node.names
                    if alias.name in {"gettext", "ngettext", "lazy_gettext"}
                ]
    assert found == []


def test_layers_point_down_and_areas_never_sideways(found: list[Import]) -> None:
    wrong = [
        f"{i.where}: {i.source} imports {i.target}"
        for i in found
        if rank(i.target) > rank(i.source)
        or (rank(i.source) == rank(i.target) and rank(i.source) > 0)
    ]
    assert wrong == []


def test_the_checker_sees_a_circle_and_a_sideways_import() -> None:
    """The checks above can fail: a circle and an area importing an area are caught."""
    assert circles({"service.a": {"service.b"}, "service.b": {"service.a"}}) == [
        ["service.a", "service.b"]
    ]
    assert rank("service.play") == rank("service.turns") == 4
    assert rank("service.games") < rank("service.outbox") < rank("service.present")


# --- rules live in engine/ ---------------------------------------------------------------------

TEMPLATES = SERVICE.parent / "templates"
SEAT_LETTERS = frozenset(engine.SEATS)
CLAIM_TIMINGS = frozenset(timing.value for timing in engine.ClaimTiming)
RULESET_NAMES = frozenset(engine.RULESETS)
RULE_WORDS = SEAT_LETTERS | CLAIM_TIMINGS | RULESET_NAMES
FORMATION_SIZES = frozenset({3, 4})
"""Cards in a complete formation (R10): a flag's ``formation_size`` says which."""

_JINJA = re.compile(r"\{\{.*?\}\}|\{%.*?%\}", re.DOTALL)
_QUOTED = r"""["']({})["']""".format("|".join(sorted(map(re.escape, RULE_WORDS))))
_TEMPLATE_RULE_TESTS = (
    re.compile(r"\bclaims\s*(==|!=|\bin\b)"),
    re.compile(r"(==|!=)\s*[\w.]*\bclaims\b"),
    re.compile(r"\bruleset\s*(==|!=|\bin\b)\s*[\"'(\[]"),
    re.compile(rf"(==|!=)\s*{_QUOTED}"),
    re.compile(rf"{_QUOTED}\s*(==|!=|\bin\b|\bnot in\b)"),
    re.compile(r"""\[\s*["'][ABC]["']\s*\]"""),
)


def template_rule_tests(text: str) -> list[str]:
    """The Jinja expressions of ``text`` that test a claim timing, a ruleset or a seat letter."""
    return [
        " ".join(tag.split())
        for tag in _JINJA.findall(text)
        if any(pattern.search(tag) for pattern in _TEMPLATE_RULE_TESTS)
    ]


def test_no_template_tests_a_claim_timing_a_ruleset_or_a_seat_letter() -> None:
    """A template shows what the engine's typed view says (``claims_after_play``,
    ``scout_return_ends_turn``, the follow-ups of each move): it never decides a rule."""
    found = [
        f"{path.relative_to(TEMPLATES)}: {tag}"
        for path in sorted(TEMPLATES.rglob("*"))
        if path.suffix in (".html", ".txt")
        for tag in template_rule_tests(path.read_text())
    ]
    assert found == []


def test_the_template_check_sees_a_rule_test() -> None:
    assert template_rule_tests('{% if view.claims == "advanced" %}x{% endif %}')
    assert template_rule_tests("{{ 'a' if 'standard' != game.claims }}")
    assert template_rule_tests('{% if game.ruleset == "battleline-3p" %}{% endif %}')
    assert template_rule_tests('{% if view.seat == "A" %}{% endif %}')
    assert template_rule_tests("{{ names['B'] }}")
    assert not template_rule_tests("{% if view.claims_after_play %}x{% endif %}")
    assert not template_rule_tests('{{ "B" }} {% if values.series == "points" %}{% endif %}')


RULE_CHECKS_ALLOWED: dict[tuple[str, str], str] = {}
"""Rule-looking code outside engine/ that decides no rule, by (file, source): why each is not
one."""


def rule_checks(tree: ast.AST) -> Iterator[ast.AST]:
    """The nodes of ``tree`` that decide a rule the engine owns: a comparison with a seat letter,
    a claim timing or a ruleset name (or ``ClaimTiming.X``); a formation size compared with the
    number of cards; a seat indexed by its letter (``seats["A"]``) or the first seat picked out
    (``ruleset.seats[0]``, ``SEATS[0]``); a seat letter given as a value (``.get("s", "A")``,
    ``["A", "B", "C"]``)."""

    def rule_word(node: ast.AST) -> bool:
        if isinstance(node, ast.Constant) and node.value in RULE_WORDS:
            return True
        if isinstance(node, ast.Attribute) and node.attr in engine.ClaimTiming.__members__:
            return True
        if isinstance(node, ast.Tuple | ast.List | ast.Set):
            return any(rule_word(e) for e in node.elts)
        return False

    def counts_cards(node: ast.AST) -> bool:
        return isinstance(node, ast.Call) and getattr(node.func, "id", None) == "len"

    def seat_letter(node: ast.AST) -> bool:
        return isinstance(node, ast.Constant) and node.value in SEAT_LETTERS

    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            sized = any(counts_cards(o) for o in operands) and any(
                isinstance(o, ast.Constant) and o.value in FORMATION_SIZES for o in operands
            )
            if sized or any(rule_word(o) for o in operands):
                yield node
        elif isinstance(node, ast.Subscript):
            first = isinstance(node.slice, ast.Constant) and node.slice.value == 0
            seats = (isinstance(node.value, ast.Attribute) and node.value.attr == "seats") or (
                getattr(node.value, "attr", getattr(node.value, "id", None)) == "SEATS"
            )
            if seat_letter(node.slice) or (first and seats):
                yield node
        elif isinstance(node, ast.Call):
            if any(seat_letter(a) for a in node.args):
                yield node
        elif (
            isinstance(node, ast.List | ast.Tuple | ast.Set)
            and len(node.elts) > 1
            and all(seat_letter(e) for e in node.elts)
        ):
            yield node


def service_rule_checks() -> list[str]:
    found = []
    for path in sorted(SERVICE.rglob("*.py")):
        if "migrations" in path.parts:
            continue
        source = path.read_text()
        relative = str(path.relative_to(SERVICE.parent))
        for node in rule_checks(ast.parse(source, relative)):
            text = ast.get_source_segment(source, node) or ""
            if (relative, text) not in RULE_CHECKS_ALLOWED:
                found.append(f"{relative}:{getattr(node, 'lineno', '?')}: {text}")
    return found


def test_no_rule_is_checked_outside_the_engine() -> None:
    """Seat letters, claim timings, rulesets and formation sizes are the engine's: the service
    reads its fields (``engine.FIRST_SEAT``, ``PublicView.claims_after_play``,
    ``ClaimProofView.margin``, ``FlagView.formation_size``) and never compares them itself."""
    assert service_rule_checks() == []


@pytest.mark.parametrize(
    "source",
    [
        'if seat == "A": pass',
        "if state.claims is engine.ClaimTiming.ADVANCED: pass",
        'advanced = game.claims == "advanced"',
        'if game.ruleset in ("battleline-3p", "no-tactics-3p"): pass',
        "if len(cards) == 3: pass",
        'url = links[seats["A"]]',
        "creator = engine.get_ruleset(name).seats[0]",
        'seat = payload.get("s", "A")',
        'choice = click.Choice(["A", "B", "C"])',
    ],
)
def test_the_rule_check_finds_a_rule_outside_the_engine(source: str) -> None:
    assert list(rule_checks(ast.parse(source)))


@pytest.mark.parametrize(
    "source",
    [
        "if seat == engine.FIRST_SEAT: pass",
        'symbols = {"S": "♠", "C": "♣"}',
        'if values.series == "points": pass',
        "key = reply_key(session, seats[0])",
        "if len(parts) == 2: pass",
    ],
)
def test_the_rule_check_passes_what_decides_no_rule(source: str) -> None:
    assert not list(rule_checks(ast.parse(source)))


# --- templates receive typed values ------------------------------------------------------------


def untyped(value: object) -> bool:
    """A dict, or a list or tuple holding one: what a template reads by key, unchecked by mypy."""
    if isinstance(value, dict):
        return True
    return isinstance(value, list | tuple) and any(isinstance(item, dict) for item in value)


def test_templates_receive_typed_values_only(app: Flask, client: FlaskClient) -> None:
    """Every page and email kind the service renders in a game, a game for three, "my games", a
    series and a rematch: each value handed to its template (Flask's own globals aside) is a
    frozen value or a plain one, never a dict that mypy cannot check."""
    with app.test_request_context():
        flask_globals = set(app.jinja_env.globals)
        flask_context: dict[str, object] = {}
        app.update_template_context(flask_context)
    seen: list[tuple[str, str, str]] = []

    def record(sender: Flask, template: Template, context: dict[str, object], **_: object) -> None:
        for key, value in context.items():
            if key in flask_globals or key in flask_context:
                continue
            if untyped(value):
                seen.append((str(template.name), key, type(value).__name__))

    rendered: set[str] = set()

    def names(sender: Flask, template: Template, context: dict[str, object], **_: object) -> None:
        rendered.add(str(template.name))

    with template_rendered.connected_to(record, app), template_rendered.connected_to(names, app):
        bring_every_page_and_email(app, client)
    assert rendered >= EVERY_TEMPLATE, EVERY_TEMPLATE - rendered
    untyped_values = "\n".join(f"{name}: {key} ({kind})" for name, key, kind in sorted(set(seen)))
    assert not untyped_values, f"templates given dicts:\n{untyped_values}"


EMAILS = (
    "confirm_address", "digest", "game_cancelled", "game_over", "game_started", "invitation",
    "my_games", "rematch_confirm", "reminder", "running_late", "seat_unreachable", "series_left",
    "timeout_notice", "your_turn",
)  # fmt: skip
PAGES = (
    "error", "games/check_email", "games/invitation", "games/new", "games/private",
    "games/public", "games/rematch", "games/rematch_asked", "history/index", "history/my_games",
    "history/my_games_request", "history/public", "history/series", "play/confirm",
    "play/leave_series", "play/private", "play/refused", "play/resign",
)  # fmt: skip
EVERY_TEMPLATE = {f"email/{kind}.{part}" for kind in EMAILS for part in ("txt", "html")} | {
    f"{page}.html" for page in PAGES
}
"""The emails of a game and the pages of the lobby, play and history areas (the replies by email
and the development outbox aside)."""


def bring_every_page_and_email(app: Flask, client: FlaskClient) -> None:
    ann, ben, cat = "ann@example.org", "ben@example.org", "cat@example.org"
    form = {**VALID_FORM, "a_name": "Ann", "a_email": ann, "b_name": "Ben", "b_email": ben}
    form["visibility"] = "public"  # listed on /games
    assert client.get("/games/new").status_code == 200
    assert client.post("/games/new", data={**form, "b_email": ann}).status_code == 422
    game_id = create_confirm_accept(app, client, form)
    state = state_of(app, game_id)
    with app.app_context(), session_scope() as session:
        public_id = get_game(session, game_id).public_id
        pages = {s: f"/p/{tokens.make_private_token(game_id, s, 0)}" for s in ("A", "B")}
    for page in pages.values():
        assert client.get(page).status_code == 200
    assert client.get(pages[state.to_move] + "/resign").status_code == 200
    your_turn = rows(app, kind="your_turn", game_id=game_id)[-1]
    move_url = next(url for url in links(your_turn.html_body) if "/m/" in url)
    assert confirm_and_draw(client, move_url) == 303
    assert client.get(move_url).status_code == 200  # already played: the refusal page
    assert client.get(f"/games/{public_id}?ply=1").status_code == 200
    assert client.get("/games").status_code == 200
    assert client.get("/games/no-such-game").status_code == 404
    assert client.get("/games/new/sent").status_code == 200

    # A game for three that one player declines: the others hear it is cancelled.
    sign_in_as(app, client, ann, "Ann")
    assert client.get("/games/new").status_code == 200
    three = {**form, "ruleset": "battleline-3p", "c_name": "Cat", "c_email": cat}
    assert client.post("/games/new", data=three).status_code == 303
    to_cat = rows(app, kind="invitation", recipient=cat)[-1]
    assert to_cat.game_id is not None
    with app.app_context(), session_scope() as session:
        waiting = get_game(session, to_cat.game_id).public_id
    assert client.get(f"/games/{waiting}").status_code == 200
    decline = path_of(link_to(to_cat.text_body, "/decline"))
    assert client.get(decline.removesuffix("/decline")).status_code == 200
    assert client.get(decline).status_code == 200
    assert client.post(decline).status_code == 303

    assert client.get("/me").status_code == 200
    assert client.post("/me", data={"email": ben}).status_code == 200
    my_games = rows(app, kind="my_games", recipient=ben)[-1]
    assert client.get(path_of(link_to(my_games.text_body, "/me/"))).status_code == 200

    # The waiting player's address bounces: the one to move is told.
    waiter = "B" if state_of(app, game_id).to_move == "A" else "A"
    with app.app_context(), session_scope() as session:
        bouncing = read_seats(session, game_id)[waiter][1].id
        assert bouncing is not None
        mark_bouncing(session, bouncing, "550 5.1.1 no such user")
    with app.app_context(), session_scope() as session:
        confirm(session, bouncing)
    try:
        bring_every_turn_email(app, client, game_id)
    finally:
        app.config.pop("CLOCK_NOW", None)
    assert client.get(f"/games/{public_id}").status_code == 200
    assert client.get(pages["A"]).status_code == 200
    assert client.get(pages["B"] + "/rematch").status_code == 200
    asked = client.post(pages["B"] + "/rematch")
    assert asked.status_code == 303
    assert client.get(asked.headers["Location"]).status_code == 200
    confirmation = rows(app, kind="rematch_confirm", recipient=ben)[-1]
    assert client.get(path_of(link_to(confirmation.text_body, "/rematch/"))).status_code == 200

    # A series: its page, leaving it, and the game over of a game of it.
    series_form = {**form, "series": "games", "series_games": "3"}
    assert client.post("/games/new", data=series_form).status_code == 303
    invitation = rows(app, kind="invitation", recipient=ben)[-1]
    assert client.post(path_of(link_to(invitation.text_body, "/accept"))).status_code == 303
    series_game = invitation.game_id
    assert series_game is not None
    with app.app_context(), session_scope() as session:
        game = get_game(session, series_game)
        series = session.get(Series, game.series_id)
        assert series is not None
        ben_page = f"/p/{tokens.make_private_token(series_game, 'B', 0)}"
    assert client.get(f"/series/{series.public_id}").status_code == 200
    state = state_of(app, series_game)
    resign = {"ply": str(state.ply), "move": "resign"}
    with app.app_context():
        mover_page = f"/p/{tokens.make_private_token(series_game, state.to_move, 0)}"
    assert client.post(mover_page + "/move", data=resign).status_code == 303
    assert client.get(f"/series/{series.public_id}").status_code == 200
    assert client.get(ben_page + "/leave-series").status_code == 200
    assert client.post(ben_page + "/leave-series").status_code == 303
