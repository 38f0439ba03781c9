"""A two-node Share Viewer cluster on loopback: HAProxy in front of two gunicorn nodes.

The nodes share what a real deployment shares (docs/deploy.md): one PostgreSQL database
(a fresh schema for the API and one for the viewer store, dropped afterwards), Redis for
sessions and sign-in limits (a key prefix of this run alone, deleted afterwards), one
artifact store, the secret key and the JWT keys. Each node has its own instance folder,
as a separate machine would. HAProxy runs ``deploy/haproxy.cfg``, the file operators use.

Used by ``tests/cluster`` (fixtures) and ``bench/bench_cluster.py``.
"""

from __future__ import annotations

import csv
import io
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import redis
import sqlalchemy as sa
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tests.support.polling import wait_until

ROOT = Path(__file__).resolve().parents[2]
HAPROXY_CONFIG = ROOT / "deploy" / "haproxy.cfg"
# The PostgreSQL and Redis every CI machine has (see the Makefile); override to point elsewhere.
PG_URL = os.environ.get("CLUSTER_DATABASE_URL",
                        "postgresql+psycopg://postgres@127.0.0.1:5432/test")
REDIS_URL = os.environ.get("CLUSTER_REDIS_URL", "redis://127.0.0.1:6379/0")
START_TIMEOUT = 90


