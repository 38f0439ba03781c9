"""Static files: fingerprinted URLs, cache policy, gzip/brotli variants, Range; and gzip of
pages (never of streamed answers, never of a page that carries a CSRF token)."""

from __future__ import annotations

import gzip
import hashlib
import json
import re
import time
from pathlib import Path

import brotli
import pytest

from app.platform.db import get_engine
from app.viewer.web import precompress
from tests.support import factories
from tests.support.databases import ROOT

CSS = ROOT / "static" / "css" / "viewer.css"


@pytest.fixture
def cache(app, tmp_path) -> Path:
    """A fresh variant folder for this test (the instance folder is per test already)."""
    folder = tmp_path / "static-cache"
    app.config["STATIC_CACHE_DIR"] = str(folder)
    return folder


def _short(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:12]


def test_page_links_static_files_with_their_content_fingerprint(client, shared):
    page = client.get(shared.url()).get_data(as_text=True)
    urls = re.findall(r'(?:href|src)="(/static/[^"]+)"', page)
    assert any("css/viewer.css" in u for u in urls) and any("js/viewer.js" in u for u in urls)
    for url in urls:
        path, _, query = url.partition("?")
        assert query == f"v={_short(ROOT / path.removeprefix('/'))}", url


def test_fingerprinted_url_is_immutable_and_any_other_revalidates(client, cache):
    fresh = client.get(f"/static/css/viewer.css?v={_short(CSS)}")
    assert fresh.status_code == 200
    assert fresh.headers["Cache-Control"] == "public, max-age=31536000, immutable"
    assert fresh.headers["X-Content-Type-Options"] == "nosniff"
    for url in ("/static/css/viewer.css", "/static/css/viewer.css?v=000000000000"):
        stale = client.get(url)
        assert stale.headers["Cache-Control"] == "no-cache", url
        etag = stale.headers["ETag"]
        again = client.get(url, headers={"If-None-Match": etag})
        assert again.status_code == 304 and again.data == b""


def test_digest_follows_a_changed_file(tmp_path):
    path = tmp_path / "a.js"
    path.write_text("one")
    first = precompress.file_digest(path)
    path.write_text("two, longer")  # another size: a new version even within one mtime tick
    assert precompress.file_digest(path) != first
    assert precompress.file_digest(path) == hashlib.sha256(b"two, longer").hexdigest()


def test_variants_by_accept_encoding_with_their_own_length(client, cache):
    original = CSS.read_bytes()
    plain = client.get("/static/css/viewer.css", headers={"Accept-Encoding": "identity"})
    assert "Content-Encoding" not in plain.headers and plain.data == original
    assert "Accept-Encoding" in plain.headers["Vary"]

    gz = client.get("/static/css/viewer.css", headers={"Accept-Encoding": "gzip"})
    assert gz.headers["Content-Encoding"] == "gzip"
    assert int(gz.headers["Content-Length"]) == len(gz.data) < len(original) / 2
    assert gzip.decompress(gz.data) == original
    assert gz.headers["ETag"] != plain.headers["ETag"]

    # No brotli variant yet: gzip now, brotli made once in the background, then sent.
    first = client.get("/static/css/viewer.css", headers={"Accept-Encoding": "gzip, br"})
    assert first.headers["Content-Encoding"] == "gzip"
    variant = precompress.variant_path(cache, hashlib.sha256(original).hexdigest(), "br")
    deadline = time.monotonic() + 30
    while not variant.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    br = client.get("/static/css/viewer.css", headers={"Accept-Encoding": "gzip, br"})
    assert br.headers["Content-Encoding"] == "br"
    assert int(br.headers["Content-Length"]) == len(br.data)
    assert brotli.decompress(br.data) == original
    assert sorted(p.name for p in cache.iterdir()) == sorted([variant.name,
                                                             variant.with_suffix(".gz").name])


def test_range_is_answered_on_the_identity_bytes(client, cache):
    answer = client.get("/static/css/viewer.css",
                        headers={"Accept-Encoding": "gzip, br", "Range": "bytes=10-29"})
    assert answer.status_code == 206
    assert "Content-Encoding" not in answer.headers
    assert answer.data == CSS.read_bytes()[10:30]


