"""A test-local HTTP server for the results page's browser side (issue 8), without the app.

It serves ``explore_fixture.html`` (the lead's results page reduced to its contract, with
the real partials ``share/results/_plots.html``, ``_shortlist.html`` and, while the index
builds, ``_index_progress.html`` rendered by Jinja, each loading its own script),
``explore.json`` from a payload the test controls, the real ``static/`` files, and
a stub result page, all under the viewer's own Content-Security-Policy
(``app.viewer.web.security._CSP``), so the browser refuses what the app's pages would refuse.
"""

from __future__ import annotations

import http.server
import json
import mimetypes
import threading
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import parse_qs, urlencode, urlsplit

import jinja2

from app.viewer.core.formatting import format_number
from app.viewer.web.security import _CSP
from tests.support.databases import ROOT
from tests.support.servers import free_port

LINK = "lnk_fixture"
PIPELINE = "pip_fixture"
VIEW = f"/share/{LINK}/pipelines/{PIPELINE}"
AXES = [("iptm", "ipTM"), ("binding_confidence", "Binding confidence"),
        ("min_interaction_pae", "Min. interaction PAE")]


def result_ids(count: int) -> list[str]:
    """Ids of ``count`` fixture results, in order."""
    return [f"res_{i:04d}" for i in range(count)]


def ready_payload(ids: list[str], x: str = "iptm", y: str = "binding_confidence",
                  truncated: bool = False) -> dict:
    """An explore.json answer over ``ids`` (deterministic values)."""
    labels = dict(AXES)
    values = {rid: ((i * 37) % 100 / 100, (i * 61) % 100 / 100) for i, rid in enumerate(ids)}
    bins = [{"x0": b / 10, "x1": (b + 1) / 10,
             "count": sum(1 for v, _ in values.values() if b / 10 <= v < (b + 1) / 10)}
            for b in range(10)]
    return {
        "state": "ready", "indexed": len(ids), "total": len(ids), "matched": len(ids),
        "histograms": [
            {"key": "iptm", "label": "ipTM", "unit": "0\u20131", "bins": bins, "missing": 0},
            {"key": "binding_confidence", "label": "Binding confidence", "unit": "0\u20131",
             "bins": [{**b, "count": c} for b, c in zip(bins, [b["count"] for b in bins][::-1])],
             "missing": 2},
            {"key": "min_interaction_pae", "label": "Min. interaction PAE", "unit": "Å",
             "bins": [], "missing": len(ids)},
        ],
        "points": {"x": x, "y": y, "x_label": labels[x], "y_label": labels[y],
                   "data": [{"id": rid, "x": vx, "y": vy} for rid, (vx, vy) in values.items()],
                   "truncated": truncated, "limit": 5000},
    }


