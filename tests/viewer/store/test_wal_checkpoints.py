"""A SQLite writer whose checkpoints run beside it keeps a log of a few commits, and
every commit is there for another connection; other databases have none."""

from __future__ import annotations

import os

import sqlalchemy as sa

from app.platform.db import make_engine
from app.viewer.store import wal_checkpoints

ROW = "x" * 2_000


def _write(engine, checkpoints, commits: int) -> list[int]:
    """Commit ``commits`` times 200 rows of 2 kB; return the log's size after each."""
    sizes = []
    for commit in range(commits):
        if checkpoints is not None:
            checkpoints.writing()
        with engine.begin() as conn:
            conn.exec_driver_sql("INSERT INTO t (n, v) VALUES (?, ?)",
                                 [(commit * 200 + i, ROW) for i in range(200)])
        if checkpoints is not None:
            checkpoints.committed()
        sizes.append(os.path.getsize(engine.url.database + "-wal"))
    return sizes


def _engine(path):
    engine = make_engine(f"sqlite:///{path}")
    with engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE t (n INTEGER PRIMARY KEY, v TEXT)")
    engine.dispose()
    return make_engine(f"sqlite:///{path}")


def test_the_log_stays_a_few_commits_and_every_commit_is_read(tmp_path):
    engine = _engine(tmp_path / "db.sqlite")
    checkpoints = wal_checkpoints.for_engine(engine)
    sizes = _write(engine, checkpoints, 40)  # 16 MB: 4 times SQLite's own checkpoint size
    checkpoints.close()
    # Copied back after every third commit: the log never holds more than three.
    assert max(sizes) < 3.5 * sizes[0] < 4_000_000
    reader = make_engine(f"sqlite:///{tmp_path / 'db.sqlite'}")
    with reader.connect() as conn:
        assert conn.execute(sa.text("SELECT count(*), max(n) FROM t")).one() == (8000, 7999)
    reader.dispose()
    engine.dispose()


def test_without_the_thread_the_log_would_grow(tmp_path):
    """The connections no longer checkpoint in their commits: the thread is what does."""
    engine = _engine(tmp_path / "db.sqlite")
    checkpoints = wal_checkpoints.for_engine(engine)
    checkpoints.close()
    sizes = _write(engine, None, 20)
    assert sizes[-1] > 10 * sizes[0]
    engine.dispose()


def test_postgresql_has_no_checkpoints():
    engine = sa.create_engine("postgresql+psycopg://nobody@127.0.0.1:1/none")
    assert wal_checkpoints.for_engine(engine) is None


def test_a_writer_whose_checkpoints_cannot_connect_never_waits(tmp_path):
    """No connection for the thread (here: a folder that is not there): commits go on,
    each waits for nothing."""
    engine = make_engine(f"sqlite:///{tmp_path / 'missing' / 'db.sqlite'}")
    checkpoints = wal_checkpoints.for_engine(engine)
    for _ in range(3):
        checkpoints.writing()
        checkpoints.committed()
    checkpoints.close()
    engine.dispose()
