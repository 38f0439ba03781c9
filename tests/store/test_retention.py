"""Retention enforced (``app.jobs.retention``): the data of what is older than a workspace's
data_retention goes, rows and files, each purged run staying as a stub with
``data_deleted_at``, and nothing younger is touched (SQLite and PostgreSQL).

Two workspaces (1 day and 14 days) hold pipelines, results and predictions of several
ages whose artifact files are shared: between an expiring and a surviving row, and
between two expiring rows.
"""

from __future__ import annotations

import hashlib
import threading
from collections import Counter
from dataclasses import dataclass, field
from datetime import timedelta

import pytest
import sqlalchemy as sa

from app import artifact_storage
from app.jobs import retention
from app.platform.db import get_engine
from app.platform.ids import new_id
from app.platform.timeutil import utcnow
from app.store import retention as retention_store
from app.store import schema
from tests.support import factories

# FOR UPDATE SKIP LOCKED, advisory locks and concurrent purges.
pytestmark = pytest.mark.dialect

AGES_HOURS = (2, 23, 25, 5 * 24, 13 * 24, 15 * 24)
SHARED = b"same bytes in an expiring and a surviving row"
OLD_ONLY = b"same bytes in two expiring rows"


@dataclass
class World:
    """What a test built: ids by age and workspace, and the retention of each workspace."""

    now: object
    retention: dict = field(default_factory=dict)  # workspace id -> hours
    pipelines: dict = field(default_factory=dict)  # pipeline id -> (workspace, age hours)
    results: dict = field(default_factory=dict)  # result id -> (workspace, age hours)
    predictions: dict = field(default_factory=dict)

    def alive(self, table: dict) -> set[str]:
        """Ids that must survive a purge as of ``now``."""
        return {i for i, (ws, age) in table.items() if age < self.retention[ws]}


def path_of(content: bytes) -> str:
    """Where the (content-addressed) store keeps ``content``."""
    return artifact_storage.content_path(hashlib.sha256(content).hexdigest())


def set_retention(app, workspace_id: str, unit: str, value: int) -> None:
    with get_engine(app).begin() as conn:
        conn.execute(schema.workspaces.update().where(schema.workspaces.c.id == workspace_id)
                     .values(data_retention_unit=unit, data_retention_value=value))


def add_artifact(conn, store, content: bytes, *, result_id=None, prediction_id=None) -> str:
    """Store ``content`` in ``store`` and add an artifact row naming it."""
    path, size, sha = store.save(content)
    conn.execute(schema.artifacts.insert().values(
        id=new_id("art"), result_id=result_id, prediction_id=prediction_id, role="archive",
        filename="a.zip", content_type="application/zip", size=size, sha256=sha,
        storage_path=path, created_at=utcnow()))
    return path


def aged_pipeline(conn, store, world: World, workspace_id: str, age: float, n: int = 3,
                  contents: tuple[bytes, ...] = ()) -> str:
    """Insert a pipeline made ``age`` hours ago with ``n`` results, each with a file."""
    made = world.now - timedelta(hours=age)
    pipeline_id, result_ids = factories.insert_pipeline(conn, workspace_id, n_results=n)
    conn.execute(schema.pipelines.update().where(schema.pipelines.c.id == pipeline_id)
                 .values(created_at=made))
    conn.execute(schema.results.update().where(schema.results.c.pipeline_id == pipeline_id)
                 .values(created_at=made + timedelta(minutes=1)))
    world.pipelines[pipeline_id] = (workspace_id, age)
    for i, result_id in enumerate(result_ids):
        world.results[result_id] = (workspace_id, age)
        content = contents[i] if i < len(contents) else f"{result_id} own".encode()
        add_artifact(conn, store, content, result_id=result_id)
    return pipeline_id


def aged_prediction(conn, store, world: World, workspace_id: str, age: float,
                    content: bytes | None = None) -> str:
    prediction_id = factories.insert_prediction(conn, workspace_id)
    conn.execute(schema.predictions.update().where(schema.predictions.c.id == prediction_id)
                 .values(created_at=world.now - timedelta(hours=age)))
    world.predictions[prediction_id] = (workspace_id, age)
    add_artifact(conn, store, content or f"{prediction_id} own".encode(),
                 prediction_id=prediction_id)
    return prediction_id


