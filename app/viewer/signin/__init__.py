"""Sign-in for email-mode share links: e-mail codes and links, optional OpenID Connect.

``init_app`` is called by the viewer's ``init_app``. It hardens the session cookie,
turns on CSRF protection for every form outside the JSON API, creates the rate-limit
storage, registers the configured identity providers and the sign-in routes.

Settings (``FLASK_`` prefix; defaults in ``DEFAULTS`` and ``limits.DEFAULT_LIMITS``):
``SIGNIN_CODE_TTL_SECONDS``, ``SIGNIN_MAX_CODE_ATTEMPTS``, ``SIGNIN_SESSION_HOURS``,
``SIGNIN_LIMIT_*``, ``MAIL_TIMEOUT``, ``OIDC_PROVIDERS``, plus the shared ``MAIL_*``,
``PRODUCT_NAME``, ``PUBLIC_URL`` and ``RATELIMIT_STORAGE_URI``.
"""

from __future__ import annotations

from flask import Flask, request
from flask_wtf.csrf import CSRFError, CSRFProtect

DEFAULTS: dict[str, object] = {
    # A sign-in message (link and code) works for this long, once.
    "SIGNIN_CODE_TTL_SECONDS": 600,
    # Wrong codes typed for one message before it stops working.
    "SIGNIN_MAX_CODE_ATTEMPTS": 5,
    # How long a browser stays signed in after proving its address.
    "SIGNIN_SESSION_HOURS": 12,
    # Seconds to wait on the SMTP server before telling the visitor to try later.
    "MAIL_TIMEOUT": 10,
    # JSON list of OpenID Connect providers; see oidc.py and the README.
    "OIDC_PROVIDERS": [],
    # Referrer-Policy is no-referrer on every page, so the HTTPS Referer check of
    # Flask-WTF would refuse every form: the token in the session does the work.
    "WTF_CSRF_SSL_STRICT": False,
}


def init_app(app: Flask) -> None:
    """Install cookies, CSRF, rate limits, providers and the sign-in blueprint."""
    from app.service.api import bp as service_bp
    from app.viewer.signin import cookies, limits, oidc, pages, state
    from app.viewer.signin.views import bp

    for key, value in DEFAULTS.items():
        app.config.setdefault(key, value)
    cookies.init_app(app)
    csrf = CSRFProtect(app)
    # The JSON API authenticates every call with a key or bearer token, never a cookie.
    csrf.exempt(service_bp)
    limits.init_app(app)
    oidc.init_app(app)
    app.register_blueprint(bp)

    @app.context_processor
    def _signin_context() -> dict:
        # For signin/_account.html on viewer pages: "Signed in as ... · Sign out".
        return {"signin_email": state.verified_email}

    @app.errorhandler(CSRFError)
    def _csrf_failed(_error):
        return pages.problem((request.view_args or {}).get("link_id"), "csrf", 400)
