"""Rate limits on sign-in requests and code attempts, per link, address and client.

Built on ``limits``, the library under Flask-Limiter, with one storage per viewer app
(``app.extensions["signin_limiter"]``): the checks sit inside the sign-in views (they
count per link, address and client, which route decorators cannot key on), so no
module-level ``Limiter`` is needed.

The storage is ``FLASK_RATELIMIT_STORAGE_URI``: ``memory://``
by default (counts per worker process), ``redis://host:port`` to share counts between
workers and servers; keys start with ``FLASK_RATELIMIT_KEY_PREFIX``.

Keys never hold a secret or an address in clear: link ids and addresses are keyed hashes.
If the storage is unreachable the check passes and the error is logged: every message is
still capped at a few code attempts in the database, so a 40-bit code stays out of reach.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

from flask import Flask, current_app, request
from limits import parse
from limits.storage import storage_from_string
from limits.strategies import MovingWindowRateLimiter

from app.viewer.signin import codes

log = logging.getLogger(__name__)

DEFAULT_LIMITS = {
    # Messages asked for: per address protects a mailbox from being flooded, per client
    # and per link stop one visitor or one leaked link from sending many.
    "SIGNIN_LIMIT_REQUESTS_PER_ADDRESS": "5 per 15 minutes",
    "SIGNIN_LIMIT_REQUESTS_PER_CLIENT": "20 per hour",
    "SIGNIN_LIMIT_REQUESTS_PER_LINK": "100 per hour",
    # Codes typed: on top of the per-message cap (SIGNIN_MAX_CODE_ATTEMPTS).
    "SIGNIN_LIMIT_CODES_PER_CLIENT": "30 per 15 minutes",
    "SIGNIN_LIMIT_CODES_PER_LINK": "100 per 15 minutes",
}


@dataclass(frozen=True)
class Breach:
    """A limit that was crossed: which one, and seconds until it frees up."""

    name: str
    retry_after: int


def init_app(app: Flask) -> None:
    """Create this app's rate-limit storage and fill in the default limits."""
    for key, value in DEFAULT_LIMITS.items():
        app.config.setdefault(key, value)
    app.config.setdefault("RATELIMIT_KEY_PREFIX", "share-viewer")
    uri = app.config.get("RATELIMIT_STORAGE_URI") or "memory://"
    storage = storage_from_string(uri)
    app.extensions["signin_limiter"] = MovingWindowRateLimiter(storage)


def client_address() -> str:
    """Return the client's address (ProxyFix has applied FLASK_TRUSTED_PROXY_COUNT)."""
    return request.remote_addr or "unknown"


def _hit(setting: str, scope: str, key: str) -> Breach | None:
    limiter: MovingWindowRateLimiter = current_app.extensions["signin_limiter"]
    item = parse(current_app.config[setting])
    prefix = str(current_app.config.get("RATELIMIT_KEY_PREFIX") or "")
    identifiers = (prefix, "signin", scope, codes.keyed_hash("ratelimit", key)[:32])
    try:
        if limiter.hit(item, *identifiers):
            return None
        stats = limiter.get_window_stats(item, *identifiers)
    except Exception as error:  # storage down: fail open, see the module docstring
        log.error("rate-limit storage failed, check skipped: %s", type(error).__name__)
        return None
    return Breach(setting, max(1, int(stats.reset_time - time.time())))


def check(checks: list[tuple[str, str, str]]) -> Breach | None:
    """Count this request against each ``(setting, scope, key)``; return the first breach.

    Every limit is counted even after one is crossed, so a visitor who keeps trying while
    blocked keeps every window full.
    """
    breaches = [b for b in (_hit(*item) for item in checks) if b is not None]
    return breaches[0] if breaches else None


def check_request(link_id: str, email: str) -> Breach | None:
    """Count a request for a sign-in message."""
    return check([
        ("SIGNIN_LIMIT_REQUESTS_PER_CLIENT", "request-client", client_address()),
        ("SIGNIN_LIMIT_REQUESTS_PER_ADDRESS", "request-address", email.lower()),
        ("SIGNIN_LIMIT_REQUESTS_PER_LINK", "request-link", link_id),
    ])


def check_code_attempt(link_id: str) -> Breach | None:
    """Count an attempt at a code or a sign-in link."""
    return check([
        ("SIGNIN_LIMIT_CODES_PER_CLIENT", "code-client", client_address()),
        ("SIGNIN_LIMIT_CODES_PER_LINK", "code-link", link_id),
    ])
