"""One place that answers every error: an HTML page, or JSON for a client that asks for it."""

from __future__ import annotations

import re

from flask import Blueprint, Response, jsonify, render_template, request
from werkzeug.exceptions import HTTPException, InternalServerError

from service.db import committed_in_request
from service.refusal import Refusal

bp = Blueprint("errors", __name__)

HANDLED_STATUSES = (400, 403, 404, 405, 409, 410, 413, 422, 500)

# What to tell a person, in place of Werkzeug's developer-facing descriptions.
MESSAGES = {
    400: "The request could not be read.",
    403: "This link does not allow that.",
    404: "There is nothing at this address. Check that the link is complete.",
    405: "This page cannot be used that way. Links only show pages; buttons make changes.",
    409: "The game has moved on since this page was shown. Nothing was changed.",
    410: "This is no longer available.",
    413: "That was far more data than this form takes.",
    422: "Some of what was entered cannot be used.",
    500: "Something went wrong on our side. Nothing was changed; please try again later.",
}

MAY_BE_SAVED = (
    "Your change may have been saved: open your private page (or reload the page you came "
    "from) to see whether it was, before you try again."
)
SAVED_500 = f"Something went wrong on our side after your change was sent. {MAY_BE_SAVED}"
"""The 500 message once the request committed (or began to commit) a change."""
NOTHING_CHANGED = re.compile(r"\s*\bnothing was changed\b[^.]*\.?", re.IGNORECASE)


def wants_json() -> bool:
    """True when the client prefers JSON to HTML (browsers and mail scanners get HTML)."""
    accept = request.accept_mimetypes
    return accept["application/json"] > accept["text/html"]


def error_response(
    status: int, title: str, message: str, page_url: str | None = None
) -> tuple[Response | str, int]:
    """The error page (or JSON object) for ``status``, linking to ``page_url`` (how things are
    now) when there is one. After this request committed a change, no page claims that nothing
    was changed: it may have been saved."""
    if committed_in_request() and NOTHING_CHANGED.search(message):
        message = f"{NOTHING_CHANGED.sub('', message).strip()} {MAY_BE_SAVED}".strip()
    if wants_json():
        body = {"error": status, "title": title, "message": message}
        if page_url:
            body["page"] = page_url
        return jsonify(body), status
    page = render_template(
        "error.html", status=status, title=title, message=message, page_url=page_url
    )
    return page, status


@bp.app_errorhandler(HTTPException)
def handle_http_error(error: HTTPException) -> tuple[Response | str, int] | HTTPException:
    status = error.code or 500
    if status not in MESSAGES:
        return error  # redirects and the like pass through as Werkzeug made them
    # An abort(..., description) carries a message meant for the person; the defaults do not.
    default = type(error).description
    message = error.description if error.description != default else MESSAGES[status]
    return error_response(status, error.name, message or MESSAGES[status])


@bp.app_errorhandler(Refusal)
def handle_refusal(error: Refusal) -> tuple[Response | str, int]:
    return error_response(error.status, error.title, str(error), error.page_url)


@bp.app_errorhandler(InternalServerError)
def handle_internal_error(error: InternalServerError) -> tuple[Response | str, int]:
    # Flask has logged the original exception already; the session scope has rolled back what
    # was not committed. A change committed before the failure stands (a move, then a failure
    # while answering): the page must not say that nothing was changed.
    message = SAVED_500 if committed_in_request() else MESSAGES[500]
    return error_response(500, "Internal error", message)