def build_world(app, org, store) -> World:
    """Both workspaces, every age, shared files (see the module docstring)."""
    short = org.workspace_id
    long = factories.add_workspace(app, org)
    set_retention(app, short, "days", 1)
    set_retention(app, long, "hours", 336)
    world = World(now=utcnow(), retention={short: 24, long: 336})
    with get_engine(app).begin() as conn:
        for workspace_id in (short, long):
            for age in AGES_HOURS:
                aged_pipeline(conn, store, world, workspace_id, age)
            for age in (2, 25, 15 * 24):
                aged_prediction(conn, store, world, workspace_id, age)
        # An expiring result of the 1-day workspace and a young one of the 14-day one share
        # a file; two expiring rows (a result, a prediction) share another.
        aged_pipeline(conn, store, world, short, 48, contents=(SHARED, OLD_ONLY))
        aged_pipeline(conn, store, world, long, 5, contents=(SHARED,))
        aged_prediction(conn, store, world, short, 30, OLD_ONLY)
    return world


def ids(app, table) -> set[str]:
    """Ids of ``table``'s rows that still hold data (pipelines, predictions: not stubs)."""
    query = sa.select(table.c.id)
    if "data_deleted_at" in table.c:
        query = query.where(table.c.data_deleted_at.is_(None))
    with get_engine(app).connect() as conn:
        return set(conn.execute(query).scalars())


def stubs(app, table) -> dict[str, tuple]:
    """Stub rows of ``table`` (pipelines, predictions): id -> (data_deleted_at, input)."""
    data = table.c.input if "input" in table.c else table.c.inputs
    with get_engine(app).connect() as conn:
        return {row[0]: tuple(row[1:]) for row in conn.execute(
            sa.select(table.c.id, table.c.data_deleted_at, data)
            .where(table.c.data_deleted_at.is_not(None)))}


def stored_paths(app) -> set[str]:
    with get_engine(app).connect() as conn:
        return set(conn.execute(sa.select(schema.artifacts.c.storage_path)).scalars())


def expected_counts(world: World, paths_before: set[str], paths_after: set[str]) -> dict:
    gone = {name: len(table) - len(world.alive(table)) for name, table in
            (("pipelines", world.pipelines), ("results", world.results),
             ("predictions", world.predictions))}
    return {**gone, "artifacts": gone["results"] + gone["predictions"],
            "files": len(paths_before - paths_after)}


def test_purge_deletes_exactly_what_is_older_than_each_retention(app, org):
    store = artifact_storage.open_store(app.config)
    world = build_world(app, org, store)
    engine = get_engine(app)
    paths_before = stored_paths(app)

    dry = retention.purge_api(engine, app.config, world.now, dry_run=True)
    assert ids(app, schema.results) == set(world.results)  # a dry run changes nothing
    assert all(store.exists(path) for path in paths_before)

    done = retention.purge_api(engine, app.config, world.now, batch=4)
    stubbed_before = stubs(app, schema.pipelines)
    assert ids(app, schema.pipelines) == world.alive(world.pipelines)
    # Each purged run stays as a stub: deleted when the purge ran, its input gone.
    for table, made in ((schema.pipelines, world.pipelines),
                        (schema.predictions, world.predictions)):
        stubbed = stubs(app, table)
        assert set(stubbed) == set(made) - world.alive(made)
        assert all(when >= world.now and given is None for when, given in stubbed.values())
    assert ids(app, schema.results) == world.alive(world.results)
    assert ids(app, schema.predictions) == world.alive(world.predictions)
    paths_after = stored_paths(app)
    # Files: every one still named is there; every one no longer named is gone.
    assert all(store.exists(path) for path in paths_after)
    assert not any(store.exists(path) for path in paths_before - paths_after)
    assert store.exists(path_of(SHARED)) and not store.exists(path_of(OLD_ONLY))
    assert len(paths_before - paths_after) > 10
    expected = expected_counts(world, paths_before, paths_after)
    assert dict(done.totals) == expected == dict(dry.totals)
    assert dry.by_workspace == done.by_workspace and done.batches >= 8

    again = retention.purge_api(engine, app.config, world.now)
    assert sum(again.totals.values()) == 0 and again.batches == 0
    assert stubs(app, schema.pipelines) == stubbed_before  # a repeat leaves stubs alone


