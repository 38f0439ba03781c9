"""Who the visitor is for a share link: the address this browser proved, and its token.

Viewer code calls ``bearer_for(link_id)`` before each API call (None for an anonymous
visitor). The session state behind it is ``access.state``; the pages that ask a visitor to
sign in (or say they have no access) are the sign-in package's (``signin.seam``).
"""

from __future__ import annotations

from app.platform import share_tokens
from app.viewer.access import state

SESSION_EMAIL_KEY = state.EMAIL_KEY


def verified_email() -> str | None:
    """Return the address this browser proved (and whose proof is recent), or None."""
    return state.verified_email()


def bearer_for(link_id: str) -> str | None:
    """Return a fresh JWT for ``link_id`` when the visitor has a verified address."""
    email = verified_email()
    return share_tokens.mint(link_id, email) if email else None
