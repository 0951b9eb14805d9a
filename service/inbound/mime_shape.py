"""Whether a received email's MIME structure is small enough to parse: a cheap scan of its bytes
before the standard library's parser, which recurses once per level of nesting and fails with a
``RecursionError`` on a message nested about a thousand deep (some 70 kB).

The parser makes a part a container only from a ``Content-Type: multipart/...`` or
``message/...`` header at the start of a line (or, inside ``multipart/digest``, a part without
one, which is a ``message/rfc822`` whose own nesting again needs such a header). So the number
of those headers bounds the depth of nesting, and the number of ``Content-Type`` headers bounds
the number of parts. Every line ending the parser knows (CR LF, LF, a lone CR) starts a line
here too, and a header folded after its colon is still seen.

A person's reply has a few parts (text, HTML, an inline image or two, a forwarded email); a
message beyond these bounds is refused for good (``receive``'s ``malformed``), never retried.
"""

from __future__ import annotations

import re

MAX_MIME_CONTAINERS = 25
"""The most ``multipart/*`` and ``message/*`` parts an email may have: the nesting is at most
twice this deep, well within the parser's recursion."""
MAX_MIME_PARTS = 200
"""The most parts (``Content-Type`` headers) an email may have."""

_HEADER = b"content-type:"
_CONTAINER = re.compile(rb"[ \t\r\n]*(?:multipart|message)/")
"""After the colon: the value, however much folding whitespace comes first."""
_LINE_ENDS = b"\r\n"


def shape_problem(raw: bytes) -> str | None:
    """Why this email's MIME structure is too deep or has too many parts to parse, or None."""
    # bytes.find to reach each candidate: a pattern tried at every position of a megabyte is slow.
    lowered = raw.lower()
    parts = containers = 0
    at = lowered.find(_HEADER)
    while at >= 0:
        end = at + len(_HEADER)
        if at == 0 or lowered[at - 1] in _LINE_ENDS:
            parts += 1
            if _CONTAINER.match(lowered, end):
                containers += 1
            if containers > MAX_MIME_CONTAINERS:
                return f"more than {MAX_MIME_CONTAINERS} MIME containers (multipart, message)"
            if parts > MAX_MIME_PARTS:
                return f"more than {MAX_MIME_PARTS} MIME parts"
        at = lowered.find(_HEADER, end)
    return None
