"""The Flask web service: an application factory, blueprints, settings from the environment."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from flask import Flask

from service import db
from service.config import (
    DEVELOPMENT_BASE_URL,
    DEVELOPMENT_INBOUND_DOMAIN,
    AppEnv,
    config_from_env,
)
from service.config_checks import check_config
from service.language_templates import LanguageEnvironment

TEMPLATES_DIR = Path(__file__).resolve().parent.parent / "templates"
STATIC_DIR = Path(__file__).resolve().parent.parent / "static"
INSTANCE_DIR = Path(__file__).resolve().parent.parent / "instance"
"""Flask's instance folder of this package: the embedded default's SQLite file lives here."""


def create_app(test_config: Mapping[str, Any] | None = None) -> Flask:
    """Build the app: settings from the environment, then ``test_config`` on top.

    Raises ``service.config.ConfigError`` when the settings are unsafe, e.g. ``APP_ENV=production``
    with a missing or development ``SECRET_KEY``.
    """
    app = Flask(
        __name__,
        instance_relative_config=True,
        template_folder=str(TEMPLATES_DIR),
        static_folder=str(STATIC_DIR),
    )
    app.jinja_environment = LanguageEnvironment
    app.config.from_mapping(config_from_env(app.instance_path))
    if test_config is not None:
        app.config.from_mapping(test_config)
    if app.config.get("INBOUND_DOMAIN") is None and app.config["APP_ENV"] != AppEnv.PRODUCTION:
        # The development outbox's reply box needs a Reply-To; nothing outside reaches it.
        app.config["INBOUND_DOMAIN"] = DEVELOPMENT_INBOUND_DOMAIN
    if app.config.get("INBOUND_TRUST_FROM") is None:
        # Nothing outside reaches a development or test server's replies.
        app.config["INBOUND_TRUST_FROM"] = app.config["APP_ENV"] != AppEnv.PRODUCTION
    check_config(app.config)
    if not app.config["BASE_URL"]:
        app.config["BASE_URL"] = DEVELOPMENT_BASE_URL
    if app.config["DATABASE_URL"].startswith("sqlite:///" + app.instance_path):
        os.makedirs(app.instance_path, exist_ok=True)

    db.init_app(app)

    from service import (
        cli,
        conditional,
        cross_site,
        embedded_beat,
        errors,
        guide,
        health,
        i18n,
        limits,
        local_only,
        security_headers,
        signin,
        templating,
    )
    from service.history import bp as history_bp
    from service.lobby import bp as lobby_bp
    from service.lobby.cli import games_cli
    from service.people import bp as people_bp
    from service.play import bp as play_bp
    from service.players.moderation import moderation_cli
    from service.present.board import board_html
    from service.present.move_buttons import card_play_html, redeploy_html, traitor_html
    from service.ratings import record as rating_record
    from service.tournaments import bp as tournaments_bp
    from service.tournaments import results as tournament_results

    templating.init_app(app)
    i18n.init_app(app)
    guide.init_app(app)
    # The board and the buttons that play a card are drawn by Python (the hot parts of the pages).
    app.jinja_env.globals["board_html"] = board_html
    app.jinja_env.globals["card_play_html"] = card_play_html
    app.jinja_env.globals["redeploy_html"] = redeploy_html
    app.jinja_env.globals["traitor_html"] = traitor_html
    conditional.init_app(app)
    security_headers.init_app(app)
    cross_site.init_app(app)
    local_only.init_app(app)
    signin.init_app(app)
    app.register_blueprint(errors.bp)
    app.register_blueprint(lobby_bp)
    app.register_blueprint(play_bp)
    app.register_blueprint(history_bp)
    app.register_blueprint(people_bp)
    app.register_blueprint(tournaments_bp)
    app.register_blueprint(health.bp)
    app.cli.add_command(cli.db_cli)
    app.cli.add_command(games_cli)
    app.cli.add_command(moderation_cli)
    # Before the turn listeners (``init_mail``): the game-over email tells the rating change.
    rating_record.init_app(app)
    init_mail(app)
    # After the turn listeners: a tournament may stop the clock a turn's start set.
    tournament_results.init_app(app)
    # Last: it limits the views registered above.
    limits.init_app(app)
    # Beat's schedule in this process, when it serves `flask run` on the embedded default.
    embedded_beat.init_app(app)
    return app


def init_mail(app: Flask) -> None:
    """Flask-Mail, the Celery app (``worker.celery_init_app``), the mail pages and ``flask mail``,
    the turn emails (``service.turns``), ``flask inbound`` (play by reply), and the development
    outbox viewer and its reply box outside production."""
    from flask_mail import Mail

    from service.embedded_beat import mail_cli
    from service.inbound import bp as inbound_bp
    from service.inbound.cli import inbound_cli
    from service.inbound.confirm_routes import bp as reply_confirm_bp
    from service.mail import dev_outbox
    from service.mail import routes as mail_routes
    from service.mail.dns_check import check_dns_command
    from service.turns import routes as turns_routes
    from service.turns import start as turn_start
    from worker import celery_init_app

    Mail(app)
    celery_init_app(app)
    app.register_blueprint(mail_routes.bp)
    app.cli.add_command(mail_cli)
    mail_cli.add_command(check_dns_command)
    # The start of turns and the game-over emails hook on every move (service.games.state).
    turn_start.init_app(app)
    app.register_blueprint(turns_routes.bp)
    # Play by reply: the receivers are commands (``flask inbound smtp``, ``imap-idle``) and a
    # beat task; the only page is the development outbox's reply box.
    app.cli.add_command(inbound_cli)
    if app.config["APP_ENV"] != AppEnv.PRODUCTION:
        app.register_blueprint(dev_outbox.bp)
        app.register_blueprint(inbound_bp)
    # A reply whose sender was not proven waits for its owner's confirmation by link.
    app.register_blueprint(reply_confirm_bp)
