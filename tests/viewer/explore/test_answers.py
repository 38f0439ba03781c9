"""The exploration engine's answer cache (app.viewer.explore.answers)."""

from __future__ import annotations

import numpy as np

from app.viewer.explore import answers


def test_the_views_answers_of_a_worker_stay_within_their_byte_bound():
    """Each view of a million results keeps its rows in order (8 MB): the answers of many
    such views are bounded in bytes, not only in number."""
    answers.clear_caches()
    try:
        for view in range(40):
            kept = answers.remember(("run", view), lambda: np.arange(1_000_000))
            assert kept.shape == (1_000_000,)
        assert answers._answers.weight <= answers.ANSWER_BYTES
        assert len(answers._answers) == answers.ANSWER_BYTES // 8_000_000
    finally:
        answers.clear_caches()
