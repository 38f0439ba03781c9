"""Names of downloaded files: kept to safe characters, never a path or a header trick."""

from __future__ import annotations

import re

_UNSAFE = re.compile(r"[^A-Za-z0-9._\-]+")


def safe_filename(name: str, fallback: str) -> str:
    """Keep a file name to safe characters (no paths, quotes or header tricks)."""
    name = _UNSAFE.sub("_", (name or "").rsplit("/", 1)[-1]).strip("._")
    return name[:150] or fallback
