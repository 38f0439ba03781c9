"""Sign-in by e-mail for email-mode share links: ask, receive, redeem, sign out.

Every address that is syntactically valid gets the message, listed or not: the viewer
does not know the list (only the API does), the page reads the same either way, and
owning the mailbox is the proof. After sign-in the API decides: a listed address reads,
any other gets the no-access page. Nothing here changes state on GET except the session's
CSRF token and browser nonce.

Link ids are checked like on every other viewer route: one that cannot exist is the
shared 404 before anything else. Limits (``limits``) are counted first, before the
request's own writes. A code counts for its client, and against a message only when this
session has one pending (or the link names one).
"""

from __future__ import annotations

import logging

from flask import Blueprint, Response, redirect, request, url_for

from app.platform import public_url, share_tokens
from app.viewer.access import codes, identity, state
from app.viewer.access.codes import Outcome
from app.viewer.core import errors, loaders
from app.viewer.core.api_client import api
from app.viewer.signin import addresses, limits, mailer, navigation, pages
from app.viewer.store.signin_requests import CODE, LINK
from app.viewer.web import retry

log = logging.getLogger(__name__)

bp = Blueprint("signin", __name__)

BAD_ADDRESS = "Enter a complete e-mail address, like name@example.org."
NOT_DELIVERABLE = ("We cannot send a message to this address: our mail server does not "
                   "accept accented or non-Latin letters before the @. Use another address.")


@bp.url_value_preprocessor
def _check_link_id(_endpoint: str | None, values: dict | None) -> None:
    # A link id that cannot exist (e.g. non-ASCII) is the shared 404, as on other routes.
    if values and "link_id" in values:
        loaders.check_ids(values["link_id"])


def link_access(link_id: str, bearer: str | None) -> str:
    """Ask the API what this link needs: ``open``, ``sign-in`` or ``forbidden``.

    A gone link raises ``LinkNotFound`` and a failing API ``ApiUnavailable``; the viewer's
    handlers turn those into its 404 and 502/503/504 pages.
    """
    try:
        api().share(link_id, bearer)
    except errors.LinkNeedsSignIn:
        return "sign-in"
    except errors.LinkForbidden:
        return "forbidden"
    return "open"


def _link_base(link_id: str) -> str | Response:
    # The mailed link must not name a host the requester chose (app.platform.public_url); without
    # FLASK_PUBLIC_URL no message is sent at all, and the operator reads why in the log.
    try:
        return public_url.base_url()
    except public_url.PublicUrlMissing as missing:
        log.error("sign-in mail not sent: %s", missing)
        return pages.problem(link_id, "not_configured", 503)


def _limited(link_id: str, breach: limits.Breach) -> Response:
    if breach.scope == "unavailable":
        response = pages.problem(link_id, "unavailable", 503)
    else:
        kind = "limited_address" if breach.scope == "address" else "limited"
        response = pages.problem(link_id, kind, 429,
                                 wait=pages.describe_wait(breach.retry_after))
    return retry.ask_later(response, breach.retry_after)


def _ask_again(link_id: str, next_path: str, typed: str, error: str) -> Response:
    return pages.render("signin/request.html", link_id, 400, next_path=next_path,
                        not_allowed=False, signed_in=False, email=typed,
                        signed_out=False, error=error)


@bp.get("/share/<link_id>/sign-in")
def request_form(link_id: str):
    """Show the form that asks for an e-mail address (and configured providers)."""
    next_path = navigation.safe_next(link_id, request.args.get("next"))
    bearer = identity.bearer_for(link_id)
    access = link_access(link_id, bearer)
    if access == "open" and bearer is None:
        return redirect(next_path)  # a public link: nothing to sign in to
    state.browser_nonce(create=True)
    return pages.render("signin/request.html", link_id, next_path=next_path,
                        not_allowed=access == "forbidden", signed_in=access == "open",
                        email="", error=None, has_pending=state.get_pending(link_id) is not None,
                        signed_out=request.args.get("signed_out") == "1")


@bp.post("/share/<link_id>/sign-in")
def request_message(link_id: str):
    """Send a sign-in message to the address typed, then ask for its code."""
    next_path = navigation.safe_next(link_id, request.form.get("next"))
    typed = (request.form.get("email") or "").strip()
    try:
        address = addresses.parse(typed)
    except addresses.BadAddress:
        return _ask_again(link_id, next_path, typed, BAD_ADDRESS)
    breach = limits.check_request(link_id, address.normalized)
    if breach:
        return _limited(link_id, breach)
    # Only a live email-mode link gets a message: no mail for made-up or public links.
    if link_access(link_id, None) == "open":
        return redirect(next_path)
    base = _link_base(link_id)
    if isinstance(base, Response):
        return base
    issued = codes.issue(link_id, address.normalized, state.browser_nonce(create=True),
                         navigation.to_suffix(link_id, next_path))
    link_path = url_for("signin.link_landing", link_id=link_id, token=issued.token)
    message = mailer.build_message(to=address.mailbox, shown=address.normalized,
                                   link_url=base + link_path,
                                   code=codes.format_code(issued.code), minutes=pages.minutes())
    try:
        mailer.send(message, codes.format_code(issued.code))
    except mailer.MailNotDeliverable:
        return _ask_again(link_id, next_path, typed, NOT_DELIVERABLE)
    except mailer.MailNotSent:
        return pages.problem(link_id, "mail", 503)
    state.set_pending(link_id, issued.request.id, address.normalized)
    return redirect(url_for("signin.code_form", link_id=link_id, embed=navigation.embed_arg()))


