"""Every result of every demo pipeline reads the same on every page that shows it: the
results table (all its pages), the result page, the 3D page, the compare page (a few
pairs) and the CSV, JSON, FASTA and SDF exports.

The table and the exports are read whole. The result and 3D pages are read for every result
of a pipeline of up to ``PAGES_PER_PIPELINE`` results; of a larger one (the demo's design
campaign: 260), for a sample (``_sample``) that holds the first and last ranks and one
result of each distinct combination of filled CSV columns, warnings and liability kinds:
each page renders every result by the same code, so what can differ between results is
which fields, warnings and liabilities they carry.

Compared: labels (``#<rank> <tail>``) and ranks, metrics (each page's text against the
exports' full values rounded to the decimals the page shows), computed properties
(ProtParam, RDKit), liability counts and their provisional mark, alert verdicts (RDKit's
catalog and the API's ``pains_substructure``), identifiers, sequences, chains and their
roles, ADME values and warnings.

One app over a copy of the demo, read twice: before the epitope scan (off while the first
snapshot is taken: every protein total provisional) and after it has read every design of
the protein pipelines (on, then waited for). Small-molecule pipelines have no scan, so
only the first snapshot reads them. Each page is fetched and parsed once per snapshot
(``tests/support/result_pages.py``); the tests compare the snapshots.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field

import pytest

from app import domain
from app.viewer.chem import alerts
from app.viewer.epitope import scan
from app.viewer.exports.precision import DECIMALS
from tests.support import result_pages as pages
from tests.support.apps import make_test_app
from tests.support.databases import dispose_engines, migrated_database
from tests.support.demo import seeded_demo

# A sweep of every pipeline of the whole demo (about 40 s on two cores): make test
# runs it, make test-fast does not.
pytestmark = pytest.mark.slow
PAGES_PER_PIPELINE = 30
PROTEIN_KINDS = ("protein_design", "protein_redesign", "protein_sequence_redesign",
                 "protein_library_screen")
MOLECULE_KINDS = ("small_molecule_design", "small_molecule_library_screen",
                  "small_molecule_explore")
CASES = [*(("before", kind) for kind in (*PROTEIN_KINDS, *MOLECULE_KINDS)),
         *(("after", kind) for kind in PROTEIN_KINDS)]
PROTEIN_CASES = [case for case in CASES if case[1] in PROTEIN_KINDS]
MOLECULE_CASES = [case for case in CASES if case[1] in MOLECULE_KINDS]
PROTEIN_PROPERTIES = ("protein_weight", "isoelectric_point", "net_charge", "gravy",
                      "instability_index", "extinction_coefficient")
LABEL = re.compile(r"^#(\d+) (\S+)$")


def _ids(cases):
    return [f"{state}-{kind}" for state, kind in cases]


@dataclass
class Snapshot:
    """Everything one pipeline's pages and exports show, parsed, keyed by result id."""

    table: dict[str, pages.TableRow]
    order: list[str]  # the table's ids in its (default) order
    sample: list[str]  # the ids whose result and 3D pages were read (``_sample``)
    results: dict[str, pages.ResultPage]
    structures: dict[str, pages.StructurePage]
    compares: dict[tuple[str, str], pages.ComparePage]
    csv: dict[str, dict[str, str]]
    json: dict[str, dict]
    fasta: dict[str, list[dict]] = field(default_factory=dict)
    sdf: dict[str, dict] = field(default_factory=dict)


def _signature(csv_row: dict[str, str]) -> tuple:
    """What can make one result's pages differ from another's: the CSV columns it fills,
    its warnings and the liability kinds it has."""
    return (frozenset(key for key, value in csv_row.items() if value != ""),
            csv_row.get("warnings", ""),
            frozenset(key for key, value in csv_row.items()
                      if key.startswith("liability_") and value not in ("", "0")))


