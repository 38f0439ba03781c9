"""Where artifact files live: local disk (default) or an S3-compatible bucket.

``open_store(config)`` returns the store ``ARTIFACT_STORE`` names (``file`` or
``s3://bucket/prefix``). Every store has the same narrow interface:
``save(chunks) -> (storage_path, size, sha256)``, ``exists(storage_path)``,
``delete(storage_path)`` (a missing file is fine) and ``read(storage_path)``. Files are
content-addressed (``ab/cd/<sha256>``), so identical bytes are stored once and shared by
every artifact row that names them.

The module-level ``save`` and ``path_for`` are the file store's, kept for callers that
address a directory directly.
"""

from __future__ import annotations

from collections.abc import Mapping

from app.artifact_storage.file_store import FileStore, content_path, path_for, save

__all__ = ["FileStore", "content_path", "open_store", "path_for", "save"]


def open_store(config: Mapping[str, object]) -> FileStore:
    """Return the artifact store the Flask ``config`` names (``ARTIFACT_STORE``)."""
    return FileStore(str(config["ARTIFACT_DIR"]))
