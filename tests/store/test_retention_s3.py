"""Retention on S3: the purge deletes from the bucket exactly the files no row names any
more (a real S3 server: moto's standalone server process on loopback)."""

from __future__ import annotations

import pytest

from app import artifact_storage
from app.jobs import retention
from app.platform.db import get_engine
from app.store import schema
from tests.store.test_retention import OLD_ONLY, SHARED, build_world, ids, path_of, stored_paths
from tests.support import moto_server

# The purge's row locks and file sweep lock, files on S3.
pytestmark = pytest.mark.dialect

# The S3 server fixtures (a module attribute that is a fixture is one here too).
moto_s3, s3_env = moto_server.moto_s3, moto_server.s3_env


def test_purge_deletes_expired_files_from_s3_and_keeps_shared_ones(app, org, s3_env,
                                                                   moto_s3):
    app.config["ARTIFACT_STORE"] = s3_env["FLASK_ARTIFACT_STORE"]
    app.config["S3_ENDPOINT_URL"] = s3_env["FLASK_S3_ENDPOINT_URL"]
    store = artifact_storage.open_store(app.config)
    assert store.kind == "s3"
    prefix = s3_env["FLASK_ARTIFACT_STORE"].split("/", 3)[3]
    world = build_world(app, org, store)
    before = stored_paths(app)
    assert len(moto_s3.keys(prefix)) == len(before)

    done = retention.purge_api(get_engine(app), app.config, world.now)
    after = stored_paths(app)
    assert ids(app, schema.results) == world.alive(world.results)
    assert done.totals["files"] == len(before - after) > 10
    # The bucket holds exactly the files rows still name: the shared one, not the other.
    assert sorted(moto_s3.keys(prefix)) == sorted(f"{prefix}/{path}" for path in after)
    assert store.exists(path_of(SHARED)) and not store.exists(path_of(OLD_ONLY))
