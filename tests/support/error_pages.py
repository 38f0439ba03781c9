"""Comparing error pages: each quotes its own request id (``app.platform.request_ids``).

"Every 404 looks the same" means the same page but for that reference, which is random
per request and says nothing about the link.
"""

from __future__ import annotations

import re

_REFERENCE = re.compile(r"<code>[0-9a-f]{16}</code>")


def without_reference(page: str) -> str:
    """Return ``page`` with its request reference blanked (asserting it had one)."""
    assert _REFERENCE.search(page), "the error page quotes no reference"
    return _REFERENCE.sub("<code>reference</code>", page)
