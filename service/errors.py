"""One place that answers every error: an HTML page, or JSON for a client that asks for it."""

from __future__ import annotations

import re

from flask import Blueprint, Response, jsonify, render_template, request
from werkzeug.exceptions import HTTPException, InternalServerError

from service.catalogue import gettext, lazy_gettext
from service.db import committed_in_request
from service.refusal import Refusal, Text

bp = Blueprint("errors", __name__)

HANDLED_STATUSES = (400, 403, 404, 405, 409, 410, 413, 422, 500)

# What to tell a person, in place of Werkzeug's developer-facing names and descriptions.
TITLES = {
    400: lazy_gettext("Bad Request"),
    403: lazy_gettext("Forbidden"),
    404: lazy_gettext("Not Found"),
    405: lazy_gettext("Method Not Allowed"),
    409: lazy_gettext("Conflict"),
    410: lazy_gettext("Gone"),
    413: lazy_gettext("Request Entity Too Large"),
    422: lazy_gettext("Unprocessable Entity"),
    500: lazy_gettext("Internal error"),
}
MESSAGES = {
    400: lazy_gettext("The request could not be read."),
    403: lazy_gettext("This link does not allow that."),
    404: lazy_gettext("There is nothing at this address. Check that the link is complete."),
    405: lazy_gettext(
        "This page cannot be used that way. Links only show pages; buttons make changes."
    ),
    409: lazy_gettext("The game has moved on since this page was shown. Nothing was changed."),
    410: lazy_gettext("This is no longer available."),
    413: lazy_gettext("That was far more data than this form takes."),
    422: lazy_gettext("Some of what was entered cannot be used."),
    500: lazy_gettext(
        "Something went wrong on our side. Nothing was changed; please try again later."
    ),
}

NOTHING_CHANGED_SENTENCE = lazy_gettext("Nothing was changed.")
"""The sentence every refusal that changed nothing says; its translation is the one each
language's messages use word for word, so that it can be taken out (``may_be_saved``)."""
MAY_BE_SAVED = lazy_gettext(
    "Your change may have been saved: open your private page (or reload the page you came "
    "from) to see whether it was, before you try again."
)
SAVED_500 = lazy_gettext(
    "Something went wrong on our side after your change was sent. Your change may have been "
    "saved: open your private page (or reload the page you came from) to see whether it was, "
    "before you try again."
)
"""The 500 message once the request committed (or began to commit) a change."""
NOTHING_CHANGED = re.compile(r"\s*\bnothing was changed\b[^.]*\.?", re.IGNORECASE)
"""The English ways of saying it, in a sentence or at the end of one."""


def may_be_saved(message: str) -> str:
    """``message`` with its "nothing was changed" (in the reader's language) replaced by "it may
    have been saved"; unchanged when it says no such thing."""
    said = str(NOTHING_CHANGED_SENTENCE)
    if said in message:
        rest = message.replace(said, "").strip()
    elif NOTHING_CHANGED.search(message):
        rest = NOTHING_CHANGED.sub("", message).strip()
    else:
        return message
    if not rest:
        return str(MAY_BE_SAVED)
    # Sentences follow each other with a space in English, none in Japanese.
    return str(gettext("%(said)s %(may_be_saved)s", said=rest, may_be_saved=MAY_BE_SAVED))


def wants_json() -> bool:
    """True when the client prefers JSON to HTML (browsers and mail scanners get HTML)."""
    accept = request.accept_mimetypes
    return accept["application/json"] > accept["text/html"]


def error_response(
    status: int, title: Text, message: Text, page_url: str | None = None
) -> tuple[Response | str, int]:
    """The error page (or JSON object) for ``status``, linking to ``page_url`` (how things are
    now) when there is one. After this request committed a change, no page claims that nothing
    was changed: it may have been saved."""
    # Put into words here, in the reader's language.
    title, message = str(title), str(message)
    if committed_in_request():
        message = may_be_saved(message)
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
    return error_response(status, TITLES[status], message or MESSAGES[status])


@bp.app_errorhandler(Refusal)
def handle_refusal(error: Refusal) -> tuple[Response | str, int]:
    return error_response(error.status, error.title, str(error), error.page_url)


@bp.app_errorhandler(InternalServerError)
def handle_internal_error(error: InternalServerError) -> tuple[Response | str, int]:
    # Flask has logged the original exception already; the session scope has rolled back what
    # was not committed. A change committed before the failure stands (a move, then a failure
    # while answering): the page must not say that nothing was changed.
    message = SAVED_500 if committed_in_request() else MESSAGES[500]
    return error_response(500, TITLES[500], message)
