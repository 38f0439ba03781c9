"""Identifiers: time-ordered ids for records, unguessable ids for credentials.

Record ids are ``<prefix>_<26 chars>``: 48 bits of milliseconds since the epoch followed
by 80 random bits, in Crockford base32, so that sorting by id is sorting by creation time
and a cursor is an index seek. Within one process ids are strictly increasing even inside
the same millisecond (the random part is incremented instead of redrawn).

Credential ids (share links, API keys) carry 192 random bits from ``secrets``.
"""

from __future__ import annotations

import secrets
import threading
import time

_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
_lock = threading.Lock()
_last_ms = 0
_last_rand = 0


def _encode(value: int, length: int) -> str:
    chars = []
    for _ in range(length):
        chars.append(_ALPHABET[value & 31])
        value >>= 5
    return "".join(reversed(chars))


def new_id(prefix: str, at_ms: int | None = None) -> str:
    """Return a new time-ordered id such as ``res_01JD3...``.

    ``at_ms`` backdates the id (demo data spread over past days); such ids are not
    guaranteed monotonic with respect to ids made at the present time.
    """
    global _last_ms, _last_rand
    with _lock:
        now = at_ms if at_ms is not None else int(time.time() * 1000)
        if at_ms is None and now <= _last_ms:
            now = _last_ms
            rand = _last_rand + 1
        else:
            rand = secrets.randbits(80)
        if at_ms is None:
            _last_ms, _last_rand = now, rand
    return f"{prefix}_{_encode(now, 10)}{_encode(rand & ((1 << 80) - 1), 16)}"


def is_record_id(value: str, prefix: str) -> bool:
    """Tell whether ``value`` has the shape of a record id with ``prefix``."""
    head, _, body = value.partition("_")
    return head == prefix and len(body) == 26 and all(c in _ALPHABET for c in body)


def new_secret_id(prefix: str) -> str:
    """Return an unguessable credential id: ``prefix`` + 192 bits from the CSPRNG."""
    return f"{prefix}{secrets.token_urlsafe(24)}"
