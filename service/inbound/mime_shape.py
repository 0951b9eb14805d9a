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

_CONTENT_TYPE = re.compile(rb"(?:\A|[\r\n])content-type:[ \t\r\n]*([a-z]*)", re.IGNORECASE)


def shape_problem(raw: bytes) -> str | None:
    """Why this email's MIME structure is too deep or has too many parts to parse, or None."""
    containers = 0
    for parts, found in enumerate(_CONTENT_TYPE.finditer(raw), start=1):
        if found.group(1).lower() in (b"multipart", b"message"):
            containers += 1
        if containers > MAX_MIME_CONTAINERS:
            return f"more than {MAX_MIME_CONTAINERS} nested MIME containers (multipart, message)"
        if parts > MAX_MIME_PARTS:
            return f"more than {MAX_MIME_PARTS} MIME parts"
    return None