def test_a_young_pipeline_loses_only_its_old_results_and_counts_them(app, org):
    store = artifact_storage.open_store(app.config)
    world = World(now=utcnow(), retention={org.workspace_id: 168})
    with get_engine(app).begin() as conn:
        pipeline_id = aged_pipeline(conn, store, world, org.workspace_id, 1, n=5)
        old = sorted(r for r in world.results)[:2]
        conn.execute(schema.results.update().where(schema.results.c.id.in_(old))
                     .values(created_at=world.now - timedelta(days=8)))
    done = retention.purge_api(get_engine(app), app.config, world.now)
    assert (done.totals["results"], done.totals["pipelines"]) == (2, 0)
    assert ids(app, schema.results) == set(world.results) - set(old)
    with get_engine(app).connect() as conn:
        count = conn.execute(sa.select(schema.pipelines.c.result_count)
                             .where(schema.pipelines.c.id == pipeline_id)).scalar_one()
    assert count == 3


@pytest.mark.slow
def test_two_purges_at_once_split_the_work_and_count_each_row_once(app, org):
    store = artifact_storage.open_store(app.config)
    set_retention(app, org.workspace_id, "days", 1)
    world = World(now=utcnow(), retention={org.workspace_id: 24})
    with get_engine(app).begin() as conn:
        for age in (30, 40, 50, 60):
            aged_pipeline(conn, store, world, org.workspace_id, age, n=150,
                          contents=(SHARED,) * 150)
        for age in range(30, 90):
            aged_prediction(conn, store, world, org.workspace_id, age, OLD_ONLY)
    tallies, errors = [], []

    def purge() -> None:
        try:
            tallies.append(retention.purge_api(get_engine(app), app.config, world.now,
                                               batch=40))
        except Exception as error:  # reported by the assertion below
            errors.append(error)

    threads = [threading.Thread(target=purge) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert errors == [] and len(tallies) == 2
    total = sum((t.totals for t in tallies), start=Counter())
    assert dict(total) == {"pipelines": 4, "results": 600, "predictions": 60,
                           "artifacts": 660, "files": 2}
    assert ids(app, schema.pipelines) == set() and stored_paths(app) == set()
    assert len(stubs(app, schema.pipelines)) == 4 and len(stubs(app, schema.predictions)) == 60
    assert not store.exists(path_of(SHARED)) and not store.exists(path_of(OLD_ONLY))


@pytest.mark.slow
def test_a_purge_never_deletes_a_file_a_writer_saved_before_its_rows_commit(app, org):
    """Seeding saves shared files first and commits their rows later (test mode does so
    inside a request): a purge meanwhile must wait, then find the file named again."""
    store = artifact_storage.open_store(app.config)
    set_retention(app, org.workspace_id, "days", 1)
    world = World(now=utcnow(), retention={org.workspace_id: 24})
    with get_engine(app).begin() as conn:
        aged_pipeline(conn, store, world, org.workspace_id, 48, n=1, contents=(OLD_ONLY,))
    tallies = []
    with get_engine(app).connect() as writer:
        with writer.begin():
            retention_store.hold_off_file_sweep(writer)
            young = aged_pipeline(writer, store, world, org.workspace_id, 1, n=1,
                                  contents=(OLD_ONLY,))
            purge = threading.Thread(target=lambda: tallies.append(
                retention.purge_api(get_engine(app), app.config, world.now)))
            purge.start()
            purge.join(timeout=1.0)
            assert purge.is_alive()  # the purge waits for the writer's rows
        purge.join(timeout=30)
    assert not purge.is_alive() and tallies[0].totals["results"] == 1
    assert ids(app, schema.pipelines) == {young}
    assert store.exists(path_of(OLD_ONLY))  # named by the writer's row: kept
