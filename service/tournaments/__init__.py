"""Correspondence tournaments (issue 25): round-robin sections and Swiss tournaments whose games
are dealt by the service and whose pairings and standings come from the pure core in
``tournaments/`` (docs/tournaments.md)."""
