"""Sign-in for email-mode share links: e-mail codes and links, optional OpenID Connect.

``init_app`` is called by ``create_viewer_app``. It hardens the session cookie, keeps
sessions on the server (``sessions``: the cookie holds an opaque id), turns on CSRF
protection for every form (the viewer app has no JSON API to exempt), chooses where the
rate limits count and registers the configured identity providers; the sign-in routes
are ``views.bp``, registered with the viewer's other blueprints.

Settings (``FLASK_`` prefix; declared with their defaults in ``app.platform.settings``):
``SIGNIN_CODE_TTL_SECONDS``, ``SIGNIN_MAX_CODE_ATTEMPTS``, ``SIGNIN_SESSION_HOURS``,
``SIGNIN_LIMIT_*``, ``SESSION_STORE_URI``, ``MAIL_TIMEOUT``, ``OIDC_PROVIDERS``, plus the
shared ``MAIL_*``, ``PRODUCT_NAME``, ``PUBLIC_URL``, ``RATELIMIT_STORAGE_URI`` and
``RATELIMIT_KEY_PREFIX``.
"""

from __future__ import annotations

from flask import Flask, request
from flask_wtf.csrf import CSRFError, CSRFProtect

from app.viewer.access import cookies, sessions, state
from app.viewer.signin import limits, oidc_providers, pages


def init_app(app: Flask) -> None:
    """Install cookies, CSRF, rate limits and identity providers on the viewer app."""
    cookies.init_app(app)
    sessions.init_app(app)
    CSRFProtect(app)
    limits.init_app(app)
    oidc_providers.init_app(app)

    @app.context_processor
    def _signin_context() -> dict:
        # For signin/_account.html on viewer pages: "Signed in as ... · Sign out".
        return {"signin_email": state.verified_email}

    @app.errorhandler(CSRFError)
    def _csrf_failed(_error):
        return pages.problem((request.view_args or {}).get("link_id"), "csrf", 400)
