"""A structure-and-binding prediction's samples side by side: every cell is the API
record's value, the API's best sample is marked, and each metric's best sample by that
metric's direction (ipTM higher, PDE lower); binding confidence and the optimisation score
say what each is for. Over the in-process API with the demo's prediction."""

from __future__ import annotations

import re

from app import domain
from app.viewer.core.formatting import format_number
from app.viewer.pages import glossary, sample_metrics
from app.viewer.pages.predictions import Sample
from tests.viewer.pages.test_prediction_pages import body_of, pages  # noqa: F401 (fixture)


def _record(client, pages) -> dict:  # noqa: F811
    """Return the prediction's record as the API gives it through the link."""
    link = pages["base"].rsplit("/", 1)[1]
    share = client.get(f"/compute/v1/share/{link}").get_json()
    wanted = pages["structure_and_binding"].rsplit("/", 1)[1]
    return next(p for p in share["predictions"] if p["id"] == wanted)


def _table(body: str) -> tuple[list[str], dict[int, dict[str, str]], dict[int, set[str]]]:
    """Return the samples table's metric keys, cell texts and best-of marks by sample."""
    table = body[body.index('<table class="samples">'):]
    table = table[:table.index("</table>")]
    keys = re.findall(r'<th scope="col" class="num col-([a-z_]+)">', table)
    cells, marks = {}, {}
    for number, row in re.findall(r'<tr data-sample="(\d+)"[^>]*>(.*?)</tr>', table, re.S):
        tds = re.findall(r"<td([^>]*)>(.*?)</td>", row, re.S)
        cells[int(number)] = {k: re.sub(r"<[^>]+>", "", text).replace(" ◆", "").replace(
            " (best of the samples)", "").strip() for k, (_attrs, text) in zip(keys, tds)}
        marks[int(number)] = {k for k, (attrs, _text) in zip(keys, tds)
                              if f'data-best-of="{k}"' in attrs}
    return keys, cells, marks


def test_each_cell_is_the_api_records_value_and_the_best_is_marked(client, pages):  # noqa: F811
    record = _record(client, pages)
    listed = [s["metrics"] for s in record["output"]["all_sample_results"]]
    body = body_of(client.get(pages["structure_and_binding"]))
    keys, cells, marks = _table(body)
    assert {"iptm", "ligand_iptm", "protein_iptm", "complex_plddt", "complex_iplddt",
            "complex_pde", "complex_ipde"} <= set(keys)
    assert sorted(cells) == list(range(1, len(listed) + 1))
    for number, metrics in enumerate(listed, 1):
        for key in keys:
            expected = format_number(metrics[key], domain.metric(key).decimals)
            assert cells[number][key] == expected, (number, key)
    # The API's best sample: its row first, badged.
    best = listed.index(record["output"]["best_sample"]["metrics"]) + 1
    first_row = re.search(r'<tr data-sample="(\d+)" class="best">', body)
    assert first_row and int(first_row.group(1)) == best
    # Per metric: the sample whose value is best in that metric's own direction (in this
    # complex of one protein chain: protein-protein ipTM scores no interface, none).
    for key in keys:
        direction = domain.sample_metric(key, 1).direction
        values = {n: m[key] for n, m in enumerate(listed, 1)}
        top = (max if direction == "higher" else min)(values.values())
        want = {n for n, v in values.items() if v == top} if direction else set()
        assert {n for n, found in marks.items() if key in found} == want, key


def test_binding_metrics_say_what_each_is_for(client, pages):  # noqa: F811
    body = body_of(client.get(pages["structure_and_binding"]))
    for key in ("binding_confidence", "optimization_score"):
        item = re.search(rf'<li data-purpose="{key}">(.*?)</li>', body, re.S).group(1)
        assert glossary.PURPOSE[key] in item and f'href="/glossary#{key}"' in item
    assert "hit discovery" in glossary.PURPOSE["binding_confidence"]
    assert "lead optimisation" in glossary.PURPOSE["optimization_score"]


def test_best_by_metric_uses_the_direction_and_keeps_ties():
    found = [Sample(1, {"iptm": 0.7, "complex_pde": 1.2, "helix_fraction": 0.5}, True),
             Sample(2, {"iptm": 0.9, "complex_pde": 0.8, "helix_fraction": 0.6}, False),
             Sample(3, {"iptm": 0.9, "complex_pde": float("nan"), "helix_fraction": 0.1},
                    False)]
    best = sample_metrics.best_by_metric(found, ["iptm", "complex_pde", "helix_fraction",
                                                 "absent"])
    assert best == {"iptm": {2, 3}, "complex_pde": {2}}  # no direction, no values: unjudged
    assert sample_metrics.best_by_metric(found[:1], ["iptm"]) == {}


def test_a_metric_no_float_holds_is_no_value():
    """A sample metric of 10^400 (legal JSON) is unjudged, not an OverflowError."""
    found = [Sample(1, {"iptm": 10**400}, True), Sample(2, {"iptm": 0.5}, False),
             Sample(3, {"iptm": True}, False)]
    assert sample_metrics.best_by_metric(found, ["iptm"]) == {}
