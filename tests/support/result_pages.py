"""What a visitor reads of a pipeline's results on each page and export, parsed once into
plain values (test helper): the results table (every page of a view), a result page, its
3D page, the compare page, and the CSV, JSON, FASTA and SDF exports.

Each reader returns the texts as shown (a number's text at the page's own precision) with
the keys the page names them by: a table column by its sort key, a result page's metric
or property by its glossary anchor or ``data-property``. ``shown(value, text)`` says
whether a full-precision value reads as ``text`` at the precision ``text`` shows.
"""

from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import dataclass, field
from urllib.parse import parse_qs, urlsplit

from bs4 import BeautifulSoup, Tag

from tests.support.html import parse, text

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


def _anchor(element: Tag | None) -> str | None:
    """The glossary key an element's glossary link names (``/glossary#key``)."""
    link = element.select_one('a.glossary-link[href*="#"]') if element else None
    return link["href"].split("#", 1)[1] if link else None


# ---------------------------------------------------------------- the results table


@dataclass
class TableRow:
    """One row of the results table: its id, rank, label and cells by column key."""

    id: str
    rank: str
    label: str  # data-label
    link_text: str  # the row's link to its result page
    cells: dict[str, Tag] = field(default_factory=dict)

    def cell_text(self, key: str) -> str:
        """The text a reader sees in column ``key`` (badges and hidden text left out)."""
        cell = self.cells[key]
        kept = BeautifulSoup(str(cell), "lxml").td
        for hidden in kept.select(".visually-hidden, abbr.provisional, .alert-badges"):
            hidden.decompose()
        return text(kept)

    def alert_families(self) -> set[str]:
        """The alert families the row's Structure cell badges name."""
        return {b["data-alert-family"] for b in self.cells["smiles"].select("[data-alert-family]")}


def _column_keys(soup: BeautifulSoup) -> list[str]:
    """The key of each header cell: its sort link's key, else its ``col-`` class."""
    keys = []
    for th in soup.select("table thead th"):
        link = th.select_one("a.sort-link[href]")
        sort = parse_qs(urlsplit(link["href"]).query).get("sort") if link else None
        if sort:
            keys.append(sort[0].lstrip("-"))
        else:
            css = [c for c in th.get("class") or [] if c.startswith("col-")]
            keys.append(css[0].removeprefix("col-") if css else text(th))
    return keys


def table_rows(client, path: str, query: str = "limit=250") -> list[TableRow]:
    """Return every row of the results view ``path?query``, following its pages."""
    rows: list[TableRow] = []
    page = 1
    while True:
        soup = parse(client.get(f"{path}?{query}&page={page}"))
        keys = _column_keys(soup)
        for tr in soup.select("tr[data-result-id]"):
            cells = tr.find_all(["td", "th"], recursive=False)
            by_key = dict(zip(keys, cells, strict=True))
            rows.append(TableRow(tr["data-result-id"], text(by_key.pop("rank")),
                                 tr.get("data-label", ""),
                                 text(by_key.pop("id").select_one("a.rid")), by_key))
        if not soup.select_one('[rel="next"]'):
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


def _protein_report(soup: BeautifulSoup) -> dict:
    report = soup.select_one("section.protein-report")
    if report is None:
        return {"protein": {}, "designed_chain": None, "designed_sequence": None,
                "liability_total": None, "liability_counts": {}, "provisional": False}
    heading = text(report.select_one("#designed-chain-heading"))
    return {
        "protein": {_anchor(div.dt): text(div.dd) for div in report.select("dl.facts > div")},
        "designed_chain": heading.rsplit("chain", 1)[1].strip(),
        "designed_sequence": "".join(report.select_one("pre.seq").get_text().split()),
        "liability_total": int(text(report.select_one("[data-liability-total]"))),
        "liability_counts": {li["data-liability"]: li.select_one("[data-count]")["data-count"]
                             for li in report.select("li[data-liability]")},
        "provisional": report.select_one("[data-provisional]") is not None,
    }


def result_page(client, path: str) -> ResultPage:
    """Read the result page at ``path``."""
    soup = parse(client.get(path))
    metrics = {_anchor(tr.th): text(tr.select_one("td.num"))
               for tr in soup.select("table.metrics:not(.chemistry) tbody tr")}
    properties = {tr["data-property"]: text(tr.select_one("td.num"))
                  for tr in soup.select("table.chemistry tr[data-property]")}
    adme = {}
    for div in soup.select("section[aria-labelledby=adme-heading] dl > div"):
        name = div.dt.find(string=True, recursive=False).strip()
        code = div.dd.select_one("code")
        adme[name] = text(code) if code else text(div.dd)
    smiles = soup.select_one('pre[aria-label="SMILES"]')
    inchikey = soup.select_one('[data-identifier="inchikey"] pre')
    alerts = soup.select("[data-alerts]")
    states = {a["data-alerts"] for a in alerts}
    return ResultPage(
        label=text(soup.select_one("[data-result-label]")),
        result_id=text(soup.select_one("code[data-result-id]")),
        metrics=metrics, properties=properties, adme=adme,
        smiles=smiles.get_text() if smiles else None,
        inchikey=inchikey.get_text() if inchikey else None,
        alerts=None if not states else "any" if "any" in states else states.pop(),
        alert_families={li["data-family"] for li in soup.select("li[data-family]")},
        warnings=[text(code) for code in soup.select("section.warnings li > code")],
        **_protein_report(soup))


@dataclass
class StructurePage:
    """What a 3D page says in words: the label and each chain's role."""

    label: str
    legend_label: str
    roles: dict[str, str]  # chain -> role word ("Binder", "Target", "Ligand")


def structure_page(client, path: str) -> StructurePage:
    """Read the 3D page at ``path``."""
    soup = parse(client.get(path))
    roles = {}
    for li in soup.select("section.chain-names li"):
        parts = [p.strip() for p in text(li).split("\u00b7")]
        roles[parts[1].removeprefix("chain ").strip()] = parts[0]
    return StructurePage(text(soup.select_one("[data-result-label]")),
                         text(soup.select_one(".legend-subject")), roles)


@dataclass
class ComparePage:
    """The compare page's two labels and each metric's two value texts."""

    labels: tuple[str, str]
    metrics: dict[str, tuple[str, str]]


def compare_page(client, path: str) -> ComparePage:
    """Read the compare page at ``path``."""
    soup = parse(client.get(path))
    metrics = {}
    for tr in soup.select("tr[data-metric]"):
        cells = []
        for td in tr.select("td.num"):
            for mark in td.select(".better-mark"):
                mark.decompose()
            cells.append(text(td))
        metrics[tr["data-metric"]] = tuple(cells)
    labels = tuple(text(soup.select_one(f'[data-side-label="{n}"]')) for n in (0, 1))
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
