"""Turns across days: the start of a turn (automatic claims, the "your turn" email), the deadline
policy and its scan (reminders, vacation days, timeouts), the daily digest, and the form of a
seat's turn preferences. The service's clock is ``service.clock``."""