def test_no_file_outside_the_static_folder(client, cache):
    assert client.get("/static/../app/__init__.py").status_code == 404
    assert client.get("/static/css/missing.css").status_code == 404


def test_compress_static_makes_every_variant_once(app, runner, cache, tmp_path):
    folder = tmp_path / "static"
    (folder / "js").mkdir(parents=True)
    (folder / "js" / "a.js").write_text("var x = 1;\n" * 200)
    (folder / "tiny.css").write_text("a{}")  # too small to be worth a variant
    (folder / "logo.png").write_bytes(b"\x89PNG" + bytes(2000))  # not text
    app.static_folder = str(folder)
    done = runner.invoke(args=["compress-static"])
    assert done.exit_code == 0, done.output
    digest = hashlib.sha256((folder / "js" / "a.js").read_bytes()).hexdigest()
    assert sorted(p.name for p in cache.iterdir()) == [f"{digest}.br", f"{digest}.gz"]
    assert "2 compressed variant(s) made" in done.output
    assert "0 compressed variant(s) made" in runner.invoke(args=["compress-static"]).output


def test_pages_and_json_are_gzipped_when_accepted(client, shared):
    url = shared.url(f"/pipelines/{shared.pipelines['protein_design']}")
    plain = client.get(url)
    assert "Content-Encoding" not in plain.headers
    packed = client.get(url, headers={"Accept-Encoding": "gzip"})
    assert packed.headers["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in packed.headers["Vary"]
    assert int(packed.headers["Content-Length"]) == len(packed.data) < len(plain.data) / 3
    assert b"<table" in gzip.decompress(packed.data)
    explore = client.get(url + "/explore.json", headers={"Accept-Encoding": "gzip"})
    assert explore.headers["Content-Encoding"] == "gzip"
    assert b'"state"' in gzip.decompress(explore.data)


def test_streamed_answers_are_never_compressed(client, shared):
    pipeline = shared.pipelines["protein_design"]
    result = shared.results["protein_design"][0]
    for url in (shared.url(f"/pipelines/{pipeline}/results/{result}/artifacts/archive"),
                shared.url(f"/pipelines/{pipeline}/export.csv")):
        answer = client.get(url, headers={"Accept-Encoding": "gzip"})
        assert answer.status_code == 200, url
        assert "Content-Encoding" not in answer.headers, url
        assert answer.is_streamed or answer.direct_passthrough, url


def test_a_page_with_a_csrf_token_is_not_compressed(app, client, org):
    """BREACH: the CSRF token is the one secret an attacker could learn from sizes."""
    with get_engine(app).begin() as conn:
        pipeline_id, _ids = factories.insert_pipeline(conn, org.workspace_id, n_results=2,
                                                      artifact_dir=app.config["ARTIFACT_DIR"])
    link = factories.make_link(app, org, pipeline_ids=[pipeline_id], access_mode="email",
                               allowed_emails=["ada@example.com"])
    page = client.get(f"/share/{link.id}/sign-in", headers={"Accept-Encoding": "gzip"})
    assert page.status_code == 200
    assert b'name="csrf_token"' in page.data and len(page.data) > 1024
    assert "Content-Encoding" not in page.headers


def test_modules_imported_by_page_scripts_are_mapped_to_fingerprinted_urls(client, shared):
    # plots.js imports ./results/*.js by their plain URL; the page's import map sends the
    # browser to the fingerprinted one, which is cached for a year like every other file.
    pipeline = next(iter(shared.pipelines.values()))
    page = client.get(shared.url(f"/pipelines/{pipeline}")).get_data(as_text=True)
    found = re.search(r'<script type="importmap">(.*?)</script>', page)
    assert found, "no import map in the page"
    imports = json.loads(found.group(1))["imports"]
    modules = sorted((ROOT / "static" / "js" / "results").glob("*.js"))
    assert modules and set(imports) == {f"/static/js/results/{m.name}" for m in modules}
    for module in modules:
        mapped = imports[f"/static/js/results/{module.name}"]
        assert mapped == f"/static/js/results/{module.name}?v={_short(module)}"
        answer = client.get(mapped)
        assert answer.status_code == 200 and "immutable" in answer.headers["Cache-Control"]
