"""The Japanese words of a reply by email (「赤7をフラッグ3に、戦術カードを引く」) as the words the
reader knows (``red 7 to flag 3``, ``draw tactics``), so that Japanese is read by the same rules
as English: whatever the English words can say, the Japanese words can say too.

Japanese writes no spaces and puts the verb last and the particle after its noun (「フラッグ3に」,
"flag 3 to"); the reader wants the verb first and ``to`` before the flag. So a Japanese part is
cut into words (the glossary's terms, docs/glossary-ja.md, particles, digits, notation), each
keeping where it stands in the text (a part is shown to the player as they wrote it); the
particles are turned into ``to`` and ``from`` before the number they follow, and the verb is
put first (``reader_words``).

Pure: no database, no app. The text is NFKC-normalised first (``reply_words.normalised``):
full-width digits and letters are plain ones by then.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass

from engine.cards import COLOR_NAMES, ENVIRONMENT, MORALE


class Kind(enum.Enum):
    """What a Japanese word does in a part."""

    VERB = "verb"
    """出す, 引く, 確保する ...: ends the part it closes (Japanese puts the verb last)."""
    ANCHOR = "anchor"
    """A deck, a tactics card, a guile card, notation: begins a new move after a named one."""
    COLOUR = "colour"
    NUMBER = "number"
    FLAG = "flag"
    TO = "to"
    """に, へ, まで after a flag's number."""
    FROM = "from"
    """から after a flag's number."""
    OF = "of"
    """の: after a flag's number, the flag a card comes from (「フラッグ3の赤7」)."""
    NEGATION = "negation"
    FILLER = "filler"
    """Particles, endings (ます, て), counters (枚): no part of a move."""
    NEUTRAL = "neutral"
    """A word of a move that neither begins nor ends one (捨て札, 回)."""
    OTHER = "other"
    """Any other word: chat (いい手, 対局), or a word of the notation the reader judges."""


@dataclass(frozen=True)
class Word:
    """One word of a Japanese part."""

    reader: str
    """The word the reader knows: ``red``, ``7``, ``to``, ``draw``, ``FOG``, ``R7>3``."""
    start: int
    end: int
    """Where it stands in the text (``text[start:end]``)."""
    kind: Kind


_COLOURS = {
    "R": r"赤(?:色)?", "O": r"橙(?:色)?|オレンジ(?:色)?", "Y": r"黄(?:色)?", "G": r"緑(?:色)?",
    "B": r"青(?:色)?", "P": r"紫(?:色)?", "H": r"ハート", "D": r"ダイヤ(?:モンド)?",
    "C": r"クラブ", "S": r"スペード",
}  # fmt: skip
_NUMERALS = {"十": "10", "一": "1", "二": "2", "三": "3", "四": "4", "五": "5", "六": "6",
             "七": "7", "八": "8", "九": "9"}  # fmt: skip
_SURU = r"(?:する|します|しま|して|し)?"
"""The endings of a noun made a verb (確保する, 確保します, 確保して)."""

VOCABULARY: tuple[tuple[str, str, Kind], ...] = (
    # Words that contain a shorter word of a move come first (捨て札 before 捨て).
    (r"すみません|ありません", "", Kind.FILLER),
    (r"捨て札|捨札", "discard", Kind.NEUTRAL),
    # A guile card's name with する is its verb, last (「…をフラッグ5へ配置転換します」).
    (r"配置転換(?:する|します|しま|して|し)", "redeploy", Kind.VERB),
    (r"偵察(?:する|します|しま|して|し)", "scout", Kind.VERB),
    (r"配置転換", "redeploy", Kind.ANCHOR),
    (r"偵察", "scout", Kind.ANCHOR),
    (r"脱走", "deserter", Kind.ANCHOR),
    (r"裏切り?", "traitor", Kind.ANCHOR),
    (r"アレ[キク]サンダー(?:大王)?", "ALEXANDER", Kind.ANCHOR),
    (r"ダリウス(?:王)?", "DARIUS", Kind.ANCHOR),
    (r"援軍騎兵", "CAVALRY", Kind.ANCHOR),
    (r"盾", "SHIELD", Kind.ANCHOR),
    (r"霧", "FOG", Kind.ANCHOR),
    (r"泥濘", "MUD", Kind.ANCHOR),
    (r"部隊(?:カード)?", "troops", Kind.ANCHOR),
    (r"戦術(?:カード)?", "tactics", Kind.ANCHOR),
    (r"フラッグ|旗", "flag", Kind.FLAG),
    (rf"(?:手番|ターン)を?(?:終了{_SURU}|終わり|終え(?:ます|る)?)|終了{_SURU}", "end", Kind.VERB),
    (rf"確保{_SURU}", "claim", Kind.VERB),
    (rf"パス{_SURU}", "pass", Kind.VERB),
    (rf"(?:投了|降参){_SURU}", "resign", Kind.VERB),
    (rf"(?:ドロー|補充){_SURU}", "draw", Kind.VERB),
    (r"引[きくい]?", "draw", Kind.VERB),
    (rf"(?:プレイ|プレー|配置){_SURU}", "play", Kind.VERB),
    (r"出[しすせ]?|置[きくい]?|使[いうっ]?|打[ちつっ]?", "play", Kind.VERB),
    (r"戻[しすさ]?|返[しすさ]?", "return", Kind.VERB),
    (r"捨て(?:る|ます)?", "discard", Kind.VERB),
    (r"から", "from", Kind.FROM),
    (r"に|へ|まで", "to", Kind.TO),
    (r"の", "of", Kind.OF),
    (r"ない|ません", "not", Kind.NEGATION),
    (r"回", "times", Kind.NEUTRAL),
    (r"自分|相手|手札|山札|番目|番|第|枚目|枚|カード|移動|移[しす]|下さい|私|僕", "", Kind.FILLER),
    *((pattern, COLOR_NAMES[letter], Kind.COLOUR) for letter, pattern in _COLOURS.items()),
    *((numeral, digits, Kind.NUMBER) for numeral, digits in _NUMERALS.items()),
)  # fmt: skip
"""The Japanese words of moves (docs/glossary-ja.md) as patterns, each with its reader word."""

