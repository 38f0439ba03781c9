"""200 concurrent visitors on the two-node cluster against the same balancer with one node.

Starts the cluster of ``tests/cluster`` (HAProxy with ``deploy/haproxy.cfg`` in front of
two gunicorn nodes of ``wsgi:app``, PostgreSQL 127.0.0.1:5432 db ``test`` in fresh schemas,
Redis 127.0.0.1:6379 under a fresh key prefix, one shared artifact directory), seeds the
demo, warms both nodes, then runs wrk (Debian's ``wrk``: ``apt-get install wrk``) with
``--connections`` visitors for ``--seconds`` over a page mix a visitor makes (overview,
results table, result page, an archive download), twice: both nodes in rotation, then
node B put in maintenance through HAProxy's admin socket (same balancer, one node).
Prints errors (socket errors and non-2xx/3xx answers), req/s, p50/p99 latency and how
often a health check took a node out, for each, and their ratios.

    .venv/bin/python bench/bench_cluster.py [--connections 200] [--seconds 30] [--workers 2]

On one machine the two nodes share its cores (and PostgreSQL, Redis, HAProxy and wrk run
there too): the second node adds workers, not CPU, so the ratio shows what the balancer and
shared state cost and that nothing fails under load, not what a second machine would add.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.support.cluster_harness import running_cluster

RESULT_LINK = re.compile(r'href="/share/[^/"]+/pipelines/[^/"]+/results/([A-Za-z0-9_]+)"')
# Requests out of every ten: what a visitor mostly does is read result pages.
MIX = {"overview": 2, "results": 3, "result": 4, "download": 1}

# wrk's Lua: each thread walks the mix in turn; done() prints one JSON line.
LUA = """
local paths = {%(paths)s}
local turn = 0
request = function()
  turn = turn + 1
  return wrk.format("GET", paths[(turn %% #paths) + 1])
end
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'WRK {"requests": %%d, "duration_us": %%d, "connect": %%d, "read": %%d, "write": %%d, ' ..
    '"status": %%d, "timeout": %%d, "p50_us": %%d, "p99_us": %%d}\\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(99)))
end
"""


def mix_paths(cluster) -> list[str]:
    """Return the request paths of the mix, each repeated by its weight."""
    link = cluster.demo["share_links"]["public"]["id"]
    pipeline = cluster.demo["pipelines"]["protein_design"]
    base = f"/share/{link}"
    results = f"{base}/pipelines/{pipeline}"
    page = httpx.get(f"{cluster.url}{results}", timeout=60)
    page.raise_for_status()
    result = f"{results}/results/{RESULT_LINK.search(page.text).group(1)}"
    paths = {"overview": base, "results": results, "result": result,
             "download": f"{result}/artifacts/archive"}
    for path in paths.values():
        httpx.get(f"{cluster.url}{path}", timeout=60).raise_for_status()
    return [paths[kind] for kind, weight in MIX.items() for _ in range(weight)]


def run_wrk(url: str, script: Path, connections: int, seconds: int) -> dict:
    """Run wrk once; return its JSON summary."""
    done = subprocess.run(
        ["wrk", "-t", "2", "-c", str(connections), "-d", f"{seconds}s", "--timeout", "30s",
         "-s", str(script), url], capture_output=True, text=True, check=True)
    line = next(line for line in done.stdout.splitlines() if line.startswith("WRK "))
    return json.loads(line[4:])


def checks_down(cluster) -> int:
    """Return how many times HAProxy's health checks have taken a node out so far."""
    return sum(int(row["chkdown"] or 0) for row in cluster.balancer.stat())


def describe(name: str, stats: dict, downs: int) -> dict:
    """Print one configuration's line and return its figures."""
    errors = sum(stats[k] for k in ("connect", "read", "write", "status", "timeout"))
    rate = stats["requests"] / (stats["duration_us"] / 1e6)
    figures = {"errors": errors, "rps": rate, "p50": stats["p50_us"] / 1000,
               "p99": stats["p99_us"] / 1000, "requests": stats["requests"]}
    print(f"{name:<22} {figures['requests']:>8} {errors:>7} {rate:>9.1f} "
          f"{figures['p50']:>9.1f} {figures['p99']:>9.1f} {downs:>6}", flush=True)
    return figures


def main() -> None:
    """Start the cluster, run both configurations, print the table and the ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--connections", type=int, default=200)
    parser.add_argument("--seconds", type=int, default=30)
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers per node")
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        sys.exit("wrk is needed: apt-get install -y wrk")
    workdir = Path(tempfile.mkdtemp(prefix="bench-cluster-"))
    try:
        with running_cluster(workdir, workers=args.workers) as cluster:
            paths = mix_paths(cluster)
            script = workdir / "mix.lua"
            script.write_text(LUA % {"paths": ", ".join(json.dumps(p) for p in paths)})
            print(f"{os.cpu_count()} cores; {args.workers} gunicorn workers x 4 threads a "
                  f"node; mix per 10 requests: {MIX}; {args.connections} connections, "
                  f"{args.seconds} s each", flush=True)
            run_wrk(cluster.url, script, 50, 5)  # warm-up: every worker's caches
            print(f"{'configuration':<22} {'requests':>8} {'errors':>7} {'req/s':>9} "
                  f"{'p50 ms':>9} {'p99 ms':>9} {'downs':>6}")
            downs = checks_down(cluster)
            stats = run_wrk(cluster.url, script, args.connections, args.seconds)
            two = describe("two nodes", stats, checks_down(cluster) - downs)
            cluster.balancer.set_maintenance("node_b", True)
            time.sleep(1)
            downs = checks_down(cluster)
            stats = run_wrk(cluster.url, script, args.connections, args.seconds)
            one = describe("one node (B in maint)", stats, checks_down(cluster) - downs)
            print("downs: times a health check took a node out during the run (aim 0)")
            print(f"two nodes / one node: req/s {two['rps'] / one['rps']:.2f}x, "
                  f"p50 {two['p50'] / one['p50']:.2f}x, p99 {two['p99'] / one['p99']:.2f}x")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
