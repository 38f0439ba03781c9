"""The base URL of every link this app hands out (sign-in mail, API ``url``, OIDC redirects).

A link must never name a host an outsider chose. The request's ``Host`` header is such a
choice: a sign-in request sent with ``Host: evil.example`` would otherwise mail the genuine
reader a link to evil.example together with its code. So the base is, in order:

1. ``FLASK_PUBLIC_URL``, when the deployment set it (production);
2. the request's own host, but only when that host was checked: ``FLASK_TRUSTED_HOSTS`` is
   set (Flask answers 400 to any other ``Host`` before a view runs), or the app runs in
   debug mode (``flask run --debug`` on a developer's machine);
3. nothing: ``PublicUrlMissing``. Callers refuse to mail (the sign-in view) or hand out a
   root-relative path (the API), and the log names ``FLASK_PUBLIC_URL``.

``app.testing`` is deliberately no exemption: the tests run the production rule (their
app fixture sets ``PUBLIC_URL``).
"""

from __future__ import annotations

from flask import current_app, request

from app.platform.settings import setting


class PublicUrlMissing(RuntimeError):
    """Neither ``FLASK_PUBLIC_URL`` nor a checked request host is available."""


def base_url() -> str:
    """Return the trusted base URL for absolute links, without a trailing slash.

    Raises ``PublicUrlMissing`` when only an unchecked ``Host`` header could supply one.
    """
    configured = setting(current_app, "PUBLIC_URL")
    if configured:
        return str(configured).rstrip("/")
    if current_app.debug or setting(current_app, "TRUSTED_HOSTS"):
        return request.host_url.rstrip("/")
    raise PublicUrlMissing(
        "FLASK_PUBLIC_URL is not set (and FLASK_TRUSTED_HOSTS neither): links cannot be "
        "built from the request's Host header, which any client can choose"
    )
