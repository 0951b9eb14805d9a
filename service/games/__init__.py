"""The game store: a game's state in the database, below every area.

- ``rows``: game rows, read by id, made new, and the game-row lock.
- ``loaded``: ``LoadedGame``, what a page or a change reads first, in one query (the row, its
  seats, their address statuses, its latest snapshot), passed down by hand to what reads it:
  nothing is kept on the session.
- ``seats``: a game's seats and their players, the seat a private link names (checked against
  revocation), the players' address statuses, revoking a seat's links; ``read_seats`` for a
  caller holding no ``LoadedGame``.
- ``players``: players by address, added when new, named by themselves.
- ``snapshots``: positions stored every few plies and at the latest; ``move_log``: the log.
- ``state``: positions (any ply, from the nearest snapshot), the deal, ``apply_moves`` under the
  row lock, and the listeners that run in a move's transaction.
- ``refusals``: why a move changed nothing.
- ``records``: a stored game as an ``engine.GameRecord``.
- ``preferences``: a seat's turn choices over its player's defaults.

Areas (``play``, ``history``, ``lobby``, ``turns``, ``mail``) read and write games only through
this package; it imports no area.
"""
