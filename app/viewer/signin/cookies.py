"""The session cookie: Lax at top level, partitioned inside an embedding iframe.

At top level the cookie is ``HttpOnly; SameSite=Lax`` (and ``Secure`` when
``FLASK_PUBLIC_URL`` is https). Inside an iframe on another site a Lax cookie is never
sent, so embedded pages (``?embed=1``, or a browser saying ``Sec-Fetch-Dest: iframe``) get
``SameSite=None; Secure; Partitioned`` instead: a CHIPS cookie, kept in a jar of its own
for the embedding site, so signing in inside one site's iframe signs in nowhere else.
Browsers that refuse it (third-party cookies blocked without CHIPS, or plain http on a
non-loopback host) lose the session; the sign-in pages then offer "open in a new tab".
"""

from __future__ import annotations

from datetime import timedelta

from flask import Flask, has_request_context, request
from flask.sessions import SecureCookieSessionInterface


def in_frame() -> bool:
    """Tell whether this request is (or asks to be rendered) inside an iframe."""
    if not has_request_context():
        return False
    return request.args.get("embed") == "1" or request.headers.get("Sec-Fetch-Dest") == "iframe"


class SigninSessionInterface(SecureCookieSessionInterface):
    """Flask's signed-cookie session, with partitioned attributes inside iframes."""

    def get_cookie_samesite(self, app: Flask) -> str | None:
        """Return ``None`` (the string) inside an iframe, else the configured value."""
        return "None" if in_frame() else super().get_cookie_samesite(app)

    def get_cookie_secure(self, app: Flask) -> bool:
        """Return True inside an iframe (SameSite=None requires it), else the setting."""
        return True if in_frame() else super().get_cookie_secure(app)

    def get_cookie_partitioned(self, app: Flask) -> bool:
        """Return True inside an iframe, else the configured value."""
        return True if in_frame() else super().get_cookie_partitioned(app)


def init_app(app: Flask) -> None:
    """Harden the session cookie and install the iframe-aware session interface."""
    app.config["SESSION_COOKIE_HTTPONLY"] = True
    if not app.config.get("SESSION_COOKIE_SAMESITE"):
        app.config["SESSION_COOKIE_SAMESITE"] = "Lax"
    if str(app.config.get("PUBLIC_URL") or "").startswith("https://"):
        app.config["SESSION_COOKIE_SECURE"] = True
    # A proof of address lasts this long; verified_email() checks the same bound.
    app.config["PERMANENT_SESSION_LIFETIME"] = timedelta(
        hours=float(app.config["SIGNIN_SESSION_HOURS"])
    )
    app.session_interface = SigninSessionInterface()
