"""The OpenID Connect providers of ``FLASK_OIDC_PROVIDERS``, registered with authlib.

The configuration and its checks live here, apart from the routes (``oidc``), so that
``signin.init_app`` installs them without importing a blueprint module. See ``oidc`` for
what a provider must accept and what counts as a verified address.
"""

from __future__ import annotations

from authlib.integrations.flask_client import OAuth
from flask import Flask, current_app

from app.platform.settings import setting

REQUIRED_FIELDS = ("name", "label", "server_metadata_url", "client_id", "client_secret")


def configured_providers(app: Flask) -> list[dict]:
    """Return the provider list from ``OIDC_PROVIDERS`` (a list or its JSON text)."""
    providers = setting(app, "OIDC_PROVIDERS")
    for provider in providers:
        missing = [field for field in REQUIRED_FIELDS if not provider.get(field)]
        if missing:
            raise RuntimeError(f"FLASK_OIDC_PROVIDERS entry lacks {', '.join(missing)}")
    return providers


def init_app(app: Flask) -> None:
    """Register each configured provider with an authlib client of this app."""
    oauth = OAuth(app)
    providers = configured_providers(app)
    for provider in providers:
        oauth.register(
            name=provider["name"],
            client_id=provider["client_id"],
            client_secret=provider["client_secret"],
            server_metadata_url=provider["server_metadata_url"],
            client_kwargs={"scope": provider.get("scope") or "openid email profile",
                           "timeout": 10},
        )
    app.extensions["signin_oauth"] = oauth
    app.extensions["signin_providers"] = [
        {"name": p["name"], "label": p["label"]} for p in providers
    ]


def providers() -> list[dict]:
    """Return ``[{"name", "label"}]`` of the configured providers, for templates."""
    return current_app.extensions.get("signin_providers", [])
