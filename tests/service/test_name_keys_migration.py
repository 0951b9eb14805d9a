"""Migration 0025 gives the names players chose before it their key: the first chooser of a key
keeps it; a later look-alike is a label again, to be chosen anew at the next sign-in."""

from __future__ import annotations

import sqlalchemy as sa

from service.db import make_engine, upgrade_schema
from service.players.names import name_key


def test_chosen_names_get_their_keys_and_look_alikes_choose_again(
    fresh_database_url: str,
) -> None:
    upgrade_schema(fresh_database_url, "0024")
    engine = make_engine(fresh_database_url)
    players = [
        (1, "alice@example.org", "Alice", True),
        (2, "mallory@example.org", "AIice", True),  # chose a look-alike before keys existed
        (3, "bob@example.org", "Bob", False),  # a label someone typed
        (4, "carol@example.org", "Alice", False),
    ]
    try:
        with engine.begin() as connection:
            for player_id, email, name, confirmed in players:
                connection.execute(
                    sa.text(
                        "INSERT INTO players (id, email, display_name, name_confirmed) "
                        "VALUES (:id, :email, :name, :confirmed)"
                    ),
                    {"id": player_id, "email": email, "name": name, "confirmed": confirmed},
                )
        upgrade_schema(fresh_database_url)
        with engine.connect() as connection:
            found = connection.execute(
                sa.text("SELECT id, name_key, name_confirmed FROM players ORDER BY id")
            ).all()
    finally:
        engine.dispose()
    assert [tuple(row) for row in found] == [
        (1, name_key("Alice"), True),
        (2, None, False),
        (3, None, False),
        (4, None, False),
    ]