def _sample(order: list[str], csv: dict[str, dict[str, str]]) -> list[str]:
    """Every id when there are at most ``PAGES_PER_PIPELINE``; otherwise the first ten and
    last five ranks, the first result of each ``_signature``, then every k-th id until
    ``PAGES_PER_PIPELINE`` (at least every signature)."""
    if len(order) <= PAGES_PER_PIPELINE:
        return list(order)
    picked = dict.fromkeys([*order[:10], *order[-5:]])
    seen: set[tuple] = set()
    for rid in order:
        signature = _signature(csv[rid])
        if signature not in seen:
            seen.add(signature)
            picked[rid] = None
    rest = [rid for rid in order if rid not in picked]
    room = PAGES_PER_PIPELINE - len(picked)
    if room > 0 and rest:
        picked |= dict.fromkeys(rest[::max(1, len(rest) // room)][:room])
    return [rid for rid in order if rid in picked]


def _snapshot(client, path: str, kind: str) -> Snapshot:
    rows = pages.table_rows(client, path)
    order = [row.id for row in rows]
    csv = pages.csv_rows(client, path)
    sample = _sample(order, csv)
    # A few pairs: the first two, one from the middle with the last, the last with the first.
    pairs = [(order[0], order[1]), (order[len(order) // 2], order[-1]), (order[-1], order[0])]
    return Snapshot(
        table={row.id: row for row in rows}, order=order, sample=sample,
        results={rid: pages.result_page(client, f"{path}/results/{rid}") for rid in sample},
        structures={rid: pages.structure_page(client, f"{path}/results/{rid}/structure")
                    for rid in sample},
        compares={(a, b): pages.compare_page(client, f"{path}/compare?a={a}&b={b}")
                  for a, b in pairs},
        csv=csv, json=pages.json_results(client, path),
        fasta=pages.fasta_records(client, path) if kind in PROTEIN_KINDS else {},
        sdf=pages.sdf_records(client, path) if kind in MOLECULE_KINDS else {})


def _wait_for_scans(app, client, paths: dict[str, str], counts: dict[str, int]) -> None:
    """Open each protein pipeline's results page (which starts its scan) until every
    design of each was read."""
    deadline = time.monotonic() + 300
    for pid, path in paths.items():
        assert client.get(path).status_code == 200
        while True:
            with app.app_context():
                progress = scan.progress(pid)
            if progress is not None and progress.finished_count == counts[pid]:
                break
            assert time.monotonic() < deadline and not (progress and progress.failure), progress
            time.sleep(0.2)


@pytest.fixture(scope="module")
def snapshots(tmp_path_factory) -> dict[tuple[str, str], Snapshot]:
    """The snapshots of ``CASES``: every pipeline with the scan off, then the protein
    pipelines again once the scan (turned on) has read all their designs."""
    root = tmp_path_factory.mktemp("consistency")
    url, drop = migrated_database(root)
    app = make_test_app(url, root)  # EPITOPE_SCAN off: the "before" snapshot first
    demo = seeded_demo(app)
    client, link = app.test_client(), demo["share_links"]["public"]["id"]
    assert set(demo["pipelines"]) == {*PROTEIN_KINDS, *MOLECULE_KINDS}  # every pipeline
    paths = {kind: f"/share/{link}/pipelines/{pid}" for kind, pid in demo["pipelines"].items()}
    taken = {("before", kind): _snapshot(client, paths[kind], kind) for kind in paths}
    app.config["EPITOPE_SCAN"] = True
    _wait_for_scans(app, client, {demo["pipelines"][k]: paths[k] for k in PROTEIN_KINDS},
                    {demo["pipelines"][k]: len(taken["before", k].order)
                     for k in PROTEIN_KINDS})
    taken |= {("after", kind): _snapshot(client, paths[kind], kind) for kind in PROTEIN_KINDS}
    yield taken
    dispose_engines(app)
    drop()


@pytest.mark.parametrize(("state", "kind"), CASES, ids=_ids(CASES))
def test_every_page_names_each_result_alike(snapshots, state, kind):
    shot = snapshots[state, kind]
    ids = set(shot.order)
    assert len(ids) == len(shot.order) > 1
    assert set(shot.csv) == set(shot.json) == ids
    assert set(shot.results) == set(shot.structures) == set(shot.sample) <= ids
    assert len(shot.sample) >= min(len(ids), PAGES_PER_PIPELINE)
    assert set(shot.fasta or shot.sdf) == ids
    labels = set()
    for rank, rid in enumerate(shot.order, start=1):
        row, csv_row, record = shot.table[rid], shot.csv[rid], shot.json[rid]
        label = row.label
        match = LABEL.match(label)
        assert match and rid.endswith(match[2]), (rid, label)
        # The default view is ranked by the primary metric: the label's rank is the row's.
        assert match[1] == row.rank == str(rank) == csv_row["rank"] == str(record["rank"])
        assert label == row.link_text == csv_row["label"] == record["label"], rid
        if rid in shot.results:
            assert shot.results[rid].label == label, rid
            assert shot.results[rid].result_id == rid
            three_d = shot.structures[rid]
            assert three_d.label == three_d.legend_label == label, rid
        for chain in shot.fasta.get(rid, []):
            assert (chain["rank"], chain["label"]) == (row.rank, label), rid
        if shot.sdf:
            sdf = shot.sdf[rid]
            assert sdf["label"] == label and sdf["rank"] == row.rank, rid
            assert sdf["title"].split("|")[:3] == [row.rank, label, rid]
        labels.add(label)
    assert len(labels) == len(ids)
    for (a, b), compared in shot.compares.items():
        assert compared.labels == (shot.table[a].label, shot.table[b].label)


def _metric_texts(shot: Snapshot, rid: str) -> dict[str, list[tuple[str, str]]]:
    """Each metric's shown texts for ``rid``: (page, text)."""
    out: dict[str, list[tuple[str, str]]] = {}
    row = shot.table[rid]
    for key, text in shot.results[rid].metrics.items() if rid in shot.results else ():
        out.setdefault(key, []).append(("result page", text))
    for key in shot.json[rid].get("metrics") or {}:
        out.setdefault(key, []).append(("table", row.cell_text(key)))
    for (a, b), compared in shot.compares.items():
        for key, texts in compared.metrics.items():
            if rid in (a, b):
                out.setdefault(key, []).append(("compare", texts[(a, b).index(rid)]))
    for chain in shot.fasta.get(rid, []):
        for key, text in chain["values"].items():
            if key in out:
                out[key].append(("fasta", text))
    return out


@pytest.mark.parametrize(("state", "kind"), CASES, ids=_ids(CASES))
def test_every_page_shows_each_metric_of_the_record(snapshots, state, kind):
    shot = snapshots[state, kind]
    for rid in shot.order:
        metrics = shot.json[rid].get("metrics") or {}
        csv_row, row = shot.csv[rid], shot.table[rid]
        if rid in shot.results:
            assert set(shot.results[rid].metrics) == set(metrics), rid
        texts = _metric_texts(shot, rid)
        for key, value in metrics.items():
            assert float(csv_row[key]) == value, (rid, key)
            assert float(row.sort_value(key)) == value, (rid, key)
            if shot.sdf:
                assert float(shot.sdf[rid][key]) == value, (rid, key)
            shown = texts[key]
            assert len({text for _page, text in shown}) == 1, (rid, key, shown)
            assert all(pages.shown(value, text) for _page, text in shown), (rid, key, shown)
        for key in row.cells.keys() & domain.METRICS.keys() - metrics.keys():
            # A metric column this record's variant has not: a dash, an empty cell.
            assert pages.shown(None, row.cell_text(key)) and csv_row[key] == "", (rid, key)


@pytest.mark.parametrize(("state", "kind"), CASES, ids=_ids(CASES))
def test_every_page_shows_the_same_computed_properties(snapshots, state, kind):
    shot = snapshots[state, kind]
    for rid in shot.order:
        row, csv_row, page = shot.table[rid], shot.csv[rid], shot.results.get(rid)
        if kind in PROTEIN_KINDS:
            for key in PROTEIN_PROPERTIES:
                text = row.cell_text(key)
                assert pages.shown(csv_row[key], text), (rid, key, csv_row[key], text)
                assert float(row.sort_value(key)) == float(csv_row[key]), (rid, key)
            if page is not None:
                assert set(page.protein) == set(PROTEIN_PROPERTIES), rid
                assert all(page.protein[key] == row.cell_text(key)
                           for key in PROTEIN_PROPERTIES), (rid, page.protein)
            continue
        for key in ("mol_weight", "clogp", "tpsa", "qed"):  # the table's four
            text = row.cell_text(key)
            full = float(row.sort_value(key))
            assert float(csv_row[key]) == round(full, DECIMALS[key]), (rid, key)
            assert pages.shown(csv_row[key], text), (rid, key, csv_row[key], text)
            assert page is None or page.properties[key] == text, (rid, key)
        for key, text in page.properties.items() if page is not None else ():
            # The SDF has them all.
            assert pages.shown(shot.sdf[rid][key], text), (rid, key, shot.sdf[rid][key], text)


@pytest.mark.parametrize(("state", "kind"), PROTEIN_CASES, ids=_ids(PROTEIN_CASES))
def test_every_page_counts_the_same_liabilities(snapshots, state, kind):
    shot = snapshots[state, kind]
    provisional = set()
    for rid in shot.order:
        row, csv_row = shot.table[rid], shot.csv[rid]
        total = row.sort_value("liability_count")
        marked = "provisional" in row.classes("liability_count")
        assert total == csv_row["liability_count"], (rid, total, csv_row["liability_count"])
        assert marked == (csv_row["liability_oxidation"] == ""), \
            (rid, marked, csv_row["liability_oxidation"])
        if marked:
            provisional.add(rid)
        if rid not in shot.results:
            continue
        page = shot.results[rid]
        counts = page.liability_counts
        assert page.liability_total == sum(int(n) for n in counts.values() if n != ""), rid
        assert str(page.liability_total) == total, (rid, total, page.liability_total)
        assert page.provisional == marked, (rid, marked, page.provisional)
        assert counts["oxidation"] == csv_row["liability_oxidation"], rid
    # Before the scan every total is provisional; after it, none is.
    assert provisional == (set(shot.order) if state == "before" else set())


def _csv_families(csv_row: dict[str, str]) -> set[str] | None:
    """The alert families the CSV says: RDKit's names (``alerts``) and the API's alert
    warning; None when RDKit's are unknown and the API raised none."""
    kinds = alerts.families()
    names = csv_row["alerts"]
    api = {"pains"} if "pains_substructure" in csv_row["warnings"].split(";") else set()
    if names == "unknown":
        return api or None
    return {kinds.get(name, "other") for name in names.split(";") if name} | api


@pytest.mark.parametrize(("state", "kind"), MOLECULE_CASES, ids=_ids(MOLECULE_CASES))
def test_every_page_gives_the_same_alert_verdict(snapshots, state, kind):
    shot = snapshots[state, kind]
    flagged = 0
    for rid in shot.order:
        page, csv_row = shot.results.get(rid), shot.csv[rid]
        families = _csv_families(csv_row)
        if families is None:
            assert page is None or page.alerts == "unknown", rid
            continue
        assert shot.table[rid].alert_families() == families, \
            (rid, shot.table[rid].alert_families(), csv_row["alerts"], csv_row["warnings"])
        if page is not None:
            assert page.alert_families == families, (rid, page.alert_families, families)
            assert page.alerts == ("any" if families else "none"), rid
        flagged += bool(families)
    assert kind == "small_molecule_design" or flagged  # the screens hold alerts


@pytest.mark.parametrize(("state", "kind"), CASES, ids=_ids(CASES))
def test_every_page_shows_the_same_molecule_or_sequence(snapshots, state, kind):
    shot = snapshots[state, kind]
    for rid in shot.order:
        row, csv_row, record = shot.table[rid], shot.csv[rid], shot.json[rid]
        page = shot.results.get(rid)
        roles = shot.structures[rid].roles if page is not None else None
        if kind in MOLECULE_KINDS:
            smiles = record["smiles"]
            assert row.sort_value("smiles") == csv_row["smiles"] \
                == shot.sdf[rid]["smiles"] == smiles, rid
            assert csv_row["inchikey"] == shot.sdf[rid]["inchikey"], rid
            if page is not None:
                assert (page.smiles, page.inchikey) == (smiles, csv_row["inchikey"]), rid
                assert "Binder" in roles.values(), (rid, roles)
            continue
        sequence = csv_row["sequence"]
        assert row.cell_text("length").split(" aa")[0] == csv_row["sequence_length"] \
            == str(len(sequence)), rid
        chains = csv_row["chains"].split(",")
        assert row.cell_text("length").split("\u00b7")[1].strip() == ", ".join(chains), rid
        fasta = shot.fasta[rid]
        assert all(chain["sequence"] == sequence for chain in fasta), rid
        assert len(fasta) == 1 and fasta[0]["chain"] in chains, (rid, fasta, chains)
        if page is not None:
            assert page.designed_sequence == sequence, rid
            assert set(roles) == set(chains), (rid, roles, chains)
            assert [chain["chain"] for chain in fasta] == [page.designed_chain], rid
            assert roles[page.designed_chain] in ("Binder", "Designed"), (rid, roles)


@pytest.mark.parametrize(("state", "kind"), CASES, ids=_ids(CASES))
def test_every_page_shows_the_same_adme_and_warnings(snapshots, state, kind):
    shot = snapshots[state, kind]
    for rid in shot.order:
        row, csv_row, record = shot.table[rid], shot.csv[rid], shot.json[rid]
        page = shot.results.get(rid)
        codes = [w["code"] for w in record.get("warnings") or []]
        assert page is None or page.warnings == codes, rid
        assert csv_row["warnings"] == ";".join(codes), rid
        assert row.warning_codes() == codes, rid
        for key, value in (record.get("adme") or {}).items():
            assert csv_row[key] == ("" if value is None else str(value)), (rid, key)
            if shot.sdf:
                assert shot.sdf[rid][key] == str(value), (rid, key)
            label = domain.ADME_FIELDS[key][0]  # the result page names them by label
            if key == "solubility":
                assert row.sort_value(key) == value, (rid, key)
                assert page is None or page.adme[label] == value, (rid, key)
            else:
                text = row.cell_text(key)
                assert pages.shown(value, text), (rid, key)
                assert page is None or page.adme[label] == text, (rid, key)