_ASCII = r"[A-Za-z0-9'#]+(?:\s*[>@]\s*[A-Za-z0-9]+)*"
"""A word in Latin letters or digits, notation included (``R7>3``, ``R7 @ 3 > 5``, ``c3``)."""
_OTHER = r"[\u30a0-\u30fa\u30fc-\u30ff]+|[\u3400-\u9fff\uf900-\ufaff]+"
"""A run of katakana (not ・) or of kanji that is no word of a move."""
_WORD = re.compile(
    "|".join(f"({pattern})" for pattern, _, _ in VOCABULARY)
    + rf"|({_ASCII})|([\u3040-\u309f])|({_OTHER})"
)
_ASCII_GROUP = len(VOCABULARY) + 1
_JAPANESE = re.compile(r"[\u3000-\u30ff\u3400-\u9fff\uf900-\ufaff]")
_DIGITS = re.compile(r"[0-9]{1,2}")
_TACTICS_NAMING_A_FLAG = MORALE | ENVIRONMENT
"""「泥濘のフラッグ4」: a tactics card before の and a flag names the flag, not a card played."""


def is_japanese(text: str) -> bool:
    """Whether ``text`` has Japanese in it (kana, kanji, Japanese punctuation)."""
    return _JAPANESE.search(text) is not None


def words_of(text: str) -> list[Word]:
    """The words of ``text`` in order; punctuation (「」, ・) is no word."""
    words = []
    for match in _WORD.finditer(text):
        group = match.lastindex or 0
        if group <= len(VOCABULARY):
            _, reader, kind = VOCABULARY[group - 1]
        elif group == _ASCII_GROUP:
            reader = re.sub(r"\s+", "", match.group(0))
            kind = Kind.NUMBER if _DIGITS.fullmatch(reader) else Kind.OTHER
        elif group == _ASCII_GROUP + 1:
            reader, kind = "", Kind.FILLER  # a particle or an ending: て, ね, よ
        else:
            reader, kind = match.group(0), Kind.OTHER
        words.append(Word(reader, match.start(), match.end(), kind))
    return words


def _role(kept: list[Word], particle: Word, following: Word | None) -> None:
    """A particle after a flag's number as the reader's ``to``/``from`` before it:
    「フラッグ3に」 -> ``to flag 3``; 「フラッグ3の赤7」 -> ``from flag 3 red 7``; any other
    particle says nothing of a move and is dropped."""
    last = kept[-1] if kept else None
    if particle.kind is Kind.OF and last is not None and last.reader in _TACTICS_NAMING_A_FLAG:
        if following is not None and following.kind is Kind.FLAG:
            kept.pop()  # 「泥濘のフラッグ4」: the flag under the Mud
        return
    if last is None or last.kind is not Kind.NUMBER:
        return
    at = len(kept) - 1
    if at > 0 and kept[at - 1].kind is Kind.COLOUR:
        return  # 「赤5を山札に」: a card's value, not a flag
    flagged = at > 0 and kept[at - 1].kind is Kind.FLAG
    if particle.kind is Kind.OF and not flagged:
        return  # 「7の」: no flag named
    if flagged:
        at -= 1
    role = "from" if particle.kind in (Kind.FROM, Kind.OF) else "to"
    kept.insert(at, Word(role, particle.start, particle.end, particle.kind))


def reader_words(text: str) -> list[str]:
    """The words the reader reads a Japanese part with, in the English order: the verb first,
    ``to``/``from`` before the flag (「赤7をフラッグ3に出す」 -> ``play red 7 to flag 3``)."""
    words = [word for word in words_of(text) if word.kind is not Kind.FILLER]
    kept: list[Word] = []
    for index, word in enumerate(words):
        if word.kind in (Kind.TO, Kind.FROM, Kind.OF):
            _role(kept, word, words[index + 1] if index + 1 < len(words) else None)
        else:
            kept.append(word)
    verbs = [word for word in kept if word.kind is Kind.VERB]
    return [word.reader for word in verbs + [w for w in kept if w.kind is not Kind.VERB]]
