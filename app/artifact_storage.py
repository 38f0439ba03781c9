"""Artifact files on local disk, under ``ARTIFACT_DIR``, addressed by content hash.

The database keeps each artifact's ``storage_path`` relative to the directory; this module
is the only code that turns one into a filesystem path, and it refuses any path that would
leave the directory.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path


def save(artifact_dir: str, chunks: bytes | Iterable[bytes]) -> tuple[str, int, str]:
    """Write a file and return ``(storage_path, size, sha256)``.

    Content-addressed (``ab/cd/<sha256>``): identical files are stored once, and a file
    is moved into place only when complete, so a reader never sees a partial file.
    """
    root = Path(artifact_dir)
    root.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256()
    size = 0
    fd, tmp_name = tempfile.mkstemp(dir=root, prefix=".incoming-")
    try:
        with os.fdopen(fd, "wb") as handle:
            for chunk in [chunks] if isinstance(chunks, bytes) else chunks:
                digest.update(chunk)
                size += len(chunk)
                handle.write(chunk)
        sha = digest.hexdigest()
        relative = f"{sha[:2]}/{sha[2:4]}/{sha}"
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(tmp_name, target)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise
    return relative, size, sha


def path_for(artifact_dir: str, storage_path: str) -> Path:
    """Return the absolute path of a stored file; raise ValueError if it escapes the root."""
    root = Path(artifact_dir).resolve()
    path = (root / storage_path).resolve()
    if root not in path.parents:
        raise ValueError("storage path leaves the artifact directory")
    return path
