"""API-key authentication for the compute API.

Checks, in order: the ``x-api-key`` header is present and names a key (401), the key is
active, not expired and its workspace not archived (401), the client address is in
``allowed_ips`` when that list is non-empty (403), and the endpoint's key kind (403).
A key that passes the first checks counts as used: ``last_used_at`` is written at most
once a minute per key (see ``store.api_keys.touch_last_used``), so steady traffic costs
no write.

Client address: ``request.remote_addr``. Behind proxies, set ``FLASK_TRUSTED_PROXY_COUNT``
to the number of proxies in front of the app; werkzeug's ProxyFix then takes the address
that many hops from the right of ``X-Forwarded-For`` (set in
``app.platform.base_app.make_flask_app``).
With the default of 0, ``X-Forwarded-For`` is ignored, so a client cannot spoof an
allowed address by sending the header itself.

A test key's first authorised request seeds synthetic test-mode data into its workspace
(``app.synthetic.test_mode``); later requests pay nothing for it.
"""

from __future__ import annotations

import ipaddress

from flask import current_app, g, request

from app import artifact_storage
from app.platform.db import get_conn
from app.platform.timeutil import utcnow
from app.service.errors import forbidden, unauthorized
from app.store import api_keys
from app.store.records import ApiKey
from app.synthetic import test_mode as synthetic_data


def normalise_ip(value: str) -> str:
    """Return the canonical spelling of an IPv4/IPv6 address, or raise ValueError.

    ``::ffff:10.0.0.1`` becomes ``10.0.0.1`` and IPv6 is compressed and lower-cased, so
    one address has one spelling (what ``allowed_ips`` stores and what is compared).
    """
    address = ipaddress.ip_address(value.strip())
    if isinstance(address, ipaddress.IPv6Address) and address.scope_id is not None:
        # fe80::1%eth0 names an interface of the machine that wrote it, not a client.
        raise ValueError("an IPv6 zone id is not part of a client address")
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped:
        address = address.ipv4_mapped
    return str(address)


def ip_allowed(client: str | None, allowed: list[str]) -> bool:
    """Tell whether ``client`` is one of ``allowed`` (empty list: everyone).

    Both sides are compared in their ``normalise_ip`` spelling, so ``::ffff:10.0.0.1``
    matches ``10.0.0.1`` and different spellings of one IPv6 address match.
    """
    if not allowed:
        return True
    try:
        address = normalise_ip(client or "")
        return any(address == normalise_ip(item) for item in allowed)
    except ValueError:
        return False


def authenticate(require_admin: bool) -> ApiKey:
    """Authenticate the request's ``x-api-key``; store the key in ``g.api_key``."""
    full_key = request.headers.get("x-api-key", "").strip()
    if not full_key:
        raise unauthorized()
    conn = get_conn()
    key = api_keys.find_key_for_auth(conn, full_key)
    now = utcnow()
    if key is None:
        raise unauthorized("The API key is not valid")
    if not key.is_active:
        raise unauthorized("The API key has been revoked")
    if key.expires_at is not None and key.expires_at <= now:
        raise unauthorized("The API key has expired")
    if key.workspace_archived_at is not None:
        raise unauthorized("The API key's workspace has been archived")
    if not ip_allowed(request.remote_addr, key.allowed_ips):
        raise forbidden("This API key may not be used from this IP address")
    # The key is genuine and usable from here: that counts as a use, even if this
    # endpoint then refuses its kind (the refusal is committed like any 4xx answer).
    api_keys.touch_last_used(conn, key, now)
    if require_admin and key.key_type != "admin":
        raise forbidden("This endpoint requires an admin API key")
    # Test mode: a test key's first use gives its workspace synthetic test-mode data, so
    # that there is something to list and share at once (free once it is done).
    synthetic_data.ensure_for_key(conn, key, artifact_storage.open_store(current_app.config))
    g.api_key = key
    return key


def current_key() -> ApiKey:
    """Return the key authenticated for this request."""
    return g.api_key
