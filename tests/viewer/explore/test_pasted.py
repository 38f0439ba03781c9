"""A pasted list read against a run: ids, labels and tails name results; the rest is said."""

from __future__ import annotations

import numpy as np

from app.viewer.explore.labels import NO_INDEX, RunLabels
from app.viewer.explore.pasted import NOTHING, resolve

# A run of six: ranks by the primary metric, tails of four characters tell them apart.
RUN = {"res_01AAAAWGK2": 3, "res_01AAAAQPZ9": 1, "res_01AAAABSCA": 2,
       "res_01AAAAEAY0": 5, "res_01AAAA0XAP": 4, "res_01AAAAXEAP": 6}


def _labels() -> RunLabels:
    ids = sorted(RUN)
    return RunLabels(np.array([i.encode() for i in ids], dtype="S"),
                     np.array([RUN[i] for i in ids], dtype=np.int64))


def _says(pasted) -> dict[str, str]:
    return {note.entry: note.says for note in pasted.notes}


def test_ids_labels_and_tails_name_their_results_in_the_order_pasted():
    pasted = resolve(("WGK2", "#1 QPZ9", "res_01AAAABSCA", "eay0", "WGK2"), _labels())
    assert pasted.ids == ("res_01AAAAWGK2", "res_01AAAAQPZ9", "res_01AAAABSCA",
                          "res_01AAAAEAY0")
    assert pasted.notes == ()
    assert pasted.query_ids == pasted.ids


def test_what_names_nothing_is_named_and_still_narrows():
    pasted = resolve(("ZZZZ", "bad/entry", "#2"), _labels())
    assert pasted.ids == ()
    says = _says(pasted)
    assert says["ZZZZ"] == NOTHING
    assert "neither an id nor a label" in says["bad/entry"]
    assert "rank alone" in says["#2"]
    # A list naming nothing shows nothing, not the whole run.
    assert pasted.query_ids == ("ZZZZ", "bad/entry", "#2")


def test_a_rank_that_moved_keeps_the_result_and_says_its_rank_now():
    pasted = resolve(("#3 QPZ9",), _labels())
    assert pasted.ids == ("res_01AAAAQPZ9",)
    assert _says(pasted) == {"#3 QPZ9": "is #1 QPZ9 now (the run's ranking moved); shown"}
    assert pasted.query_ids == ("res_01AAAAQPZ9",)


def test_an_end_shared_by_several_results_is_ambiguous_not_guessed():
    pasted = resolve(("AAAA0XAP", "AP"), _labels())
    assert pasted.ids == ("res_01AAAA0XAP",)  # a longer end of one id is fine
    assert _says(pasted) == {"AP": "is the end of 2 results' ids: paste the label as "
                                   "shown (#3 WGK2) or the whole id"}


def test_without_an_index_ids_go_to_the_api_and_labels_wait_for_it():
    pasted = resolve(("res_01AAAAWGK2", "#3 WGK2"), NO_INDEX)
    assert pasted.ids == ("res_01AAAAWGK2",)
    assert "read once this run's results are indexed" in _says(pasted)["#3 WGK2"]
    answered = pasted.missing(set())
    assert answered.ids == () and _says(answered)["res_01AAAAWGK2"] == NOTHING
