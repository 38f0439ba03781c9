"""Optional sign-in through OpenID Connect providers: the two routes (authlib, discovery).

Configured with ``FLASK_OIDC_PROVIDERS``, a JSON list of
``{"name", "label", "server_metadata_url", "client_id", "client_secret"}`` (optional
``"scope"``, default ``openid email profile``). Each provider must accept the redirect
URI ``<FLASK_PUBLIC_URL>/sign-in/oidc/<name>/callback``: one fixed URL per provider, so
no share id is ever sent to the provider; the link and the page to return to wait in the
signed session cookie. authlib checks ``state``, the ``nonce`` and the id_token (signature
from the provider's JWKS, ``iss``, ``aud``, ``exp``). Only ``email_verified: true``
counts: a provider that does not vouch for the address gets a clear refusal.
"""

from __future__ import annotations

import logging

from authlib.common.errors import AuthlibBaseError
from flask import Blueprint, abort, current_app, redirect, request, session, url_for

from app.platform import public_url
from app.viewer.access import state
from app.viewer.core import loaders
from app.viewer.signin import navigation, oidc_providers, pages

bp = Blueprint("oidc", __name__)

log = logging.getLogger(__name__)

RETURN_KEY = "oidc_return"


@bp.url_value_preprocessor
def _check_link_id(_endpoint: str | None, values: dict | None) -> None:
    # A link id that cannot exist is the shared 404, as on every other viewer route.
    if values and "link_id" in values:
        loaders.check_ids(values["link_id"])


def _client(name: str):
    if name not in {p["name"] for p in oidc_providers.providers()}:
        abort(404)
    return current_app.extensions["signin_oauth"].create_client(name)


def _label(name: str) -> str:
    return next((p["label"] for p in oidc_providers.providers() if p["name"] == name), name)


def _callback_url(name: str) -> str:
    # Never from an unchecked Host (app.platform.public_url): the provider would send the visitor,
    # with a valid authorization code, to whatever host the request named.
    return public_url.base_url() + url_for("oidc.oidc_callback", provider=name)


@bp.get("/share/<link_id>/sign-in/oidc/<provider>")
def oidc_start(link_id: str, provider: str):
    """Send the visitor to the provider (only a random state and nonce are stored)."""
    client = _client(provider)
    next_path = navigation.safe_next(link_id, request.args.get("next"))
    session[RETURN_KEY] = {"link_id": link_id, "next": next_path, "provider": provider}
    try:
        callback = _callback_url(provider)
    except public_url.PublicUrlMissing as missing:
        log.error("OIDC sign-in not started: %s", missing)
        return pages.problem(link_id, "not_configured", 503)
    try:
        return client.authorize_redirect(callback)
    except (AuthlibBaseError, OSError, ValueError) as error:
        log.error("OIDC provider %s discovery failed: %s", provider, type(error).__name__)
        return pages.problem(link_id, "provider", 502, provider=_label(provider))


@bp.get("/sign-in/oidc/<provider>/callback")
def oidc_callback(provider: str):
    """Finish the provider's sign-in; only a provider-verified address signs in."""
    client = _client(provider)
    back = session.pop(RETURN_KEY, None)
    if not back or back.get("provider") != provider:
        abort(400)
    link_id = back["link_id"]
    try:
        token = client.authorize_access_token()
    except (AuthlibBaseError, OSError, ValueError) as error:
        log.warning("OIDC sign-in with %s failed: %s", provider, type(error).__name__)
        return pages.problem(link_id, "provider", 400, provider=_label(provider))
    claims = token.get("userinfo") or {}
    email = claims.get("email")
    verified = claims.get("email_verified")
    # Some providers send the claim as a string; nothing else than "true" counts.
    if not email or verified not in (True, "true"):
        return pages.problem(link_id, "unverified", 403, provider=_label(provider))
    state.sign_in(str(email))
    return redirect(navigation.safe_next(link_id, back.get("next")))
