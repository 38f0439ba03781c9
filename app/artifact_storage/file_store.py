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


def content_path(sha256: str) -> str:
    """Return the relative, content-addressed path of a file: ``ab/cd/<sha256>``."""
    return f"{sha256[:2]}/{sha256[2:4]}/{sha256}"


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
        relative = content_path(sha)
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


class FileStore:
    """The artifact store on local disk (the embedded default, ``ARTIFACT_STORE=file``)."""

    kind = "file"

    def __init__(self, artifact_dir: str):
        self.artifact_dir = str(artifact_dir)

    def save(self, chunks: bytes | Iterable[bytes]) -> tuple[str, int, str]:
        """Store a file; return ``(storage_path, size, sha256)`` (see :func:`save`)."""
        return save(self.artifact_dir, chunks)

    def path_for(self, storage_path: str) -> Path:
        """Return the absolute path of a stored file (ValueError if it leaves the root)."""
        return path_for(self.artifact_dir, storage_path)

    def exists(self, storage_path: str) -> bool:
        """Tell whether the file is stored (False for a path outside the root)."""
        try:
            return self.path_for(storage_path).is_file()
        except ValueError:
            return False

    def delete(self, storage_path: str) -> None:
        """Delete a stored file; a missing one is fine (deletion is idempotent)."""
        self.path_for(storage_path).unlink(missing_ok=True)

    def read(self, storage_path: str) -> bytes:
        """Return a stored file's bytes (tests and small files only: not streamed)."""
        return self.path_for(storage_path).read_bytes()
