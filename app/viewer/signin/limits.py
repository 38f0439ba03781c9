"""Rate limits on sign-in messages and code attempts, chosen so outsiders cannot lock out.

What is counted (settings ``SIGNIN_LIMIT_*``, declared in ``app.platform.settings``; syntax of
the ``limits`` library):

- messages per client (IPv4 address, or IPv6 /64), and per address *on one link*: an
  outsider can use up an address's messages on a link, but every message sent is usable
  by its mailbox's owner (its link, with its code, in any browser; ``codes.check_code``
  counts those attempts apart), so the reader is not locked out;
- new clients per link: a client counts once per window, however many messages it asks
  for, so no single client (nor a handful) can use up a link's allowance;
- code attempts per client, counted only when a pending sign-in exists to try them on;
  each message also takes at most ``SIGNIN_MAX_CODE_ATTEMPTS`` per way in (database).
  There is no per-link count of codes: guessing is already bounded per address (messages
  per address times attempts per message), and a per-link count was the lockout.

Where counts live: ``FLASK_RATELIMIT_STORAGE_URI`` unset (or ``memory://``, which would
count per worker process) means the viewer store, exact across workers and servers
sharing it; ``redis://host:port`` means Redis. If Redis fails, counting falls back to the
viewer store (logged); if the viewer store fails, sign-in answers 503 (fails closed: a
sign-in that cannot be counted is not allowed, and it could not be stored either).

Keys never hold a secret or an address in clear: they are keyed hashes.
"""

from __future__ import annotations

import ipaddress
import logging
import time
from dataclasses import dataclass
from datetime import timedelta

from flask import Flask, current_app, request
from limits import RateLimitItem, parse
from limits.storage import storage_from_string
from limits.strategies import MovingWindowRateLimiter

from app.platform.settings import retired_in, setting
from app.platform.timeutil import utcnow
from app.viewer import store
from app.viewer.access import codes, purge
from app.viewer.store import rate_limits
from app.viewer.web import retry

log = logging.getLogger(__name__)

IN_STORE = (None, "", "memory://", "database")


@dataclass(frozen=True)
class Breach:
    """A limit that was crossed (or could not be checked): which one, and seconds to wait.

    ``scope`` tells the pages which explanation fits: ``address``, ``unavailable`` or
    any other scope (a plain "too many attempts"). ``retry_after`` is the seconds until
    the crossed limit's window has room, or ``web.retry.UNAVAILABLE_SECONDS`` when the
    counts could not be read.
    """

    name: str
    scope: str
    retry_after: int


class StoreCounter:
    """Counts in the viewer store: a moving window per key, serialized per key."""

    def hit(self, item: RateLimitItem, key: str) -> int | None:
        """Count one hit; return None, or the seconds until the window has room."""
        conn = store.get_conn()
        window = timedelta(seconds=item.get_expiry())
        counted, state = rate_limits.hit(conn, key, item.amount, window)
        if purge.due("rate-limits"):
            rate_limits.purge_expired(conn)
        # Committed at once: the key's lock is held only for these statements, and a
        # request that fails later still leaves its hit counted.
        conn.commit()
        if counted:
            return None
        return max(1, int((state.reset_at - utcnow()).total_seconds()) + 1)

    def seen(self, item: RateLimitItem, key: str) -> bool:
        """Tell whether ``key`` was counted in the current window of ``item``."""
        window = timedelta(seconds=item.get_expiry())
        return rate_limits.peek(store.get_conn(), key, window).count > 0


class RedisCounter:
    """Counts in Redis (or any storage of the ``limits`` library) with its moving window."""

    def __init__(self, uri: str) -> None:
        self.limiter = MovingWindowRateLimiter(storage_from_string(uri))

    def _ids(self, key: str) -> tuple[str, ...]:
        return (setting(current_app, "RATELIMIT_KEY_PREFIX"), "signin", key)

    def hit(self, item: RateLimitItem, key: str) -> int | None:
        """Count one hit; return None, or the seconds until the window has room."""
        if self.limiter.hit(item, *self._ids(key)):
            return None
        stats = self.limiter.get_window_stats(item, *self._ids(key))
        return max(1, int(stats.reset_time - time.time()) + 1)

    def seen(self, item: RateLimitItem, key: str) -> bool:
        """Tell whether ``key`` was counted in the current window of ``item``."""
        return self.limiter.get_window_stats(item, *self._ids(key)).remaining < item.amount