def free_port() -> int:
    """Return a TCP port free on loopback."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def postgres_schemas(*names: str) -> Iterator[dict[str, str]]:
    """Create fresh schemas in the shared database; yield a URL per name; drop them after.

    Random schema names keep parallel runs (xdist workers, two checkouts) apart.
    """
    token = secrets.token_hex(5)
    schemas = {name: f"cluster_{token}_{name}" for name in names}
    admin = sa.create_engine(PG_URL)
    try:
        with admin.begin() as conn:
            for schema in schemas.values():
                conn.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
        separator = "&" if "?" in PG_URL else "?"
        yield {name: f"{PG_URL}{separator}options=-csearch_path%3D{schema}"
               for name, schema in schemas.items()}
    finally:
        with admin.begin() as conn:
            for schema in schemas.values():
                conn.execute(sa.text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
        admin.dispose()


def delete_redis_keys(prefix: str) -> None:
    """Delete every Redis key of this run (the limits library puts the prefix mid-key)."""
    client = redis.Redis.from_url(REDIS_URL)
    try:
        keys = list(client.scan_iter(match=f"*{prefix}*", count=1000))
        if keys:
            client.delete(*keys)
    finally:
        client.close()


def jwt_key_pair() -> tuple[str, str]:
    """Return a fresh Ed25519 key pair as PEM text (private, public): one for all nodes."""
    key = Ed25519PrivateKey.generate()
    private = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption()).decode()
    public = key.public_key().public_bytes(serialization.Encoding.PEM,
                                           serialization.PublicFormat.SubjectPublicKeyInfo)
    return private, public.decode()


@dataclass
class Node:
    """One gunicorn node (its own process group, port and instance folder)."""

    name: str
    port: int
    env: dict
    log_path: Path
    workers: int
    process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        """Base URL of the node itself (bypassing the balancer)."""
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        """Start gunicorn serving ``wsgi:app``; ``wait_ready`` waits for it."""
        command = [sys.executable, "-m", "gunicorn", "-c", str(ROOT / "gunicorn.conf.py"),
                   "--bind", f"127.0.0.1:{self.port}", "--workers", str(self.workers),
                   "--access-logfile", str(self.log_path),
                   "--error-logfile", str(self.log_path), "wsgi:app"]
        # A session of its own, so that killing the node kills its workers with the master.
        self.process = subprocess.Popen(command, cwd=ROOT, env=self.env,
                                        start_new_session=True, stdout=subprocess.DEVNULL)

    def wait_ready(self, timeout: float = START_TIMEOUT) -> None:
        """Wait until ``/readyz`` answers 200 (database, viewer store and API reachable)."""
        def ready() -> bool:
            if self.process.poll() is not None:
                raise RuntimeError(f"node {self.name} exited:\n{self.log_text()[-3000:]}")
            try:
                return httpx.get(f"{self.url}/readyz", timeout=2).status_code == 200
            except httpx.HTTPError:
                return False
        if not wait_until(ready, timeout, 0.2):
            raise RuntimeError(f"node {self.name} not ready in {timeout} s:\n"
                               f"{self.log_text()[-3000:]}")

    def kill(self) -> None:
        """Kill the node at once, master and workers (SIGKILL: a machine that dies)."""
        with suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        """Stop the node gracefully, killing it if it takes too long."""
        if self.process is None or self.process.poll() is not None:
            return
        with suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.kill()

    def log_text(self) -> str:
        """Return what the node has logged so far."""
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""


@dataclass
class Balancer:
    """HAProxy running ``deploy/haproxy.cfg`` in front of the nodes."""

    port: int
    admin_socket: Path
    log_path: Path
    process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        """Base URL of the cluster, as visitors see it."""
        return f"http://127.0.0.1:{self.port}"

    def start(self, nodes: dict[str, Node]) -> None:
        """Start HAProxy in the foreground with the nodes' addresses in its environment."""
        env = {**os.environ, "SV_BIND": f"127.0.0.1:{self.port}",
               "SV_ADMIN_SOCKET": str(self.admin_socket), "SV_LOG_TARGET": "stdout",
               # Each node serves workers x threads requests at once (gunicorn.conf.py).
               "SV_NODE_MAXCONN": str(max(node.workers for node in nodes.values())
                                      * int(os.environ.get("GUNICORN_THREADS", 4))),
               **{f"SV_NODE_{name.upper()}": f"127.0.0.1:{node.port}"
                  for name, node in nodes.items()}}
        haproxy = shutil.which("haproxy") or "/usr/sbin/haproxy"
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen([haproxy, "-db", "-f", str(HAPROXY_CONFIG)],
                                            env=env, stdout=log, stderr=subprocess.STDOUT)

    def command(self, line: str) -> str:
        """Send one command to HAProxy's admin socket; return its answer."""
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(5)
            sock.connect(str(self.admin_socket))
            sock.sendall(line.encode() + b"\n")
            chunks = []
            while chunk := sock.recv(65536):
                chunks.append(chunk)
        return b"".join(chunks).decode()

    def stat(self) -> list[dict]:
        """Return HAProxy's ``show stat`` rows of the nodes (one dict per server)."""
        rows = csv.DictReader(io.StringIO(self.command("show stat").lstrip("# ")))
        return [row for row in rows
                if row["pxname"] == "nodes" and row["svname"] not in ("FRONTEND", "BACKEND")]

    def server_states(self) -> dict[str, str]:
        """Return each server's state as HAProxy's checks see it (``UP``, ``DOWN``, ...)."""
        try:
            return {row["svname"]: row["status"] for row in self.stat()}
        except OSError:
            return {}

    def wait_state(self, server: str, state: str, timeout: float = 30) -> float:
        """Wait until ``server``'s state is ``state``; return when (monotonic seconds).

        Exactly: ``UP 1/2`` is a server going down, ``DOWN 1/2`` one coming back.
        """
        if not wait_until(lambda: self.server_states().get(server) == state, timeout, 0.02):
            raise AssertionError(f"{server} not {state} within {timeout} s: "
                                 f"{self.server_states()}")
        return time.monotonic()

    def set_maintenance(self, server: str, on: bool) -> None:
        """Take ``server`` out of rotation (``on``) or put it back, as an operator would."""
        self.command(f"set server nodes/{server} state {'maint' if on else 'ready'}")

    def stop(self) -> None:
        """Stop HAProxy."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()

    def log_text(self) -> str:
        """Return HAProxy's log so far."""
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""


