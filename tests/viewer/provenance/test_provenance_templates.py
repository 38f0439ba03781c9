"""The provenance macros render what was run, escaped, with copy buttons."""

from __future__ import annotations

from pathlib import Path

import pytest
from flask import Flask, render_template_string

from app.viewer import provenance
from app.viewer.core import formatting
from tests.support import sdk_records as records

TEMPLATES = Path(__file__).resolve().parents[3] / "templates"


@pytest.fixture
def render():
    """Render a provenance macro of ``templates/share/_provenance.html``."""
    app = Flask(__name__, template_folder=str(TEMPLATES))
    formatting.init_app(app)
    provenance.init_app(app)

    def run(macro: str, record, full: bool = False) -> str:
        with app.test_request_context():
            return render_template_string(
                '{% import "share/_provenance.html" as p %}{{ p[macro](record, full) }}',
                macro=macro, record=record, full=full)

    return run


def test_compact_run_card_says_target_binder_progress_and_engine(render):
    html = render("run", records.protein_design())
    assert "Generated 260 of 300 requested" in html
    assert "Nanobody" in html and "14\u201319 residues" in html
    assert f'data-copy="{records.IL6}"' in html
    assert "chain B" in html and "boltzprot 1.0" in html
    assert "2 h 5 min" in html


def test_full_run_section_lists_entities_with_whole_sequences(render):
    html = render("run", records.protein_design(), True)
    assert "What was run" in html
    assert "<h3>Target</h3>" in html and "<h3>Binder</h3>" in html
    assert records.IL6[:10] in html  # grouped by ten for reading
    assert 'class="copy-btn" data-copy="' + records.IL6 + '"' in html
    assert "Submitted" in html and "Completed" in html


def test_hostile_values_are_escaped(render):
    failed = render("run", records.small_molecule_design(), True)
    assert "GPU &lt;out&gt; of memory" in failed and "<out>" not in failed
    assert "engine_error" in failed
    prediction = render("prediction", records.structure_and_binding())
    assert "CCO&lt;script&gt;" in prediction and "<script>" not in prediction
    assert "Ligand-protein binding, binder chain B" in prediction
    assert "Samples" in prediction


def test_library_and_explore_cards(render):
    html = render("run", records.small_molecule_explore())
    assert "Scoring" in html and "library.csv, fetched from a web address" in html
    assert "files.example" not in html
    assert "X-Signature" not in html
    screen = render("run", records.protein_library_screen(), True)
    assert "binders.fasta" in screen and "Failed" in screen


def test_adme_card_lists_a_few_molecules(render):
    many = records.adme()
    many["input"]["molecules"] = [{"smiles": f"C{'C' * i}O", "id": f"m{i}"} for i in range(6)]
    html = render("prediction", many)
    assert "m0" in html and "m2" in html and "m3" not in html and "3 more" in html


@pytest.mark.parametrize("record", [None, {}, {"input": "x", "progress": 5}])
def test_unknown_records_render_nothing_harmful(render, record):
    assert "Traceback" not in render("run", record)
    assert "does not say what this run was given" in render("run", record, True)
    render("prediction", record, True)


def test_a_card_lists_a_few_entities_then_how_many_more(render):
    record = records.structure_and_binding()
    record["input"]["entities"] = [
        {"type": "protein", "chain_ids": [chr(65 + i)], "value": "MK"} for i in range(7)]
    html = render("prediction", record)
    assert html.count('class="prov-entity ') == 4 and "and 3 more" in html
    assert render("prediction", record, True).count('class="prov-entity ') == 7
