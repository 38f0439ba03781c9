"""Shared fixtures of the browser tests."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import ROOT

DOCS = ROOT / "docs"


@pytest.fixture(scope="session")
def shots_dir(tmp_path_factory) -> Path:
    """Where screenshots go: docs/ when UPDATE_SCREENSHOTS=1, else a temporary folder.

    A normal test run (CI included) must leave the work tree as it found it.
    """
    if os.environ.get("UPDATE_SCREENSHOTS") == "1":
        DOCS.mkdir(exist_ok=True)
        return DOCS
    return tmp_path_factory.mktemp("screenshots")
