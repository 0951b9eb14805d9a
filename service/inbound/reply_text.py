"""The words a player wrote in a reply by email, out of the message a mail program sent: the
text part (or the HTML part turned into text, blockquotes as ``>`` quotes, when there is no text
part, ``format=flowed`` joined), without the quoted email, the ``On ... wrote:`` / ``From: ...
Sent: ...`` headers that mail programs write in many languages, and the signature after ``-- ``
(the maintained mail-parser-reply library finds those, given every language it knows); and the
Subject as the player may have changed it.

Pure: a parsed message in, text out. What the words mean is ``service.present.reply_reading``.
"""

from __future__ import annotations

import email.message
import re
from collections.abc import Iterable
from html.parser import HTMLParser

from mailparser_reply import EmailMessage as ReplyText
from mailparser_reply.constants import MAIL_LANGUAGES

import engine
from service.inbound.headers import decoded
from service.present.reply_reading import names_a_move
from service.present.reply_words import normalised

MAX_WRITTEN_CHARS = 4000
"""The most of a reply's own words that are read: a turn is a line or two."""
MAX_SCANNED_CHARS = 40_000
"""The most text handed to the reply trimmer (its patterns are not made for megabytes)."""
MAX_SUBJECT_CHARS = 200
"""The most of a Subject that is read."""