@dataclass
class FixtureSite:
    """What the fixture server answers; tests change it between page loads."""

    ids: list[str] = field(default_factory=lambda: result_ids(30))
    page_size: int = 10
    family: str = "protein"
    payload: dict = field(default_factory=dict)
    # While set, explore.json answers "building" this many more times, then the payload.
    building_polls: int = 0
    # While set, explore.json answers "counting" (a broad substructure query) this many
    # more times, then the payload.
    counting_polls: int = 0
    candidates: int = 950_000
    total: int = 100_000
    json_requests: int = 0
    url: str = ""

    def __post_init__(self) -> None:
        self.payload = self.payload or ready_payload(self.ids)
        loader = jinja2.ChoiceLoader([jinja2.FileSystemLoader(str(ROOT / "templates")),
                                      jinja2.FileSystemLoader(str(Path(__file__).parent))])
        self.env = jinja2.Environment(loader=loader, autoescape=True)
        self.env.filters["number"] = format_number  # as the viewer's templates have it

    def explore_json(self) -> dict:
        """The next answer of explore.json."""
        self.json_requests += 1
        if self.building_polls > 0:
            self.building_polls -= 1
            indexed = self.total // (self.building_polls + 2)
            return {"state": "building", "indexed": indexed, "total": self.total}
        if self.counting_polls > 0:
            self.counting_polls -= 1
            return {"state": "counting", "indexed": self.total, "total": self.total,
                    **self.counting()}
        return self.payload

    def counting(self) -> dict:
        """How far the fixture's substructure count is (``counting_polls`` from the end)."""
        checked = self.candidates // (self.counting_polls + 2)
        return {"checked": checked, "candidates": self.candidates,
                "matched_so_far": checked * 9 // 10}

    def page(self, query: dict[str, str]) -> str:
        """The results page for ``query`` (page=N, embed=1, x=, y=)."""
        embed = query.get("embed") == "1"
        page = int(query.get("page", "1"))
        start = (page - 1) * self.page_size
        rows = [SimpleNamespace(id=rid, x=f"{(i * 37) % 100 / 100:.3f}")
                for i, rid in enumerate(self.ids)][start:start + self.page_size]
        following = None
        if start + self.page_size < len(self.ids):
            following = VIEW + "?" + urlencode({**query, "page": page + 1})
        args = {k: v for k, v in query.items() if k not in ("page",)}
        indexed = self.total // (self.building_polls + 2)

        def url_for(endpoint: str, **values) -> str:
            if endpoint == "static":
                return "/static/" + values["filename"]
            base = f"/share/{values['link_id']}/pipelines/{values['pipeline_id']}"
            if endpoint == "structure.compare":  # the shortlist's "Compare in 3D"
                return base + "/compare"
            if endpoint == "results.explore_json":  # the progress bar's
                query = {k: v for k, v in values.items() if k not in ("link_id", "pipeline_id")}
                return base + "/explore.json" + ("?" + urlencode(query) if query else "")
            assert endpoint == "results.pipeline_results", endpoint
            return base

        return self.env.get_template("explore_fixture.html").render(
            url_for=url_for, embed=embed, link_id=LINK, rows=rows, next_page=following,
            pipeline=SimpleNamespace(id=PIPELINE, name="Fixture pipeline"),
            kind=SimpleNamespace(family=self.family, label="Fixture kind"),
            explore=SimpleNamespace(args=args, x=query.get("x", "iptm"),
                                    y=query.get("y", "binding_confidence"), axes=AXES,
                                    indexed=indexed, total=self.total,
                                    counting=self.counting() if self.counting_polls else None),
            explore_url=VIEW + "/explore.json" + ("?" + urlencode(query) if query else ""),
            view_url=VIEW, view_args=query,
            building=self.building_polls > 0 or self.counting_polls > 0,
        )


def serve(site: FixtureSite):
    """Start the fixture server; returns the server (``site.url`` is set)."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            parts = urlsplit(self.path)
            query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
            status, kind, body = 404, "text/plain", b"not found"
            if parts.path == VIEW:
                status, kind, body = 200, "text/html; charset=utf-8", site.page(query).encode()
            elif parts.path == VIEW + "/explore.json":
                status, kind = 200, "application/json"
                body = json.dumps(site.explore_json()).encode()
            elif parts.path.startswith(VIEW + "/results/"):
                rid = parts.path.rsplit("/", 1)[1]
                status, kind = 200, "text/html; charset=utf-8"
                body = (f"<!doctype html><html lang=en><title>{rid}</title>"
                        f'<link rel=icon href="data:,"><h1>Result {rid}</h1></html>').encode()
            elif parts.path.startswith("/static/") and ".." not in parts.path:
                path = ROOT / parts.path.lstrip("/")
                if path.is_file():
                    status, body = 200, path.read_bytes()
                    kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.send_header("Content-Security-Policy",
                             _CSP.format(scripts="", ancestors="'none'"))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    site.url = f"http://127.0.0.1:{server.server_address[1]}"
    return server
