"""The 3D structure page in headless Chromium: time until ready and bytes transferred.

Starts ``gunicorn wsgi:app`` from each checkout (BEFORE_ROOT and this one by default), after
``flask compress-static`` as a deployment does, on its
own seeded SQLite database, then, round after round and alternating between the checkouts,
opens a protein_design result's 3D page in Debian's Chromium (Playwright, headless, software
WebGL as in the browser tests):

- a first visit in a new browser context (empty cache), then a repeat visit of the same
  page in the same context;
- "ready" = milliseconds from navigation start until ``#structure-viewer`` carries
  ``data-loaded="true"`` (recorded in the page by a MutationObserver, so Playwright's
  polling adds nothing), i.e. Mol* has loaded the whole scene; "drawn" = two animation
  frames later, when that picture is on screen; "pae" = when the PAE map is drawn and
  answers the pointer (``#pae-panel[data-ready]``); "settled" = when, after drawn, five
  animation frames in a row came under 50 ms apart: the page's post-draw work (e.g. edge
  smoothing switched on after the first picture, its passes compiled and drawn) is done,
  main thread and GPU are free again;
- each visit's tab is closed only once its page has settled, for both checkouts alike: a
  visitor's next visit does not start while the previous tab's GPU work still runs (closed
  0.3 s after drawn, the repeat visit started on a GPU process still drawing the first
  visit's smoothing frame and measured that too);
- "blocked" = the main thread's long tasks (over 50 ms, a PerformanceObserver) from
  navigation until drawn: the time the page could not answer a click or a key;
- "Mol* ms" = main-thread time spent in Mol*'s bundle until drawn, from a third, sampled
  visit per round (DevTools Profiler, 1 ms samples whose stack holds a frame of
  molstar.js: its code and what it calls, WebGL included; the bundle's compile is not a
  JS frame and counts in "(program)", which is reported beside it);
- bytes = the sum of ``encodedDataLength`` of every response as Chromium received it
  (compressed size plus headers; a cache hit counts 0; data: and blob: URLs, which the
  stock Mol* bundle used for its WebAssembly module, are not network and not counted),
  from the DevTools protocol.

It also prints where a first visit's time goes: HTML received, Mol* bundle received,
DOMContentLoaded (before: after Mol*'s synchronous bundle ran; after: the bundle is only
preloaded then), the first contentful paint (the page's text and legend on screen), the
PAE map drawn, Mol*'s bundle started ("run", the mark ``structure:bundle``: after the first
paint; before, also after the PAE map) and run, the viewer being created ("create", the performance
mark ``structure:create`` of static/js/structure.js) and the scene's load started
("load", ``structure:load``; a checkout without these marks shows nan), the structure
file requested and received, ready, drawn, settled.

Run: ``.venv/bin/python bench/bench_structure.py BEFORE_ROOT [AFTER_ROOT] [--rounds 5]``
(``--only before`` or ``--only after`` measures one checkout). The checkouts run with this
interpreter (the before worktree has no venv of its own).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

HERE = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"

# Records when the viewer says it is ready, in page time (ms since navigation start).
_READY_PROBE = """
(() => {
  window.__blocked = 0;
  try {
    new PerformanceObserver((list) => {
      if (window.__drawn !== undefined) return;
      for (const task of list.getEntries()) window.__blocked += task.duration;
    }).observe({type: 'longtask', buffered: true});
  } catch (e) { window.__blocked = null; }
  // Settled: the work the page does after the first picture (e.g. edge smoothing switched
  // on, its passes compiled and drawn) is done once frames come on time again: SETTLE_FRAMES
  // animation frames in a row, each under SETTLE_GAP ms after the one before (a frame waits
  // for the main thread and for the GPU process's previous frame).
  const SETTLE_FRAMES = 5, SETTLE_GAP = 50;
  window.__gaps = [];
  const settle = (last, run) => requestAnimationFrame((now) => {
    const gap = now - last;
    window.__gaps.push(Math.round(gap));
    run = gap < SETTLE_GAP ? run + 1 : 0;
    if (run >= SETTLE_FRAMES) window.__settled = now;
    else settle(now, run);
  });
  const mark = () => {
    const host = document.getElementById('structure-viewer');
    const pae = document.getElementById('pae-panel');
    if (pae && pae.getAttribute('data-ready') === 'true' && window.__pae === undefined) {
      window.__pae = performance.now();
    }

    if (host && host.getAttribute('data-loaded') === 'true' && window.__ready === undefined) {
      window.__ready = performance.now();
      // Mol* draws in its own animation frame: two frames on, the picture is on screen.
      requestAnimationFrame(() => requestAnimationFrame(() => {
        window.__drawn = performance.now();
        settle(window.__drawn, 0);
      }));
    }
  };
  new MutationObserver(mark).observe(document, {subtree: true, attributes: true,
                                                childList: true});
})();
"""

# Where the time of a load went, from the Navigation and Resource Timing entries.
_PHASES = """
() => {
  const nav = performance.getEntriesByType('navigation')[0];
  const res = performance.getEntriesByType('resource');
  const find = (test) => res.find((r) => test(r.name));
  const bundle = find((n) => n.includes('molstar') && n.includes('.js'));
  const data = find((n) => /\\/(artifacts\\/structure|structure\\.(bcif|cif))|\\.cif/.test(n)
                      || n.includes('/structure/file'));
  const at = (name) => {
    const entry = performance.getEntriesByName(name)[0];
    return entry ? entry.startTime : null;
  };
  return {
    html: nav.responseEnd, bundle: bundle ? bundle.responseEnd : null,
    fcp: at('first-contentful-paint'), run: at('structure:bundle'),
    create: at('structure:create'),
    load: at('structure:load'),
    dcl: nav.domContentLoadedEventEnd,
    data_start: data ? data.startTime : null, data_end: data ? data.responseEnd : null,
    pae: window.__pae === undefined ? null : window.__pae,
    ready: window.__ready === undefined ? null : window.__ready,
    drawn: window.__drawn === undefined ? null : window.__drawn,
    settled: window.__settled === undefined ? null : window.__settled,
    blocked: window.__blocked,
  };
}
"""


def free_port() -> int:
    """Return a free TCP port on loopback."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start(root: Path, workdir: Path) -> tuple[subprocess.Popen, str, dict]:
    """Seed a database with ``root``'s own code and serve it; return (process, url, demo)."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = {**os.environ, "FLASK_INSTANCE_PATH": str(workdir / "instance"),
           "FLASK_DATABASE_URL": f"sqlite:///{workdir / 'demo.sqlite3'}",
           "FLASK_ARTIFACT_DIR": str(workdir / "artifacts"),
           "FLASK_SECRET_KEY": "bench", "FLASK_PUBLIC_URL": url}
    flask = [sys.executable, "-m", "flask", "--app", "app"]
    subprocess.run([*flask, "init-db"], cwd=root, env=env, check=True, capture_output=True)
    # As a deployment does (README): every static file's brotli and gzip copy made before
    # serving, so the bytes are those a visitor gets (not gzip while brotli is being made).
    subprocess.run([*flask, "compress-static"], cwd=root, env=env, check=True,
                   capture_output=True)
    demo = json.loads(subprocess.run([*flask, "seed-demo", "--json"], cwd=root, env=env,
                                     check=True, capture_output=True, text=True).stdout)
    process = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "-c", str(root / "gunicorn.conf.py"), "--bind",
         f"127.0.0.1:{port}", "--workers", "2", "--threads", "4", "--access-logfile",
         "/dev/null", "--error-logfile", str(workdir / "gunicorn.log"), "wsgi:app"],
        cwd=root, env=env)
    for _ in range(300):
        try:
            if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                return process, url, demo
        except httpx.HTTPError:
            time.sleep(0.2)
    process.kill()
    raise RuntimeError(f"gunicorn of {root} did not start")


def structure_url(url: str, demo: dict) -> str:
    """Return the 3D page of the first protein_design result of the public link."""
    link = demo["share_links"]["public"]["id"]
    pipeline = demo["pipelines"]["protein_design"]
    first = httpx.get(f"{url}/compute/v1/share/{link}/pipelines/{pipeline}/results",
                      params={"limit": 1}, timeout=30).json()["data"][0]["id"]
    return f"{url}/share/{link}/pipelines/{pipeline}/results/{first}/structure"


def visit(context, url: str, profile: bool = False) -> dict:
    """Open ``url`` in a new tab of ``context``; return times, bytes and phases (and, with
    ``profile``, the main-thread milliseconds in Mol* and in "(program)")."""
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    urls, received = {}, {}
    cdp.on("Network.requestWillBeSent",
           lambda e: urls.__setitem__(e["requestId"], e["request"]["url"]))
    cdp.on("Network.loadingFinished",
           lambda e: received.__setitem__(e["requestId"], e["encodedDataLength"]))
    if profile:
        cdp.send("Profiler.enable")
        cdp.send("Profiler.setSamplingInterval", {"interval": 1000})
        cdp.send("Profiler.start")
    page.add_init_script(_READY_PROBE)
    page.goto(url)
    page.wait_for_function("window.__drawn !== undefined", timeout=120_000, polling=50)
    phases = page.evaluate(_PHASES)
    cpu = _molstar_time(cdp.send("Profiler.stop")["profile"]) if profile else {}
    # A visitor's next visit does not start while this tab's GPU work still runs: close
    # the tab only once the page's post-draw work is done (its frames come on time again).
    page.wait_for_function("window.__settled !== undefined", timeout=120_000, polling=50)
    phases["settled"] = page.evaluate("window.__settled")
    phases["gaps"] = page.evaluate("window.__gaps")
    time.sleep(0.3)  # let the last loadingFinished events arrive
    page.close()
    # data: and blob: URLs (the stock bundle's WebAssembly module) never touch the network.
    network = sum(size for rid, size in received.items()
                  if not urls.get(rid, "").startswith(("data:", "blob:")))
    return {"ready": phases["ready"], "bytes": network, "phases": phases, **cpu}


def _molstar_time(profile: dict) -> dict:
    """Sum a CPU profile's samples: those with a molstar.js frame on their stack, and the
    native "(program)" ones (compiling, layout, the GPU process's replies)."""
    nodes = {node["id"]: node for node in profile["nodes"]}
    parent = {child: node["id"] for node in profile["nodes"]
              for child in node.get("children", ())}
    in_molstar: dict[int, bool] = {}

    def molstar(node_id: int) -> bool:
        if node_id not in in_molstar:
            here = "molstar" in nodes[node_id]["callFrame"]["url"]
            up = parent.get(node_id)
            in_molstar[node_id] = here or (up is not None and molstar(up))
        return in_molstar[node_id]

    mol = program = 0.0
    for sample, delta in zip(profile["samples"], profile["timeDeltas"], strict=True):
        if molstar(sample):
            mol += delta / 1000
        elif nodes[sample]["callFrame"]["functionName"] == "(program)":
            program += delta / 1000
    return {"molstar_ms": mol, "program_ms": program}


def main() -> None:
    """Serve the checkouts, alternate first, repeat and sampled visits, print medians."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path, nargs="?", default=HERE)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--only", choices=("before", "after"))
    args = parser.parse_args()
    roots = {"before": args.before.resolve(), "after": args.after.resolve()}
    if args.only:
        roots = {args.only: roots[args.only]}
    from playwright.sync_api import sync_playwright

    runs: dict[str, dict[str, list]] = {
        n: {"first": [], "repeat": [], "sampled": []} for n in roots}
    with tempfile.TemporaryDirectory(prefix="bench-3d-") as tmp, sync_playwright() as pw:
        servers = {}
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=[
            "--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking"])
        try:
            for name, root in roots.items():
                (Path(tmp) / name).mkdir()
                process, url, demo = start(root, Path(tmp) / name)
                servers[name] = (process, structure_url(url, demo))
            for index in range(args.rounds + 1):
                order = list(servers) if index % 2 == 0 else list(servers)[::-1]
                for name in order:
                    context = browser.new_context(viewport={"width": 1280, "height": 900})
                    first = visit(context, servers[name][1])
                    repeat = visit(context, servers[name][1])
                    sampled = visit(context, servers[name][1], profile=True)
                    context.close()
                    if index:  # round 0 warms gunicorn's imports and templates
                        runs[name]["first"].append(first)
                        runs[name]["repeat"].append(repeat)
                        runs[name]["sampled"].append(sampled)
        finally:
            browser.close()
            for process, _url in servers.values():
                process.terminate()
                process.wait(timeout=20)
    _report(runs, roots, args.rounds)


def _median(values) -> float:
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else float("nan")


def _report(runs: dict, roots: dict, rounds: int) -> None:
    def med(visits, key, phase=True):
        return _median((v["phases"] if phase else v)[key] for v in visits)

    print(f"3D page, headless Chromium, medians of {rounds} rounds (ms since navigation)")
    print(f"{'checkout':8} {'cold pae':>9} {'cold drawn':>10} {'cold KB':>8} "
          f"{'warm pae':>9} {'warm drawn':>10} {'warm KB':>8} {'blocked':>8} "
          f"{'Mol* ms':>8} {'(program)':>9}")
    for name, visits in runs.items():
        first, repeat, sampled = visits["first"], visits["repeat"], visits["sampled"]
        print(f"{name:8} {med(first, 'pae'):9.0f} {med(first, 'drawn'):10.0f} "
              f"{med(first, 'bytes', False) / 1024:8.1f} {med(repeat, 'pae'):9.0f} "
              f"{med(repeat, 'drawn'):10.0f} {med(repeat, 'bytes', False) / 1024:8.1f} "
              f"{med(first, 'blocked'):8.0f} {med(sampled, 'molstar_ms', False):8.0f} "
              f"{med(sampled, 'program_ms', False):9.0f}  {roots[name]}")
    print("(blocked: long tasks of a cold visit until drawn; Mol* ms, (program): a sampled"
          " warm visit)")
    print("\nwhere a first visit's time goes (median ms since navigation start):")
    keys = ("html", "bundle", "dcl", "fcp", "pae", "run", "create", "load", "data_start",
            "data_end", "ready", "drawn", "settled")
    print(f"{'checkout':8} " + " ".join(f"{k:>10}" for k in keys))
    for name, visits in runs.items():
        print(f"{name:8} " + " ".join(f"{med(visits['first'], k):10.0f}" for k in keys))
    if len(runs) == 2:
        for what, key in (("cold", "first"), ("warm", "repeat")):
            for phase in ("pae", "drawn"):
                before = med(runs["before"][key], phase)
                after = med(runs["after"][key], phase)
                print(f"{what} {phase}, after/before: {after / before:.2f}")


if __name__ == "__main__":
    main()