class _HtmlText(HTMLParser):
    """HTML as the text a mail program would quote: block elements on their own lines,
    blockquotes as ``>`` quotes, a rule as Outlook's line of underscores (a separator the reply
    trimmer knows), no head, style or script."""

    BLOCKS = frozenset(
        {
            "address", "article", "aside", "div", "dl", "dt", "dd", "fieldset", "figure",
            "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "li", "main", "nav",
            "ol", "p", "pre", "section", "table", "tbody", "thead", "tfoot", "tr", "ul",
        }
    )  # fmt: skip
    HIDDEN = frozenset({"head", "style", "script", "title", "template"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[str] = []
        self.line: list[str] = []
        self.depth = 0
        self.hidden = 0

    def _flush(self, *, keep_empty: bool = False) -> None:
        text = re.sub(r"[ \t\r\n\f\xa0]+", " ", "".join(self.line)).strip()
        if text or keep_empty:
            self.lines.append("> " * self.depth + text)
        self.line = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.HIDDEN:
            self.hidden += 1
        elif tag == "br":
            self._flush(keep_empty=True)
        elif tag == "hr":
            self._flush()
            self.lines += ["", "_" * 32]
        elif tag == "blockquote":
            self._flush()
            self.depth += 1
        elif tag in self.BLOCKS:
            self._flush()

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        if tag in self.HIDDEN:
            self.hidden = max(0, self.hidden - 1)
        elif tag == "blockquote":
            self._flush()
            self.depth = max(0, self.depth - 1)
        elif tag in self.BLOCKS:
            self._flush()

    def handle_data(self, data: str) -> None:
        if not self.hidden:
            self.line.append(data)

    def text(self) -> str:
        self._flush()
        return "\n".join(self.lines)


def html_to_text(html: str) -> str:
    """The text of an HTML body, quotes marked with ``>`` as a mail program quotes."""
    parser = _HtmlText()
    parser.feed(html)
    parser.close()
    return parser.text()


def _unflow(text: str, delsp: bool) -> str:
    """A ``format=flowed`` text (RFC 3676) with its soft line breaks joined."""
    out: list[str] = []
    pending = ""
    for line in text.split("\n"):
        if line != "-- " and line.endswith(" ") and not line.startswith(">"):
            pending += line[:-1] if delsp else line
            continue
        out.append(pending + line)
        pending = ""
    if pending:
        out.append(pending)
    return "\n".join(out)


def _part_text(part: email.message.Message) -> str:
    payload = part.get_payload(decode=True)
    if not isinstance(payload, bytes):
        return ""
    charset = part.get_content_charset() or "utf-8"
    try:
        return payload.decode(charset, errors="replace")
    except LookupError:  # a charset Python does not know
        return payload.decode("utf-8", errors="replace")


def body_text(message: email.message.Message) -> str:
    """The message's text: its first text/plain part, else its first text/html part as text
    (attachments are never read)."""
    plain = html = None
    for part in message.walk():
        if part.is_multipart() or part.get_content_disposition() == "attachment":
            continue
        kind = part.get_content_type()
        if kind == "text/plain" and plain is None:
            plain = part
        elif kind == "text/html" and html is None:
            html = part
    if plain is not None:
        text = _part_text(plain).replace("\r\n", "\n").replace("\r", "\n")
        if plain.get_param("format", "", header="content-type") == "flowed":
            delsp = str(plain.get_param("delsp", "no", header="content-type")).lower() == "yes"
            text = _unflow(text, delsp)
        return text
    if html is not None:
        return html_to_text(_part_text(html))
    return ""


_QUOTED = re.compile(r"^[ \t]*>")
LANGUAGES = sorted(MAIL_LANGUAGES)
"""Every language the reply trimmer knows: a player's mail program may speak any of them."""


_APP_SIGNATURE = re.compile(
    r"^\s*(?:sent|envoy[ée]|gesendet|inviato|enviado|verzonden|skickat)\s+"
    r"(?:from|with|via|de|depuis|avec|von|mit|da|con|desde|vanaf|met|fr[åa]n)\s.{0,60}$",
    re.IGNORECASE,
)
"""The line a mail app adds under the player's words (``Sent from Yahoo Mail on Android``,
``Sent with Proton Mail secure email.``)."""
_JAPANESE_APP_SIGNATURE = re.compile(
    r"^\s*\S.{0,30}から送信(?:しました)?\s*$|^.{0,20}版\s*Outlook\s*を入手\s*$"
)
"""The same line from a mail app in Japanese (``iPhoneから送信``, ``iOS 版 Outlook を入手``)."""
_FORWARDED = re.compile(
    r"^\s*(?:-{3,}\s*(?:forwarded message|original message|weitergeleitete nachricht"
    r"|urspr[üu]ngliche nachricht|message transf[ée]r[ée]|message d'origine)\s*-*"
    r"|begin forwarded message:|anfang der weitergeleiteten nachricht:"
    r"|d[ée]but du message r[ée]exp[ée]di[ée]\s?:"
    r"|-{3,}\s*(?:転送されたメッセージ|元のメッセージ|オリジナル\s?メッセージ)\s*-*)\s*$",
    re.IGNORECASE | re.MULTILINE,
)
"""The line above a forwarded or an original email: what follows is not the player's."""


_JAPANESE_HEADERS = re.compile(
    r"^(?:_{10,}\s*\n)?[ \t]*\*?(?:差出人|送信者)\*?[ \t]*:.*\n"
    r"(?:.*\n){0,2}?[ \t]*\*?(?:送信日時|送信日|日時|日付|宛先|件名)\*?[ \t]*:",
    re.MULTILINE,
)
"""The headers above an email quoted by Outlook in Japanese (``差出人: ...`` then ``送信日時:
...``, maybe under a line of underscores), which the reply trimmer does not know: what follows is
not the player's."""
_HEADER_FIELD = re.compile(r"^\*?[^\s:*][^:\n]{0,30}:\*?[ \t]+\S", re.MULTILINE)
"""A line of a quoted email's header block (``From: Bob``, ``Gesendet: Montag``)."""


def _attributions(lines: list[str]) -> set[str]:
    """The lines that introduce a quote, whatever their language: a line ending with ``:``
    that a quoted line follows, maybe after a blank line (``* Alice <a@b> [2026-01-05]:``,
    ``05.01.2026 10:00 Alice <a@b>:``)."""
    found: set[str] = set()
    for index, line in enumerate(lines):
        following = [n for n in lines[index + 1 : index + 3] if n.strip()][:1]
        quoted = bool(following) and _QUOTED.match(following[0]) is not None
        if quoted and not _QUOTED.match(line) and line.rstrip().endswith(":"):
            found.add(line.strip())
    return found


def own_words(text: str) -> str:
    """The lines the player wrote in a reply's text: quoted lines (``>``) dropped, then the
    quote headers (``On ... wrote:``, ``From: ... Sent: ...`` above an unquoted copy), the
    signature and the disclaimers cut by mail-parser-reply (the first reply it finds is the
    player's), and a line introducing a quote in a form it does not know."""
    lines = normalised(text).split("\n")
    attributions = _attributions(lines)
    unquoted = "\n".join(line for line in lines if not _QUOTED.match(line))
    parsed = ReplyText(
        text=unquoted[:MAX_SCANNED_CHARS], languages=list(LANGUAGES), keep_hyphen_lists=True
    ).read()
    for reply in parsed.replies:
        if len(_HEADER_FIELD.findall(str(reply.headers))) >= 2:
            break  # a copy of an email under its headers (From: ... Sent: ...): not the player's
        body = "\n".join(
            line
            for line in str(reply.body).split("\n")
            if line.strip() not in attributions
            and not _APP_SIGNATURE.match(line)
            and not _JAPANESE_APP_SIGNATURE.match(line)
        )
        body = _JAPANESE_HEADERS.split(body + "\n")[0]
        body = _FORWARDED.split(body)[0].strip()
        if body:
            return body[:MAX_WRITTEN_CHARS]
    return ""


def as_typed(message: email.message.Message, words: str) -> str:
    """``words`` (``words_to_read``: lines of the reply, normalised) with each line as the player
    typed it, so that their message keeps its full-width marks and letters; a line not found
    in the reply's text (the Subject's) stays as it is."""
    text = body_text(message)
    return as_written(words, normalised(text).split("\n"), text.split("\n"))


def as_written(body: str, lines: list[str], written: list[str]) -> str:
    """``body``, lines of the normalised ``lines`` in order, with each line as written (the
    same lines before ``normalised``); a line not found among them stays as it is."""
    if len(lines) != len(written):
        return body
    found: list[str] = []
    at = 0
    for line in body.split("\n"):
        index = next((i for i in range(at, len(lines)) if lines[i].strip() == line.strip()), None)
        if index is None or not line.strip():
            found.append(line)
            continue
        found.append(written[index].strip() if line == line.strip() else written[index])
        at = index + 1
    return "\n".join(found)


def written_text(message: email.message.Message) -> str:
    """What the player wrote in a reply: the text (or HTML) body without the quoted email, the
    quote headers and the signature."""
    return own_words(body_text(message))


_REPLY_PREFIX = re.compile(
    r"\b(?:re|aw|antw|sv|vs|ref|rif|rv|res|odp|fwd?|wg|tr|enc)\s*(?:\[\d+\]|\(\d+\))?\s*:",
    re.IGNORECASE,
)
"""``Re:``, ``Fwd:`` and what mail programs write for them in other languages (``AW:``, ``SV:``)."""


def subject_words(message: email.message.Message, ours: Iterable[str]) -> str:
    """What the player wrote in the Subject: decoded, without the reply and forward prefixes and
    without the phrases of our own subject that it repeats (``ours``: ``"Your turn"``,
    ``"Battle Line, game 12"``)."""
    subject = normalised(decoded(message.get("Subject")))[:MAX_SUBJECT_CHARS]
    subject = _REPLY_PREFIX.sub(" ", subject)
    for phrase in sorted((p for p in ours if p), key=len, reverse=True):
        subject = re.sub(rf"(?<!\w){re.escape(phrase)}(?!\w)", " ", subject, flags=re.IGNORECASE)
    return " ".join(subject.split()).strip(" :,-")


def words_to_read(
    message: email.message.Message, ruleset: engine.Ruleset, ours: Iterable[str]
) -> str:
    """The words a reply is read from: the player's own (``written_text``), after the Subject's
    (``subject_words``) when only the Subject names a move."""
    words = written_text(message)
    if names_a_move(words, ruleset):
        return words
    subject = subject_words(message, ours)
    if subject and names_a_move(subject, ruleset):
        return f"{subject}\n{words}".strip()
    return words
