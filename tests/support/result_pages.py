"""What a visitor reads of a pipeline's results on each page and export, parsed once into
plain values (test helper): the results table (every page of a view), a result page, its
3D page, the compare page, and the CSV, JSON, FASTA and SDF exports.

Each reader returns the texts as shown (a number's text at the page's own precision) with
the keys the page names them by: a table column by its sort key, a result page's metric
or property by its glossary anchor or ``data-property``. ``shown(value, text)`` says
whether a full-precision value reads as ``text`` at the precision ``text`` shows.

The pages are parsed by lxml's HTML parser (libxml2, the parser under ``tests/support/
html.py``'s BeautifulSoup) and read with XPath: a module that reads every page of every
result twice parses some 1,700 pages, and lxml's own tree builds in a twentieth of
BeautifulSoup's time.
"""

from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import dataclass, field
from urllib.parse import parse_qs, urlsplit

import lxml.html

_SPACES = re.compile(r"[\s\u2009\u202f]")


def number_text(shown_text: str) -> str:
    """Return a number's text as a page shows it without its thousands' spaces."""
    return _SPACES.sub("", shown_text).replace("\u2212", "-")


def shown(value, shown_text: str) -> bool:
    """Whether ``value`` (a full-precision number, or its CSV text) reads as
    ``shown_text`` at the decimals ``shown_text`` has; a dash (or nothing) shows none."""
    plain = number_text(shown_text)
    if value in (None, ""):
        return plain in ("", "\u2013", "-")
    decimals = len(plain.split(".", 1)[1]) if "." in plain else 0
    return f"{float(value):.{decimals}f}" == plain


def has_class(name: str) -> str:
    """The XPath test of an element whose ``class`` holds ``name``."""
    return f"contains(concat(' ', normalize-space(@class), ' '), ' {name} ')"


def text(element, skip: str | None = None) -> str:
    """The element's text as a reader sees it (whitespace runs collapsed), without the
    descendants the XPath ``skip`` names."""
    if skip is not None and element.xpath(skip):
        element = lxml.html.fromstring(lxml.html.tostring(element))
        for hidden in element.xpath(skip):
            hidden.drop_tree()
    return " ".join(element.text_content().split())


def first(element, path: str):
    """The first element ``path`` finds under ``element``, or None."""
    found = element.xpath(path)
    return found[0] if found else None


def _page(client, path: str):
    response = client.get(path)
    assert response.status_code == 200, (path, response.status_code)
    return lxml.html.fromstring(response.get_data())


def _anchor(element) -> str | None:
    """The glossary key an element's glossary link names (``/glossary#key``)."""
    link = first(element, f".//a[{has_class('glossary-link')} and contains(@href, '#')]")
    return link.get("href").split("#", 1)[1] if link is not None else None


# ---------------------------------------------------------------- the results table

_READER_ONLY = (f".//*[{has_class('visually-hidden')}] | .//abbr[{has_class('provisional')}]"
                f" | .//*[{has_class('alert-badges')}]")


@dataclass
class TableRow:
    """One row of the results table: its id, rank, label and cells by column key."""

    id: str
    rank: str
    label: str  # data-label
    link_text: str  # the row's link to its result page
    cells: dict = field(default_factory=dict)  # column key -> its <td> (lxml)

    def cell_text(self, key: str) -> str:
        """The text a reader sees in column ``key`` (badges and hidden text left out)."""
        return text(self.cells[key], _READER_ONLY)

    def sort_value(self, key: str) -> str | None:
        """The cell's ``data-sort``: the value the cell shows, whole."""
        return self.cells[key].get("data-sort")

    def classes(self, key: str) -> list[str]:
        """The cell's classes."""
        return (self.cells[key].get("class") or "").split()

    def alert_families(self) -> set[str]:
        """The alert families the row's Structure cell badges name."""
        return {b.get("data-alert-family")
                for b in self.cells["smiles"].xpath(".//*[@data-alert-family]")}

    def warning_codes(self) -> list[str]:
        """The warning codes the row's Warnings cell prints."""
        return [text(c) for c in self.cells["warnings"].xpath(
            f".//*[{has_class('warn-code')}]")]


