"""How much a secret key could be guessed: an estimate of its entropy from its own characters.

Length alone lets through 32 ``a``s or ``password`` four times. The estimate is the Shannon
entropy of the key's character frequencies (bits per character) times the length of its shortest
repeating unit, so a repeated word counts once. A random key from ``secrets.token_urlsafe(48)``
scores about 350 bits; the estimate undercounts short random keys (a 32-digit hex key scores
under 128), so the docs ask for ``token_urlsafe(48)`` or ``token_hex(32)``.
"""

from __future__ import annotations

import math
from collections import Counter

MIN_KEY_BITS = 128
"""The least estimated entropy production accepts in a signing key."""


def _shortest_period(key: str) -> int:
    """The length of the shortest prefix the key repeats (all of it when it repeats nothing):
    the length less its longest border (Knuth-Morris-Pratt's failure function, linear time)."""
    border = [0] * len(key)
    for i in range(1, len(key)):
        k = border[i - 1]
        while k and key[i] != key[k]:
            k = border[k - 1]
        border[i] = k + 1 if key[i] == key[k] else 0
    return len(key) - border[-1]


def estimated_bits(key: str) -> float:
    """Shannon bits per character of ``key`` times the length of its repeating unit."""
    if not key:
        return 0.0
    counts = Counter(key)
    per_char = -sum(n / len(key) * math.log2(n / len(key)) for n in counts.values())
    return per_char * _shortest_period(key)
