"""Readers of hostile SDK values: dicts, lists, strings, counts, URLs and lengths.

Run records come from the API as plain JSON; any field may be missing or of the wrong
type. These helpers return an empty value instead of failing, and say lengths and file
names as the provenance pages show them.
"""

from __future__ import annotations

import re
from urllib.parse import unquote, urlsplit

# A designed-protein specification: fixed residues as letters, designed runs as "8" or
# "5..10" (SDK ``designed_protein.value``).
_SPEC_TOKEN = re.compile(r"([A-Za-z])|(\d+)(?:\.\.(\d+))?")


def as_dict(value) -> dict:
    """Return ``value`` if it is a dict, else an empty one (hostile input is skipped)."""
    return value if isinstance(value, dict) else {}


def as_list(value) -> list:
    """Return ``value`` if it is a list, else an empty one."""
    return value if isinstance(value, list) else []


def text(value) -> str:
    """Return ``value`` if it is a string, else ""."""
    return value if isinstance(value, str) else ""


def count(value) -> int | None:
    """Return ``value`` as a count if it is a non-negative integer (not a bool), else None."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return None
    return value


def spec_length(value: str) -> tuple[int, int] | None:
    """Return (min, max) residues of a designed-protein specification, or None.

    "MKTAYI5..10VKSHFSRQ" is 6 fixed + 5 to 10 designed + 8 fixed: (19, 24); "20" is
    (20, 20). Anything else in the string makes it unreadable (None).
    """
    low = high = 0
    position = 0
    value = value.strip()
    if not value:
        return None
    while position < len(value):
        match = _SPEC_TOKEN.match(value, position)
        if not match:
            return None
        if match.group(1):
            low, high = low + 1, high + 1
        else:
            first = int(match.group(2))
            last = int(match.group(3)) if match.group(3) else first
            if last < first:
                return None
            low, high = low + first, high + last
        position = match.end()
    return low, high


def length_phrase(low: int | None, high: int | None, unit: str = "residues") -> str:
    """Say a length or length range: "84 residues", "19-24 residues", or ""."""
    if low is None or high is None:
        return ""
    return f"{low} {unit}" if low == high else f"{low}\u2013{high} {unit}"


def file_name(url) -> str:
    """Return the file name of a URL (its last path segment, no query), or ""."""
    try:
        path = urlsplit(text(url)).path
    except ValueError:
        return ""
    return unquote(path.rsplit("/", 1)[-1])


def url_place(url) -> str:
    """Return a URL's host and path without its query (which may hold a signature)."""
    try:
        parts = urlsplit(text(url))
    except ValueError:
        return ""
    if parts.scheme not in ("http", "https", "s3", "gs") or not parts.netloc:
        return ""
    return f"{parts.netloc}{parts.path}"
