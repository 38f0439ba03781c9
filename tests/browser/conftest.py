"""Shared fixtures of the browser tests."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import ROOT

DOCS = ROOT / "docs"
# Debian's Chromium; Playwright cannot download its own browser on this network.
CHROMIUM = "/usr/bin/chromium"


@pytest.fixture(scope="session")
def shots_dir(tmp_path_factory) -> Path:
    """Where screenshots go: docs/ when UPDATE_SCREENSHOTS=1, else a temporary folder.

    A normal test run (CI included) must leave the work tree as it found it.
    """
    if os.environ.get("UPDATE_SCREENSHOTS") == "1":
        DOCS.mkdir(exist_ok=True)
        return DOCS
    return tmp_path_factory.mktemp("screenshots")


@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium, headless, driven by Playwright."""
    playwright_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.fail("Debian's Chromium is missing: apt-get install -y chromium (make test does)")
    with playwright_api.sync_playwright() as p:
        instance = p.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--headless", "--disable-gpu",
                  "--disable-background-networking"],
        )
        yield instance
        instance.close()
