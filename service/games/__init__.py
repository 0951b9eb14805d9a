"""The game store: a game's state in the database, below every area.

- ``store``: rows (the game-row lock, seats, players, the move log, snapshots) and their queries.
- ``state``: positions (any ply, from the nearest snapshot), the deal, ``apply_moves`` under the
  row lock, and the listeners that run in a move's transaction.
- ``refusals``: why a move changed nothing.
- ``records``: a stored game as an ``engine.GameRecord``.
- ``seats``: the seat a private link names, checked against revocation.
- ``preferences``: a seat's turn choices over its player's defaults.

Areas (``play``, ``history``, ``lobby``, ``turns``, ``mail``) read and write games only through
this package; it imports no area.
"""
