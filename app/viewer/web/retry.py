"""How long the viewer asks a visitor (or a crawler) to wait: ``Retry-After``.

Every "retry later" answer of the viewer takes its seconds from one place per situation:

- something the viewer depends on did not answer: ``UNAVAILABLE_SECONDS``, on the 502,
  503 and 504 pages of the compute API, the 503 page of the viewer's own store (down, or
  without its tables), the 503 of a session that could not be stored and the sign-in
  page refused because its rate-limit counts could not be read;
- the viewer's own "not now" (``core.errors.Retryable``: work not admitted, a count or an
  index still in the making): the seconds the exception carries, set where it is defined;
- a sign-in rate limit crossed (429): the seconds until its window has room again.
"""

from __future__ import annotations

from flask import Response

UNAVAILABLE_SECONDS = 10


def ask_later(response: Response, seconds: int = UNAVAILABLE_SECONDS) -> Response:
    """Set ``Retry-After: seconds`` on ``response`` and return it."""
    response.headers["Retry-After"] = str(seconds)
    return response
