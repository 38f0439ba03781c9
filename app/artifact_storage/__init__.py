"""Where artifact files live: local disk (default) or an S3-compatible bucket.

``open_store(config)`` returns the store ``ARTIFACT_STORE`` names: ``file`` (the
directory ``ARTIFACT_DIR``) or ``s3://bucket/prefix`` (with ``S3_ENDPOINT_URL`` and
boto3's usual AWS variables). Every store has the same narrow interface:
``save(chunks) -> (storage_path, size, sha256)``, ``exists(storage_path)``,
``delete(storage_path)`` (a missing file is fine) and ``read(storage_path)``; ``kind`` is
``"file"`` or ``"s3"``. Files are content-addressed (``ab/cd/<sha256>``, the same
``storage_path`` in both stores), so identical bytes are stored once and shared by every
artifact row that names them.

The module-level ``save`` and ``path_for`` are the file store's, kept for callers that
address a directory directly.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any

from app.artifact_storage.file_store import FileStore, content_path, path_for, save
from app.platform.settings import setting

__all__ = ["FileStore", "as_store", "batched", "check_config", "content_path", "init_app",
           "open_store", "path_for", "save"]


def _store_setting(config: Mapping[str, Any]) -> str:
    return setting(config, "ARTIFACT_STORE").strip()


def check_config(config: Mapping[str, Any]) -> None:
    """Raise ValueError with a clear message if ``ARTIFACT_STORE`` is malformed.

    Called when the service app is created, so a typo stops the server at start rather
    than failing the first upload or download.
    """
    value = _store_setting(config)
    if value == "file":
        return
    from app.artifact_storage.s3_store import S3Location

    try:
        S3Location.parse(value)
    except ValueError as error:
        raise ValueError(f"FLASK_ARTIFACT_STORE={value!r}: {error}") from None


def open_store(config: Mapping[str, Any]):
    """Return the artifact store the Flask ``config`` names (``ARTIFACT_STORE``)."""
    value = _store_setting(config)
    if value == "file":
        return FileStore(setting(config, "ARTIFACT_DIR"))
    # Imported here: boto3 is slow to import and file mode never needs it.
    from app.artifact_storage.s3_store import S3Location, S3Store

    try:
        location = S3Location.parse(value)
    except ValueError as error:
        raise ValueError(f"FLASK_ARTIFACT_STORE={value!r}: {error}") from None
    return S3Store(location, endpoint_url=setting(config, "S3_ENDPOINT_URL"))


def as_store(target):
    """Return ``target`` if it is a store, else the file store of directory ``target``.

    The demo builders accept either, so tests can keep passing a directory.
    """
    return target if hasattr(target, "save") else FileStore(str(target))


def init_app(app) -> None:
    """In S3 mode, make the app's ``/readyz`` depend on the bucket answering (HEAD).

    A node that cannot reach the bucket could list results but not serve their files,
    so a balancer should send visitors elsewhere. The file store needs no check.
    """
    from app.platform.base_app import add_readiness_check

    if _store_setting(app.config) != "file":
        add_readiness_check(app, "artifact_store", lambda: open_store(app.config).check())


@contextmanager
def batched(store, workers: int = 8) -> Iterator:
    """Within the block, save byte strings to an S3 store from ``workers`` threads.

    A save of ``bytes`` returns ``(storage_path, size, sha256)`` at once (the hash is
    computed first) while the upload proceeds in the background; leaving the block waits
    for every upload and raises the first failure, so rows naming the files are written
    only after their files exist. Seeding the demo into S3 is hundreds of round trips of
    HEAD and PUT, which overlap when run in parallel. The file store is returned as
    it is (local writes gain nothing from threads).
    """
    if store.kind != "s3":
        yield store
        return
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="s3-save") as pool:
        saver = _BatchedSaver(store, pool)
        yield saver
        for future in saver.futures:
            future.result()


class _BatchedSaver:
    """A store whose ``save`` of bytes uploads in a thread pool (see ``batched``)."""

    def __init__(self, store, pool: ThreadPoolExecutor):
        self._store, self._pool = store, pool
        self.kind = store.kind
        self.futures: list[Future] = []

    def save(self, chunks):
        """Hash now, upload in the background (bytes); stream anything else at once."""
        if not isinstance(chunks, bytes):
            return self._store.save(chunks)
        sha = hashlib.sha256(chunks).hexdigest()
        self.futures.append(self._pool.submit(self._store.save, chunks))
        return content_path(sha), len(chunks), sha

    def __getattr__(self, name: str):
        return getattr(self._store, name)
