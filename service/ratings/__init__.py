"""Ratings: one per player and pool (Glicko-2 for two players, a ranked multiplayer rating for
three), changed in the transaction that ends a rated game; the pages that show them
(docs/ratings.md)."""
