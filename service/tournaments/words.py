"""The tournament pages' words for stored values, in the reader's language."""

from __future__ import annotations

from flask_babel import LazyString

from service.catalogue import lazy_gettext
from service.game_words import CLAIM_TIMING_SENTENCES, RULESET_TITLES
from service.tournaments import bp

KIND_WORDS: dict[str, LazyString] = {
    "round-robin": lazy_gettext("Round-robin"),
    "swiss": lazy_gettext("Swiss"),
    "ladder": lazy_gettext("Ladder"),
}
STATUS_WORDS: dict[str, LazyString] = {
    "entering": lazy_gettext("open for entries"),
    "playing": lazy_gettext("being played"),
    "finished": lazy_gettext("finished"),
}
SCORING_WORDS: dict[str, LazyString] = {
    "series": lazy_gettext("Series points: the winner 5, the loser its flags"),
    "game": lazy_gettext("Game points: 1 a win, 1/2 a draw"),
}
POLICY_WORDS: dict[str, LazyString] = {
    "adjudicate": lazy_gettext("Open games are decided by the flags held"),
    "let-finish": lazy_gettext("Open games play on; the next round waits"),
}
ENTRY_WORDS: dict[str, LazyString] = {
    "open": lazy_gettext("Anyone signed in"),
    "invited": lazy_gettext("Invitation only"),
    "rating": lazy_gettext("A rating range"),
}
TIE_BREAK_WORDS: dict[str, LazyString] = {
    "direct-encounter": lazy_gettext("Direct encounter"),
    "sonneborn-berger": lazy_gettext("Sonneborn-Berger"),
    "buchholz": lazy_gettext("Buchholz"),
}
OUTCOME_WORDS: dict[str, LazyString] = {
    "first": lazy_gettext("the first player won"),
    "second": lazy_gettext("the second player won"),
    "draw": lazy_gettext("a draw"),
}
CHALLENGE_OUTCOME_WORDS: dict[str, LazyString] = {
    "first": lazy_gettext("the challenger won"),
    "second": lazy_gettext("the challenged player won"),
    "draw": lazy_gettext("a draw"),
}
FINISH_WORDS: dict[str, LazyString] = {
    "time": lazy_gettext("on time"),
    "adjudicated": lazy_gettext("adjudicated"),
    "forfeit": lazy_gettext("forfeit"),
}


@bp.context_processor
def tournament_words() -> dict[str, dict[str, LazyString]]:
    return {
        "kind_words": KIND_WORDS,
        "status_words": STATUS_WORDS,
        "scoring_words": SCORING_WORDS,
        "policy_words": POLICY_WORDS,
        "entry_words": ENTRY_WORDS,
        "tie_break_words": TIE_BREAK_WORDS,
        "outcome_words": OUTCOME_WORDS,
        "finish_words": FINISH_WORDS,
        "challenge_outcome_words": CHALLENGE_OUTCOME_WORDS,
        "ruleset_words": RULESET_TITLES,
        "claim_sentences": CLAIM_TIMING_SENTENCES,
    }
