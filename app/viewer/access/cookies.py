"""The session cookie's attributes: Lax at top level, partitioned inside an embedding iframe.

At top level the cookie is ``HttpOnly; SameSite=Lax`` (and ``Secure`` when
``FLASK_PUBLIC_URL`` is https). Inside an iframe on another site a Lax cookie is never
sent, so embedded pages (``?embed=1``, or a browser saying ``Sec-Fetch-Dest: iframe``) get
``SameSite=None; Secure; Partitioned`` instead: a CHIPS cookie, kept in a jar of its own
for the embedding site, so signing in inside one site's iframe signs in nowhere else.
Browsers that refuse it (third-party cookies blocked without CHIPS, or plain http on a
non-loopback host) lose the session; the sign-in pages then offer "open in a new tab".
The cookie holds only an opaque session id (``sessions.py``).
"""

from __future__ import annotations

from datetime import timedelta

from flask import Flask, has_request_context, request
from flask.sessions import SessionInterface

from app.platform.settings import setting


def in_frame() -> bool:
    """Tell whether this request is (or asks to be rendered) inside an iframe."""
    if not has_request_context():
        return False
    return request.args.get("embed") == "1" or request.headers.get("Sec-Fetch-Dest") == "iframe"


class FrameAwareCookies(SessionInterface):
    """A session interface whose cookie is partitioned (CHIPS) inside iframes."""

    def get_cookie_samesite(self, app: Flask) -> str | None:
        """Return ``None`` (the string) inside an iframe, else the configured value."""
        return "None" if in_frame() else super().get_cookie_samesite(app)

    def get_cookie_secure(self, app: Flask) -> bool:
        """Return True inside an iframe (SameSite=None requires it), else the setting."""
        return True if in_frame() else super().get_cookie_secure(app)

    def get_cookie_partitioned(self, app: Flask) -> bool:
        """Return True inside an iframe, else the configured value."""
        return True if in_frame() else super().get_cookie_partitioned(app)

    def cookie_attributes(self, app: Flask) -> dict:
        """Return the keyword arguments of ``set_cookie``/``delete_cookie`` (no value)."""
        return {
            "domain": self.get_cookie_domain(app),
            "path": self.get_cookie_path(app),
            "httponly": self.get_cookie_httponly(app),
            "secure": self.get_cookie_secure(app),
            "samesite": self.get_cookie_samesite(app),
            "partitioned": self.get_cookie_partitioned(app),
        }


def init_app(app: Flask) -> None:
    """Harden the session cookie's settings (the interface is ``sessions.init_app``)."""
    app.config["SESSION_COOKIE_HTTPONLY"] = True
    if not app.config.get("SESSION_COOKIE_SAMESITE"):
        app.config["SESSION_COOKIE_SAMESITE"] = "Lax"
    public_url = setting(app, "PUBLIC_URL")
    if public_url and public_url.startswith("https://"):
        app.config["SESSION_COOKIE_SECURE"] = True
    # A proof of address lasts this long; the session store and verified_email() check
    # the same bound (Flask's own uses of the setting see the same value).
    app.config["PERMANENT_SESSION_LIFETIME"] = timedelta(
        hours=setting(app, "SIGNIN_SESSION_HOURS")
    )
