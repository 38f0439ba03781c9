"""Fixtures of the viewer tests: a public link over one pipeline of each of the six kinds
(with real artifact files) and two predictions, in the app's test database.

The helpers behind these fixtures live in ``tests/support/links.py``.
"""

from __future__ import annotations

import pytest

from tests.support.links import Shared, seed_link


@pytest.fixture
def shared(app, org) -> Shared:
    """A public link over all six kinds (4 results each) and two predictions."""
    return seed_link(app, org)