def init_app(app: Flask) -> None:
    """Name the retired limits still set, and choose where the counts live."""
    for old, new in retired_in(app.config):
        log.warning("%s is no longer used (one client could lock a link's readers "
                    "out); see %s in docs/signin.md", old, new)
    uri = setting(app, "RATELIMIT_STORAGE_URI")
    app.extensions["signin_counter"] = StoreCounter() if uri in IN_STORE else RedisCounter(uri)


def client_key() -> str:
    """Return the client's network for per-client counts: its IPv4 address or IPv6 /64.

    One IPv6 host is usually given a whole /64, so counting single IPv6 addresses would
    give it billions of allowances. ProxyFix has applied FLASK_TRUSTED_PROXY_COUNT.
    """
    address = request.remote_addr or "unknown"
    try:
        parsed = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return address
    if isinstance(parsed, ipaddress.IPv6Address):
        if parsed.ipv4_mapped is not None:
            return str(parsed.ipv4_mapped)
        return str(ipaddress.ip_network(f"{parsed}/64", strict=False))
    return str(parsed)


def _counted(operation):
    """Run ``operation(counter)`` on the configured counter, falling back to the store."""
    counter = current_app.extensions["signin_counter"]
    if isinstance(counter, StoreCounter):
        return operation(counter)
    try:
        return operation(counter)
    except Exception as error:  # Redis down: count in the viewer store meanwhile
        log.error("rate-limit storage failed, counting in the viewer store: %s",
                  type(error).__name__)
        return operation(StoreCounter())


def _key(scope: str, item: RateLimitItem, value: str) -> str:
    # The limit is part of the key: a changed setting starts from fresh counts.
    return codes.keyed_hash("ratelimit", f"{scope}\n{item}\n{value}")


def _hit(name: str, scope: str, value: str) -> Breach | None:
    item = parse(setting(current_app, name))
    wait = _counted(lambda counter: counter.hit(item, _key(scope, item, value)))
    return Breach(name, scope, wait) if wait is not None else None


def _new_client_on_link(link_id: str) -> Breach | None:
    """Count this client on the link the first time it asks in the window."""
    name = "SIGNIN_LIMIT_CLIENTS_PER_LINK"
    item = parse(setting(current_app, name))
    marker = _key("link-client", item, f"{link_id}\n{client_key()}")
    if _counted(lambda counter: counter.seen(item, marker)):
        return None
    breach = _hit(name, "link-clients", link_id)
    if breach is None:
        # Marked only once admitted: a client refused here is still new next time.
        _counted(lambda counter: counter.hit(parse(f"1 per {item.get_expiry()} seconds"),
                                             marker))
    return breach


def _guarded(check) -> Breach | None:
    """Run ``check()``; a viewer store that fails means 503 (``Retry-After``:
    ``web.retry.UNAVAILABLE_SECONDS``), never an uncounted pass."""
    try:
        return check()
    except store.StoreError as error:
        store.rollback_conn()
        log.error("rate-limit counts unavailable, sign-in refused: %s", type(error).__name__)
        return Breach("RATELIMIT_STORAGE_URI", "unavailable", retry.UNAVAILABLE_SECONDS)


def check_request(link_id: str, email: str) -> Breach | None:
    """Count a request for a sign-in message to ``email`` on ``link_id``.

    The client and address counts are both taken even when one is crossed, so a visitor
    who keeps asking while blocked keeps both windows full; the link's count of clients
    is taken only for a request that would otherwise be sent.
    """
    def check() -> Breach | None:
        breaches = [b for b in (
            _hit("SIGNIN_LIMIT_REQUESTS_PER_CLIENT", "request-client", client_key()),
            _hit("SIGNIN_LIMIT_REQUESTS_PER_ADDRESS", "address", f"{link_id}\n{email.lower()}"),
        ) if b is not None]
        return breaches[0] if breaches else _new_client_on_link(link_id)

    return _guarded(check)


def check_code_attempt() -> Breach | None:
    """Count an attempt at a code or a sign-in link by this client."""
    return _guarded(
        lambda: _hit("SIGNIN_LIMIT_CODES_PER_CLIENT", "code-client", client_key())
    )
