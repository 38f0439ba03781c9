"""Compressed copies (gzip, brotli) of the text files under ``static/``, made once per version.

A variant is content-addressed: ``<cache>/<sha256 of the original>.<gz|br>``, in
``FLASK_STATIC_CACHE_DIR`` (default ``<instance>/static-cache``). A new version of a file
gets a new name, so a variant is never stale, and every worker and every server that
shares the folder may write one: each writes a temporary file beside it and renames it
into place (atomic on POSIX), so a reader sees the whole file or none.

When is what made (brotli at quality 11 takes many times as long as gzip -9: seconds
for the Mol* bundle):

- ``flask --app app compress-static`` makes both variants of every text asset; ``make
  run`` calls it, and so should a deployment (after installing, before starting gunicorn).
- Without it, the first request for a missing gzip variant makes it on the spot (cheap),
  and a missing brotli variant is made by one background thread of one process (a lock
  file says who) while requests are answered with gzip until it exists.
"""

from __future__ import annotations

import gzip
import hashlib
import logging
import os
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

import brotli
import click
from flask import Flask, current_app
from flask.cli import with_appcontext

from app.platform.settings import instance_folder

log = logging.getLogger(__name__)

# Text types worth compressing; images other than SVG and fonts are compressed already.
TEXT_SUFFIXES = frozenset({".js", ".mjs", ".css", ".svg", ".json", ".map", ".html", ".txt"})
# Below this a compressed copy saves less than the headers it costs.
MIN_SIZE = 512
# A lock file older than this belongs to a process that died while compressing.
STALE_LOCK_SECONDS = 300

_COMPRESSORS: dict[str, Callable[[bytes], bytes]] = {
    "br": lambda data: brotli.compress(data, quality=11, mode=brotli.MODE_TEXT),
    # mtime=0: the same input gives the same bytes on every server.
    "gz": lambda data: gzip.compress(data, compresslevel=9, mtime=0),
}
_CHUNK = 1 << 20

_digests: dict[Path, tuple[int, int, str]] = {}
_digests_lock = threading.Lock()


def file_digest(path: Path) -> str:
    """Return the sha256 (hex) of ``path``, cached while its mtime and size stay the same."""
    stat = path.stat()
    key = (stat.st_mtime_ns, stat.st_size)
    known = _digests.get(path)
    if known is not None and known[:2] == key:
        return known[2]
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(_CHUNK), b""):
            digest.update(chunk)
    with _digests_lock:
        _digests[path] = (*key, digest.hexdigest())
    return digest.hexdigest()


_building: set[Path] = set()
_building_lock = threading.Lock()


def cache_dir(app: Flask) -> Path:
    """Return the folder of compressed variants (``FLASK_STATIC_CACHE_DIR``)."""
    return instance_folder(app, "STATIC_CACHE_DIR")


def compressible(path: Path, size: int) -> bool:
    """Whether a file of this name and size gets compressed variants."""
    return path.suffix.lower() in TEXT_SUFFIXES and size >= MIN_SIZE


def variant_path(folder: Path, digest: str, suffix: str) -> Path:
    """Return where the ``suffix`` (``gz`` or ``br``) variant of content ``digest`` lives."""
    return folder / f"{digest}.{suffix}"


def make_variant(source: Path, target: Path, suffix: str) -> Path:
    """Compress ``source`` into ``target`` atomically (temporary file, then rename)."""
    data = _COMPRESSORS[suffix](source.read_bytes())
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return target


def gzip_variant(folder: Path, source: Path, digest: str) -> Path:
    """Return the gzip variant of ``source``, making it now if it is missing."""
    target = variant_path(folder, digest, "gz")
    return target if target.exists() else make_variant(source, target, "gz")


def brotli_variant(folder: Path, source: Path, digest: str) -> Path | None:
    """Return the brotli variant if it exists; else start making it and return None."""
    target = variant_path(folder, digest, "br")
    if target.exists():
        return target
    _start_background(source, target)
    return None


def _start_background(source: Path, target: Path) -> None:
    """Make ``target`` in a thread, once per process and (lock file) once across them."""
    with _building_lock:
        if target in _building:
            return
        _building.add(target)
    thread = threading.Thread(target=_build_locked, args=(source, target),
                              name="compress-static", daemon=True)
    thread.start()


def _build_locked(source: Path, target: Path) -> None:
    lock = target.with_name(target.name + ".lock")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        if lock.exists() and time.time() - lock.stat().st_mtime > STALE_LOCK_SECONDS:
            lock.unlink(missing_ok=True)
        try:
            os.close(os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            return  # another process is making it
        try:
            make_variant(source, target, "br")
        finally:
            lock.unlink(missing_ok=True)
    except OSError:
        # A read-only or full cache folder: gzip keeps being served, which is fine.
        log.warning("could not write the brotli variant of a static file", exc_info=True)
    finally:
        with _building_lock:
            _building.discard(target)


def compress_all(app: Flask, echo: Callable[[str], None] = lambda _line: None) -> int:
    """Make every missing variant of every text asset of ``app``; return how many were made."""
    folder = cache_dir(app)
    root = Path(app.static_folder or "")
    made = 0
    for source in sorted(p for p in root.rglob("*") if p.is_file()):
        if not compressible(source, source.stat().st_size):
            continue
        digest = file_digest(source)
        for suffix in ("gz", "br"):
            target = variant_path(folder, digest, suffix)
            if target.exists():
                continue
            started = time.perf_counter()
            make_variant(source, target, suffix)
            made += 1
            echo(f"{source.relative_to(root)} -> {suffix}: {source.stat().st_size} -> "
                 f"{target.stat().st_size} bytes in {time.perf_counter() - started:.2f} s")
    return made


@click.command("compress-static")
@with_appcontext
def compress_static_command() -> None:
    """Make the gzip and brotli copies of the static text files (safe to repeat)."""
    made = compress_all(current_app, click.echo)
    click.echo(f"static assets: {made} compressed variant(s) made in {cache_dir(current_app)}.")
