"""``python -m engine claims`` and ``python -m engine compare``: JSON lines in, JSON lines out.

The formats are docs/formats.md's, exactly. Every input line gives one output line, in order; a line
that cannot be read or describes an impossible situation gives ``{"id": ..., "error": ...}`` and
the run goes on.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, TextIO

from engine.errors import EngineError, InvalidSituationError
from engine.formations import FormationValue, evaluate, formation_size
from engine.prover import UnseenTroops, check_situation, prove_claim
from engine.rulesets import Ruleset, get_ruleset

_DEFAULT_RULESET = "battleline"


def _dump(obj: dict[str, Any]) -> str:
    return json.dumps(obj, separators=(",", ":"))


def _cards(request: dict[str, Any], field: str, ruleset: Ruleset, required: bool) -> list[str]:
    """A list of card codes from a request field, read case-insensitively."""
    if field not in request:
        if required:
            raise InvalidSituationError(f"the field {field!r} is missing")
        return []
    raw = request[field]
    if not isinstance(raw, list) or not all(isinstance(c, str) for c in raw):
        raise InvalidSituationError(f"{field!r} must be a list of card codes")
    return [ruleset.parse_card(c) for c in raw]


def _ruleset(request: dict[str, Any]) -> Ruleset:
    name = request.get("ruleset", _DEFAULT_RULESET)
    if not isinstance(name, str):
        raise InvalidSituationError("'ruleset' must be a string")
    return get_ruleset(name)


def _answer_lines(lines: Iterable[str], out: TextIO, answer: Any) -> None:
    """Run ``answer(request) -> dict`` on each non-blank line and write one JSON line each."""
    for line in lines:
        if not line.strip():
            continue  # a blank line (a trailing newline, say) is no request
        request_id: Any = None
        try:
            try:
                request = json.loads(line)
            except json.JSONDecodeError as error:
                raise InvalidSituationError(f"the line is not JSON: {error}") from None
            if not isinstance(request, dict):
                raise InvalidSituationError("a request must be a JSON object")
            request_id = request.get("id")
            result = {"id": request_id, **answer(request)}
        except (EngineError, ValueError) as error:
            result = {"id": request_id, "error": str(error)}
        out.write(_dump(result) + "\n")
        out.flush()


def claim_answer(request: dict[str, Any]) -> dict[str, Any]:
    """The answer to one ``claims`` request (without its id); raises EngineError or ValueError."""
    ruleset = _ruleset(request)
    env = _cards(request, "env", ruleset, required=False)
    mine = _cards(request, "mine", ruleset, required=True)
    theirs = _cards(request, "theirs", ruleset, required=False)
    visible = _cards(request, "visible", ruleset, required=False)
    completed_last = request.get("completed_last")
    if completed_last not in (None, "mine", "theirs"):
        raise InvalidSituationError('\'completed_last\' must be "mine" or "theirs"')
    check_situation(mine, theirs, env, visible, ruleset)
    unseen = UnseenTroops.from_visible([*mine, *theirs, *visible], ruleset)
    proof = prove_claim(mine, theirs, env, unseen, ruleset, completed_last)
    if proof.claimable:
        return {"claimable": True}
    return {"claimable": False, "reason": proof.reason}


def _formation_json(value: FormationValue) -> dict[str, Any]:
    return {"formation": value.formation.name.lower(), "sum": value.total}


def compare_answer(request: dict[str, Any]) -> dict[str, Any]:
    """The answer to one ``compare`` request (without its id); raises EngineError or ValueError.

    No R12 tie-break: equal strength is ``"tie"``.
    """
    ruleset = _ruleset(request)
    env = _cards(request, "env", ruleset, required=False)
    a = _cards(request, "a", ruleset, required=True)
    b = _cards(request, "b", ruleset, required=True)
    check_situation(a, b, env, [], ruleset)
    size = formation_size(env, ruleset)
    for name, side in (("a", a), ("b", b)):
        if len(side) != size:
            raise InvalidSituationError(
                f"side {name} holds {len(side)} cards; a complete formation here has {size}"
            )
    value_a = evaluate(a, env, ruleset)
    value_b = evaluate(b, env, ruleset)
    if value_a.strength > value_b.strength:
        winner = "a"
    elif value_a.strength < value_b.strength:
        winner = "b"
    else:
        winner = "tie"
    return {"winner": winner, "a": _formation_json(value_a), "b": _formation_json(value_b)}


def run_claims(lines: Iterable[str], out: TextIO) -> None:
    """``python -m engine claims``: one claim check per JSON line (docs/formats.md)."""
    _answer_lines(lines, out, claim_answer)


def run_compare(lines: Iterable[str], out: TextIO) -> None:
    """``python -m engine compare``: one formation comparison per JSON line (docs/formats.md)."""
    _answer_lines(lines, out, compare_answer)
