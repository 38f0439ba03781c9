"""Secrets generated into the instance folder: one value, complete, private."""

from __future__ import annotations

import multiprocessing
import stat

from app.platform.instance_secrets import ensure_instance_secret


def _read_secret(folder: str, queue) -> None:
    queue.put(ensure_instance_secret(folder, "secret_key"))


def test_workers_starting_at_once_agree_on_one_complete_secret(tmp_path):
    # Gunicorn workers create the app in parallel processes: none may read a half-written
    # (empty) secret, and all must end with the same one. Forked, as gunicorn's workers
    # are: they start within milliseconds of each other (spawned ones took two seconds
    # each to import the app, one after another).
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    workers = [context.Process(target=_read_secret, args=(str(tmp_path), queue))
               for _ in range(8)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=60)
    secrets = [queue.get(timeout=5) for _ in workers]
    assert len(set(secrets)) == 1
    assert len(secrets[0]) >= 43  # 32 random bytes, URL-safe base64
    assert [p.name for p in tmp_path.iterdir()] == ["secret_key"]  # no temporary files left
    assert stat.S_IMODE((tmp_path / "secret_key").stat().st_mode) == 0o600