def _column_keys(tree) -> list[str]:
    """The key of each header cell: its sort link's key, else its ``col-`` class."""
    keys = []
    for th in tree.xpath("//table//thead//th"):
        link = first(th, f".//a[{has_class('sort-link')}]")
        sort = parse_qs(urlsplit(link.get("href")).query).get("sort") if link is not None \
            else None
        if sort:
            keys.append(sort[0].lstrip("-"))
        else:
            css = [c for c in (th.get("class") or "").split() if c.startswith("col-")]
            keys.append(css[0].removeprefix("col-") if css else text(th))
    return keys


def table_rows(client, path: str, query: str = "limit=250") -> list[TableRow]:
    """Return every row of the results view ``path?query``, following its pages."""
    rows: list[TableRow] = []
    page = 1
    while True:
        tree = _page(client, f"{path}?{query}&page={page}")
        keys = _column_keys(tree)
        for tr in tree.xpath("//tr[@data-result-id]"):
            cells = [child for child in tr if child.tag in ("td", "th")]
            by_key = dict(zip(keys, cells, strict=True))
            link = first(by_key.pop("id"), f".//a[{has_class('rid')}]")
            rows.append(TableRow(tr.get("data-result-id"), text(by_key.pop("rank")),
                                 tr.get("data-label", ""), text(link), by_key))
        if not tree.xpath('//*[@rel="next"]'):
            return rows
        page += 1


# ---------------------------------------------------------------- one result's pages


@dataclass
class ResultPage:
    """What a result page shows."""

    label: str
    result_id: str
    metrics: dict[str, str]  # glossary key -> value text
    properties: dict[str, str]  # RDKit's computed properties (data-property)
    protein: dict[str, str]  # the designed chain's ProtParam values (glossary key)
    designed_chain: str | None
    designed_sequence: str | None
    liability_total: int | None
    liability_counts: dict[str, str]  # name -> data-count ("" not counted yet)
    provisional: bool
    adme: dict[str, str]  # ADME label -> value text (solubility: its code)
    smiles: str | None
    inchikey: str | None
    alerts: str | None  # "none", "any", "unknown" (data-alerts), None without a molecule
    alert_families: set[str]
    warnings: list[str]


def _protein_report(tree) -> dict:
    report = first(tree, f"//section[{has_class('protein-report')}]")
    if report is None:
        return {"protein": {}, "designed_chain": None, "designed_sequence": None,
                "liability_total": None, "liability_counts": {}, "provisional": False}
    heading = text(first(report, ".//*[@id='designed-chain-heading']"))
    return {
        "protein": {_anchor(div.find("dt")): text(div.find("dd"))
                    for div in report.xpath(f"./dl[{has_class('facts')}]/div")},
        "designed_chain": heading.rsplit("chain", 1)[1].strip(),
        "designed_sequence": "".join(first(report, ".//pre").text_content().split()),
        "liability_total": int(text(first(report, ".//*[@data-liability-total]"))),
        "liability_counts": {li.get("data-liability"): first(li, ".//*[@data-count]")
                             .get("data-count")
                             for li in report.xpath(".//li[@data-liability]")},
        "provisional": bool(report.xpath(".//*[@data-provisional]")),
    }


def result_page(client, path: str) -> ResultPage:
    """Read the result page at ``path``."""
    tree = _page(client, path)
    metrics = {_anchor(tr.find("th")): text(first(tr, "./td"))
               for tr in tree.xpath(f"//table[{has_class('metrics')} and not("
                                    f"{has_class('chemistry')})]/tbody/tr")}
    properties = {tr.get("data-property"): text(first(tr, "./td"))
                  for tr in tree.xpath(f"//table[{has_class('chemistry')}]"
                                       "//tr[@data-property]")}
    adme = {}
    for div in tree.xpath("//section[@aria-labelledby='adme-heading']/dl/div"):
        code = first(div, "./dd/code")
        adme[div.find("dt").text.strip()] = text(code if code is not None else div.find("dd"))
    smiles = first(tree, "//pre[@aria-label='SMILES']")
    inchikey = first(tree, "//*[@data-identifier='inchikey']//pre")
    states = {a.get("data-alerts") for a in tree.xpath("//*[@data-alerts]")}
    return ResultPage(
        label=text(first(tree, "//*[@data-result-label]")),
        result_id=text(first(tree, "//code[@data-result-id]")),
        metrics=metrics, properties=properties, adme=adme,
        smiles=smiles.text_content() if smiles is not None else None,
        inchikey=inchikey.text_content() if inchikey is not None else None,
        alerts=None if not states else "any" if "any" in states else states.pop(),
        alert_families={li.get("data-family") for li in tree.xpath("//li[@data-family]")},
        warnings=[text(code) for code in tree.xpath(
            f"//section[{has_class('warnings')}]//li/code")],
        **_protein_report(tree))


