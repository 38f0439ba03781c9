"""Where a visitor goes after signing in, and how embed mode follows them.

``next`` comes from the query string or a form, so it is untrusted: it is accepted only as
a local path under the same share link (``/share/<id>`` or below), with no scheme, host,
backslash, control character, dot segment or double slash. The checks hold for the path
both as written and percent-decoded (a browser treats ``%2e%2e`` as ``..``, and
``%2f``/``%5c`` may be decoded by a proxy), so an encoded dot segment, slash or backslash
is refused too. Anything else falls back to the link's overview, so there is no open
redirect and no hop to another link.
"""

from __future__ import annotations

from urllib.parse import parse_qsl, unquote, urlsplit

from app.viewer.web.security import is_embed

MAX_NEXT_LENGTH = 2000


def embed_arg() -> int | None:
    """Return the ``embed`` value for ``url_for`` (None drops it from the URL)."""
    return 1 if is_embed() else None


def overview_path(link_id: str) -> str:
    """Return the link's overview path, keeping embed mode."""
    return f"/share/{link_id}" + ("?embed=1" if is_embed() else "")


def _path_is_safe(link_id: str, path: str) -> bool:
    """Whether ``path`` stays under the link: no backslash, control, dot or empty segment."""
    if "\\" in path or any(ord(ch) < 32 or ord(ch) == 127 for ch in path):
        return False
    base = f"/share/{link_id}"
    if path != base and not path.startswith(base + "/"):
        return False
    if any(segment in ("", ".", "..") for segment in path.split("/")[1:]):
        return False
    # Back to a sign-in page would loop: send the visitor to the overview instead.
    return not path.startswith(base + "/sign-")


def _is_safe(link_id: str, candidate: str) -> bool:
    if not candidate or len(candidate) > MAX_NEXT_LENGTH:
        return False
    if "\\" in candidate or any(ord(ch) < 32 or ord(ch) == 127 for ch in candidate):
        return False
    parts = urlsplit(candidate)
    if parts.scheme or parts.netloc or not parts.path.startswith("/"):
        return False
    # Decoded twice: a doubly encoded dot (%252e) is one proxy's decoding from a dot.
    once = unquote(parts.path)
    return all(_path_is_safe(link_id, path) for path in (parts.path, once, unquote(once)))


def safe_next(link_id: str, candidate: str | None) -> str:
    """Return ``candidate`` if it is a safe local path for ``link_id``, else the overview.

    Embed mode is carried over: a visitor signing in inside an iframe stays embedded.
    """
    if not candidate or not _is_safe(link_id, candidate):
        return overview_path(link_id)
    parts = urlsplit(candidate)
    query = parts.query
    if is_embed() and ("embed", "1") not in parse_qsl(query):
        query = f"{query}&embed=1" if query else "embed=1"
    return parts.path + ("?" + query if query else "")


def to_suffix(link_id: str, path: str) -> str:
    """Return the part of a safe ``path`` after ``/share/<id>``, for storing without the id."""
    base = f"/share/{link_id}"
    return path[len(base):] if path.startswith(base) else ""


def from_suffix(link_id: str, suffix: str) -> str:
    """Rebuild (and re-check) a path stored by ``to_suffix``."""
    return safe_next(link_id, f"/share/{link_id}{suffix}")
