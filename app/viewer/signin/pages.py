"""Rendering helpers shared by the sign-in views: one place for context and statuses."""

from __future__ import annotations

from flask import Response, current_app, g, render_template, url_for

from app.platform.settings import setting
from app.viewer.access import state
from app.viewer.signin import navigation

# What a visitor reads for each way a code or link can fail (see README, "Sign-in").
PROBLEMS = {
    "wrong": "That code is not right. Check the message and try again.",
    "expired": "This code or link has expired. Sign-in messages work for {minutes} minutes: "
               "ask for a new one.",
    "used": "This code or link has already been used. Each one works once: ask for a new "
            "one if you need to sign in again.",
    "locked": "Too many wrong codes were typed for this message, so it no longer works. "
              "Ask for a new one.",
    "invalid": "This sign-in link is not valid. It may have been cut short when it was "
               "copied: open it from the message again, or ask for a new one.",
    "mail": "We could not send the sign-in message just now. Please try again in a few "
            "minutes.",
    # FLASK_PUBLIC_URL is unset in production (app.platform.public_url): the visitor cannot fix it.
    "not_configured": "Sign-in by e-mail is not set up on this server yet. Please tell the "
                      "person who shared this link.",
    "limited": "Too many sign-in attempts. Please wait about {wait} and try again.",
    # An outsider may have asked for this address's messages: each one still works for
    # whoever reads the mailbox, so point there first.
    "limited_address": "Several sign-in messages were sent to this address in the last few "
                       "minutes. Open the newest one: its link works in this browser "
                       "together with its code. Otherwise, wait about {wait} and try again.",
    "unavailable": "Sign-in is not available just now. Please try again in a few minutes.",
    "csrf": "This form has expired or your browser did not send it with its cookie. Go "
            "back, reload the page and try again.",
    "provider": "Signing in with {provider} did not work. Try again, or use your e-mail "
                "address instead.",
    "unverified": "{provider} did not confirm that this e-mail address belongs to you, so it "
                  "cannot be used here. Use your e-mail address instead.",
}


def minutes() -> int:
    """Return how long a sign-in message stays valid, in whole minutes."""
    return max(1, setting(current_app, "SIGNIN_CODE_TTL_SECONDS") // 60)


def describe_wait(seconds: int) -> str:
    """Say ``seconds`` in words a visitor reads at a glance."""
    if seconds < 90:
        return "a minute"
    return f"{round(seconds / 60)} minutes"


def render(template: str, link_id: str | None, status: int = 200, **context) -> Response:
    """Render a sign-in page with the context every sign-in template uses."""
    # Sign-in and no-access pages are not the link's content: nothing to embed or copy.
    g.no_embed_tools = True
    body = render_template(
        template,
        link_id=link_id,
        embed_arg=navigation.embed_arg(),
        verified_email=state.verified_email(),
        minutes=minutes(),
        providers=current_app.extensions.get("signin_providers", []),
        # Outside the iframe the browser's own cookie jar applies: the escape hatch when
        # an embedding page's browser refuses cookies in frames.
        new_tab_url=url_for("signin.request_form", link_id=link_id) if link_id else None,
        **context,
    )
    return Response(body, status=status, mimetype="text/html")


def problem(link_id: str | None, kind: str, status: int = 400, **values) -> Response:
    """Render the page that explains a failure of kind ``kind`` and offers a way on."""
    message = PROBLEMS[kind].format(minutes=minutes(), **values)
    return render("signin/problem.html", link_id, status, kind=kind, message=message,
                  next_path=values.get("next_path"))