@dataclass
class StructurePage:
    """What a 3D page says in words: the label and each chain's role."""

    label: str
    legend_label: str
    roles: dict[str, str]  # chain -> role word ("Binder", "Target", "Ligand")


def structure_page(client, path: str) -> StructurePage:
    """Read the 3D page at ``path``."""
    tree = _page(client, path)
    roles = {}
    for li in tree.xpath(f"//section[{has_class('chain-names')}]//li"):
        parts = [p.strip() for p in text(li).split("\u00b7")]
        roles[parts[1].removeprefix("chain ").strip()] = parts[0]
    return StructurePage(text(first(tree, "//*[@data-result-label]")),
                         text(first(tree, f"//*[{has_class('legend-subject')}]")), roles)


@dataclass
class ComparePage:
    """The compare page's two labels and each metric's two value texts."""

    labels: tuple[str, str]
    metrics: dict[str, tuple[str, str]]


def compare_page(client, path: str) -> ComparePage:
    """Read the compare page at ``path``."""
    tree = _page(client, path)
    mark = f".//*[{has_class('better-mark')}]"
    metrics = {tr.get("data-metric"): tuple(text(td, mark) for td in tr.xpath("./td"))
               for tr in tree.xpath("//tr[@data-metric]")}
    labels = tuple(text(first(tree, f"//*[@data-side-label='{n}']")) for n in (0, 1))
    return ComparePage(labels, metrics)


# ---------------------------------------------------------------- the exports


def _export(client, path: str, extension: str) -> str:
    response = client.get(f"{path}/export.{extension}")
    assert response.status_code == 200, (extension, response.status_code)
    return response.get_data(as_text=True)


def csv_rows(client, path: str) -> dict[str, dict[str, str]]:
    """Return the CSV export's rows by result id."""
    reader = csv.DictReader(io.StringIO(_export(client, path, "csv")))
    return {row["result_id"]: row for row in reader}


def json_results(client, path: str) -> dict[str, dict]:
    """Return the JSON export's results by id."""
    return {r["id"]: r for r in json.loads(_export(client, path, "json"))["results"]}


def fasta_records(client, path: str) -> dict[str, list[dict]]:
    """Return the FASTA export's records by result id: each chain's header words (rank,
    label with its spaces, chain, ``key=value``) and sequence."""
    out: dict[str, list[dict]] = {}
    for chunk in _export(client, path, "fasta").split(">")[1:]:
        head, *lines = chunk.split("\n")
        names, *words = head.split(" ")
        rank, label, result_id, chain = names.split("|")
        values = dict(word.split("=", 1) for word in words)
        out.setdefault(result_id, []).append({
            "rank": rank, "label": label.replace("_", " "),
            "chain": chain.removeprefix("chain="), "values": values,
            "sequence": "".join(lines)})
    return out


_SD_PROPERTY = re.compile(r"^>  <([^>]+)>\n(.*?)\n\n", re.M | re.S)


def sdf_records(client, path: str) -> dict[str, dict]:
    """Return the SDF export's records by result id: the title line and the properties."""
    out = {}
    for block in _export(client, path, "sdf").split("$$$$\n"):
        if not block.strip():
            continue
        title = block.split("\n", 1)[0]
        props = dict(_SD_PROPERTY.findall(block))
        out[title.split("|")[2]] = {"title": title, **props}
    return out