@dataclass
class Cluster:
    """The running cluster: nodes by name, the balancer, and the seeded demo."""

    nodes: dict[str, Node]
    balancer: Balancer
    env: dict
    redis_prefix: str
    demo: dict = field(default_factory=dict)

    @property
    def url(self) -> str:
        """The balancer's URL: where visitors go."""
        return self.balancer.url

    def flask(self, *args: str, instance: Path) -> str:
        """Run ``flask --app app ARGS`` with the nodes' configuration; return its stdout."""
        env = {**self.env, "FLASK_INSTANCE_PATH": str(instance)}
        done = subprocess.run([sys.executable, "-m", "flask", "--app", "app", *args], cwd=ROOT,
                              env=env, capture_output=True, text=True, timeout=300)
        if done.returncode != 0:
            raise RuntimeError(f"flask {' '.join(args)} failed:\n{done.stderr[-3000:]}")
        return done.stdout

    def restart(self, name: str) -> None:
        """Start a stopped or killed node again and wait until the balancer uses it."""
        node = self.nodes[name]
        node.start()
        node.wait_ready()
        self.balancer.wait_state(f"node_{name}", "UP")


def node_env(urls: dict[str, str], balancer_url: str, artifact_env: dict, redis_prefix: str,
             mail_port: int | None) -> dict:
    """Return the environment every node shares (the variables of docs/deploy.md)."""
    private_key, public_key = jwt_key_pair()
    env = {
        **os.environ,
        "FLASK_SECRET_KEY": f"cluster-{secrets.token_hex(16)}",
        "FLASK_JWT_PRIVATE_KEY": private_key,
        "FLASK_JWT_PUBLIC_KEY": public_key,
        "FLASK_DATABASE_URL": urls["api"],
        "FLASK_VIEWER_DATABASE_URL": urls["viewer"],
        "FLASK_RATELIMIT_STORAGE_URI": REDIS_URL,
        "FLASK_SESSION_STORE_URI": REDIS_URL,
        "FLASK_RATELIMIT_KEY_PREFIX": redis_prefix,
        "FLASK_PUBLIC_URL": balancer_url,
        "FLASK_TRUSTED_PROXY_COUNT": "1",
        **artifact_env,
    }
    if mail_port is not None:
        env.update(FLASK_MAIL_SERVER="127.0.0.1", FLASK_MAIL_PORT=str(mail_port))
    return env


@contextmanager
def running_cluster(workdir: Path, *, mail_port: int | None = None, workers: int = 2,
                    artifact_env: dict | None = None, names=("a", "b")) -> Iterator[Cluster]:
    """Start HAProxy and the nodes on loopback, seed the demo once; stop and clean up after.

    ``artifact_env`` configures the shared artifact store (default: one directory that
    every node uses, standing in for a network file system).
    """
    redis_prefix = f"sv-cluster-{secrets.token_hex(5)}"
    balancer = Balancer(free_port(), workdir / "haproxy.sock", workdir / "haproxy.log")
    artifact_env = artifact_env or {"FLASK_ARTIFACT_DIR": str(workdir / "artifacts")}
    with ExitStack() as stack:
        urls = stack.enter_context(postgres_schemas("api", "viewer"))
        stack.callback(delete_redis_keys, redis_prefix)
        env = node_env(urls, balancer.url, artifact_env, redis_prefix, mail_port)
        nodes = {}
        for name in names:
            instance = workdir / f"node-{name}"
            instance.mkdir(parents=True, exist_ok=True)
            nodes[name] = Node(name, free_port(), {**env, "FLASK_INSTANCE_PATH": str(instance)},
                               workdir / f"node-{name}.log", workers)
        cluster = Cluster(nodes, balancer, env, redis_prefix)
        seeder = workdir / "seeder"
        cluster.flask("init-db", instance=seeder)
        cluster.demo = json.loads(cluster.flask("seed-demo", "--json", instance=seeder))
        for node in nodes.values():
            stack.callback(node.stop)
            node.start()
        for node in nodes.values():
            node.wait_ready()
        stack.callback(balancer.stop)
        balancer.start(nodes)
        for name in nodes:
            balancer.wait_state(f"node_{name}", "UP")
        yield cluster
