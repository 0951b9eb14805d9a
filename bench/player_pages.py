"""The player pages of ``bench.service`` (``/players/<name>``): every stored player given a
public name, and the pages people open.

Names are chosen as a player does (``name_confirmed``, the key of ``service.players.names``, whose
look-alike folding is Python's, so the keys are computed here and copied in); every other game
is made public, so that a visitor's page lists a game for half the players (an unlisted game is
listed to the player alone)."""

from __future__ import annotations

import urllib.parse
from random import Random
from typing import Any

import psycopg

from service.players.names import name_key

SAMPLE = 2000
"""Player pages in a window's walk."""


def bench_name(player_id: int) -> str:
    return f"Bench {player_id}"


def name_players(db: psycopg.Connection[Any]) -> int:
    """Give every player without a public name one (``bench_name``), and make every other game
    public. Returns how many players were named."""
    ids = [row[0] for row in db.execute("SELECT id FROM players WHERE name_key IS NULL")]
    rows = [(i, bench_name(i), name_key(bench_name(i))) for i in ids]
    assert len({key for _, _, key in rows}) == len(rows), "two bench names share a key"
    db.execute("CREATE TEMPORARY TABLE bench_names (id integer, display_name text, name_key text)")
    with db.cursor().copy("COPY bench_names (id, display_name, name_key) FROM STDIN") as copy:
        for row in rows:
            copy.write_row(row)
    db.execute(
        "UPDATE players p SET display_name = n.display_name, name_key = n.name_key, "
        "name_confirmed = true FROM bench_names n WHERE p.id = n.id"
    )
    db.execute("DROP TABLE bench_names")
    db.execute("UPDATE games SET visibility = 'public' WHERE id % 2 = 0 AND visibility <> 'public'")
    db.execute("VACUUM ANALYZE players")
    db.execute("VACUUM ANALYZE games")
    return len(rows)


def player_requests(db: psycopg.Connection[Any], rng: Random) -> list[str]:
    """The pages of a random sample of the named players, each asked by its name as written."""
    row = db.execute("SELECT min(id), max(id) FROM players").fetchone()
    low, high = (row[0], row[1]) if row and row[0] is not None else (1, 1)
    chosen = rng.sample(range(low, high + 1), min(SAMPLE, high - low + 1))
    names = [
        name
        for (name,) in db.execute(
            "SELECT display_name FROM players WHERE id = ANY(%s) AND name_key IS NOT NULL",
            (chosen,),
        )
    ]
    rng.shuffle(names)
    return [f"GET\t/players/{urllib.parse.quote(name)}" for name in names]
