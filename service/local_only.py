"""Outside production, the server answers only this machine: the development outbox shows every
player's links, so it is served only to a loopback client that asked for a loopback or reserved
test host, and a development server reached from another address (``flask run --host 0.0.0.0``,
a public bind) refuses to start, and refuses every request from another address and says why."""

from __future__ import annotations

import ipaddress

import click
from flask import Flask, current_app, request

from service.catalogue import lazy_gettext
from service.config import AppEnv, ConfigError
from service.config_checks import is_local_host
from service.refusal import Refusal

DEV_PREFIX = "/dev/"


class NotLocalError(Refusal):
    """A development server asked from another machine: it is production by mistake."""

    status = 403
    title = lazy_gettext("This is a development server")
    message = lazy_gettext(
        "APP_ENV=development answers only this machine (it shows every player's links). "
        "A server others can reach is production: unset APP_ENV and give it real secrets."
    )


class NoDevPageError(Refusal):
    """The development pages, asked for from another machine or host name: as if absent."""

    status = 404
    title = lazy_gettext("No such page")
    message = lazy_gettext("There is no such page here.")


def is_loopback_client(remote_addr: str | None) -> bool:
    try:
        return ipaddress.ip_address(remote_addr or "").is_loopback
    except ValueError:
        return False


def _refuse_from_outside() -> None:
    loopback = is_loopback_client(request.remote_addr)
    if request.path.startswith(DEV_PREFIX) and not (loopback and is_local_host(request.host)):
        raise NoDevPageError()
    if current_app.config["APP_ENV"] == AppEnv.DEVELOPMENT and not loopback:
        raise NotLocalError()


def check_bind(app_env: str) -> None:
    """Refuse ``flask run --host`` on an address others can reach (the app is built inside that
    command, so its options are known here)."""
    context = click.get_current_context(silent=True)
    if context is None or context.info_name != "run":
        return
    host = str(context.params.get("host") or "127.0.0.1")
    if host != "localhost" and not is_loopback_client(host):
        raise ConfigError(
            f"APP_ENV={app_env} shows every player's links at /dev/outbox, so `flask run` serves "
            f"it only on a loopback address, not --host {host}. A server others can reach is "
            "production: unset APP_ENV and give it real secrets."
        )


def init_app(app: Flask) -> None:
    if app.config["APP_ENV"] != AppEnv.PRODUCTION:
        check_bind(app.config["APP_ENV"])
        app.before_request(_refuse_from_outside)
