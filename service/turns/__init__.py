"""Turns across days: the start of a turn (automatic claims) and the deadline policy."""
