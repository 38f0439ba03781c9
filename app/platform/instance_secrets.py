"""The secrets generated once into the instance folder, race-safe across workers.

The settings themselves (names, defaults, types) are declared in ``app.platform.settings``.
"""

from __future__ import annotations

import os
import secrets
import tempfile
from collections.abc import Callable
from pathlib import Path


def write_once(path: Path, make_content: Callable[[], bytes]) -> bytes:
    """Return the content of ``path``, creating it with ``make_content()`` if it is absent.

    Race-safe for workers starting at once: the content is written to a private temporary
    file first and then hard-linked into place, which fails if another process won the
    race; every process then reads the one complete file (never an empty, half-written one).
    The file is readable by its owner only (0600).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(make_content())
            os.link(tmp_name, path)
        except FileExistsError:
            pass
        finally:
            os.unlink(tmp_name)
    return path.read_bytes()


def ensure_instance_secret(instance_path: str, filename: str, length: int = 32) -> str:
    """Return a secret stored in the instance folder, creating it on first use."""
    content = write_once(Path(instance_path) / filename,
                         lambda: secrets.token_urlsafe(length).encode())
    return content.decode().strip()
