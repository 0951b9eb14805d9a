"""What the deliveries of one process share (``service.mail.delivery.state``): one DeliveryState
per app, and the flag that makes the first success after failures of the server pull the waiting
rows forward (the sweep's and the deliver tasks' behaviour is in test_kill_points.py)."""

from __future__ import annotations

from flask import Flask

from service.mail.delivery.state import DeliveryState, delivery_state


def test_one_state_per_app() -> None:
    first, second = Flask("first"), Flask("second")
    with first.app_context():
        state = delivery_state()
        assert delivery_state() is state
    with second.app_context():
        assert delivery_state() is not state
    with first.app_context():
        assert delivery_state() is state


def test_the_first_success_after_a_failure_of_the_server_pulls_once() -> None:
    state = DeliveryState()
    assert state.server_accepted(attempts=1) is False
    assert state.server_accepted(attempts=2) is True  # the row itself failed before
    state.server_failed()
    assert state.server_accepted(attempts=1) is True
    assert state.server_accepted(attempts=1) is False


def test_a_pull_not_recorded_is_left_to_the_next_success() -> None:
    state = DeliveryState()
    state.server_failed()
    assert state.server_accepted(attempts=1) is True
    state.pull_not_done()
    assert state.server_accepted(attempts=1) is True
    assert state.server_accepted(attempts=1) is False
