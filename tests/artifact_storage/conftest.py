"""Fixtures of the S3 tests: moto's server (``tests.support.moto_server``) and an app storing its
artifacts there, in-process."""

from __future__ import annotations

import pytest

from app import artifact_storage
from tests.support.apps import make_test_app
from tests.support.databases import dispose_engines
from tests.support.moto_server import moto_s3, s3_env  # noqa: F401 - fixtures used by the tests


@pytest.fixture
def s3_app(request, db_url, tmp_path):
    """The composed app on a fresh database, its artifacts under a fresh S3 prefix."""
    env = request.getfixturevalue("s3_env")
    application = make_test_app(db_url, tmp_path)
    assert application.config["ARTIFACT_STORE"] == env["FLASK_ARTIFACT_STORE"]
    yield application
    dispose_engines(application)


@pytest.fixture
def s3_store(s3_app):
    """The app's artifact store (S3)."""
    store = artifact_storage.open_store(s3_app.config)
    assert store.kind == "s3"
    return store