@bp.get("/share/<link_id>/sign-in/code")
def code_form(link_id: str):
    """Ask for the code of the message this browser asked for."""
    pending = state.get_pending(link_id)
    if pending is None:
        return redirect(url_for("signin.request_form", link_id=link_id,
                                embed=navigation.embed_arg()))
    return pages.render("signin/code.html", link_id, email=pending["email"], error=None,
                        action=url_for("signin.code_submit", link_id=link_id,
                                       embed=navigation.embed_arg()))


def _finish(link_id: str, email: str, next_suffix: str) -> Response:
    state.clear_pending(link_id)
    state.sign_in(email)
    return redirect(navigation.from_suffix(link_id, next_suffix))


def _code_outcome(
    link_id: str, record, outcome: Outcome, action: str, other_browser: bool = False
) -> Response:
    """Answer a code attempt: sign in, ask again, or explain why it cannot work."""
    if outcome is Outcome.OK:
        return _finish(link_id, record.email, record.next_path)
    if outcome is Outcome.WRONG:
        left = codes.attempts_left(record, LINK if other_browser else CODE)
        error = pages.PROBLEMS["wrong"] + (
            f" You can try {left} more time{'s' if left != 1 else ''}." if left else ""
        )
        return pages.render("signin/code.html", link_id, 400, email=record.email,
                            error=error, action=action, other_browser=other_browser)
    return pages.problem(link_id, outcome.value, 400)


@bp.post("/share/<link_id>/sign-in/code")
def code_submit(link_id: str):
    """Check a typed code against this browser's pending sign-in."""
    breach = limits.check_code_attempt()
    if breach:
        return _limited(link_id, breach)
    pending = state.get_pending(link_id)
    record = codes.pending(pending["id"], link_id) if pending else None
    if record is None:
        return redirect(url_for("signin.request_form", link_id=link_id,
                                embed=navigation.embed_arg()))
    outcome = codes.check_code(record, request.form.get("code") or "")
    return _code_outcome(link_id, record, outcome,
                         url_for("signin.code_submit", link_id=link_id,
                                 embed=navigation.embed_arg()))


@bp.get("/share/<link_id>/sign-in/link/<token>")
def link_landing(link_id: str, token: str):
    """Open a sign-in link: confirm in the asking browser, ask for the code elsewhere.

    GET never redeems: mail scanners and link previews fetch links too.
    """
    record = codes.by_token(token, link_id)
    if record is None:
        return pages.problem(link_id, "invalid", 400)
    current = codes.state(record)
    if current is Outcome.USED and state.verified_email() == record.email:
        return redirect(navigation.from_suffix(link_id, record.next_path))
    if current is not Outcome.OK:
        return pages.problem(link_id, current.value, 400)
    action = url_for("signin.link_redeem", link_id=link_id, token=token,
                     embed=navigation.embed_arg())
    if codes.same_browser(record, state.browser_nonce()):
        return pages.render("signin/link.html", link_id, email=record.email, action=action)
    current = codes.state_for_code(record, LINK)
    if current is not Outcome.OK:
        return pages.problem(link_id, current.value, 400)
    return pages.render("signin/code.html", link_id, email=record.email, error=None,
                        action=action, other_browser=True)


@bp.post("/share/<link_id>/sign-in/link/<token>")
def link_redeem(link_id: str, token: str):
    """Redeem a sign-in link: alone in the asking browser, with its code in any other."""
    breach = limits.check_code_attempt()
    if breach:
        return _limited(link_id, breach)
    record = codes.by_token(token, link_id)
    if record is None:
        return pages.problem(link_id, "invalid", 400)
    action = url_for("signin.link_redeem", link_id=link_id, token=token,
                     embed=navigation.embed_arg())
    if codes.same_browser(record, state.browser_nonce()):
        return _code_outcome(link_id, record, codes.redeem_in_same_browser(record), action)
    outcome = codes.check_code(record, request.form.get("code") or "", LINK)
    return _code_outcome(link_id, record, outcome, action, other_browser=True)


@bp.post("/share/<link_id>/sign-out")
def sign_out(link_id: str):
    """Forget the verified address; go to the sign-in page to try another one."""
    state.sign_out()
    signed_out = 1 if request.form.get("then") == "signed-out" else None
    return redirect(url_for("signin.request_form", link_id=link_id, signed_out=signed_out,
                            embed=navigation.embed_arg()))


@bp.get("/.well-known/jwks.json")
def jwks():
    """Publish the viewer's public signing key, for an API set up with FLASK_JWT_JWKS_URL."""
    return {"keys": [share_tokens.public_jwk()]}
