"""Tools of the fault suite: a private PostgreSQL server that a test may stop and restart,
and a load generator that counts the statuses it gets.

Used by the suite's fixtures (``conftest.py``) and by ``restart_scenario``, which runs the
PostgreSQL restart against any checkout from the command line.
"""

from __future__ import annotations

import collections
import glob
import os
import shutil
import socket
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field

import httpx

# initdb and pg_ctl of the installed PostgreSQL (Debian keeps them off PATH).
PG_BIN_GLOB = "/usr/lib/postgresql/*/bin"


def pg_bin() -> str | None:
    """Return the directory of PostgreSQL's server binaries (newest version), if any."""
    found = sorted(glob.glob(f"{PG_BIN_GLOB}/initdb"), reverse=True)
    if found:
        return os.path.dirname(found[0])
    initdb = shutil.which("initdb")
    return os.path.dirname(initdb) if initdb else None


def free_port() -> int:
    """Return a TCP port free on loopback."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class PrivatePostgres:
    """A PostgreSQL server of one test: its own data directory and port."""

    bin_dir: str
    data_dir: str
    port: int
    log_path: str
    as_user: list[str] = field(default_factory=list)

    @property
    def url(self) -> str:
        """The SQLAlchemy URL of its ``postgres`` database."""
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"

    def pg_ctl(self, *args: str, timeout: float = 30) -> None:
        """Run ``pg_ctl`` on this server (as the ``postgres`` user when we are root)."""
        command = [*self.as_user, f"{self.bin_dir}/pg_ctl", "-D", self.data_dir,
                   "-l", self.log_path, *args]
        subprocess.run(command, check=True, timeout=timeout, stdout=subprocess.DEVNULL)

    def start(self) -> None:
        """Start the server and wait until it accepts connections."""
        options = (f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.data_dir} "
                   "-c fsync=off -c max_connections=100")
        self.pg_ctl("start", "-w", "-t", "30", "-o", options)

    def stop(self) -> None:
        """Stop the server the way an operator's restart does: fast (connections cut)."""
        self.pg_ctl("stop", "-w", "-t", "30", "-m", "fast")


@contextmanager
def private_postgres_server(bin_dir: str) -> Iterator[PrivatePostgres]:
    """Run a fresh PostgreSQL server on a free loopback port; remove it afterwards."""
    root = tempfile.mkdtemp(prefix="faults-pg-")
    as_user: list[str] = []
    if os.geteuid() == 0:
        # initdb refuses to run as root; the server runs as the postgres user instead.
        shutil.chown(root, "postgres")
        as_user = ["runuser", "-u", "postgres", "--"]
    data_dir = os.path.join(root, "data")
    try:
        subprocess.run([*as_user, f"{bin_dir}/initdb", "-D", data_dir, "-A", "trust",
                        "-U", "postgres", "-E", "UTF8", "--no-sync"],
                       check=True, timeout=60, stdout=subprocess.DEVNULL)
        server = PrivatePostgres(bin_dir, data_dir, free_port(),
                                 os.path.join(root, "server.log"), as_user)
        server.start()
        try:
            yield server
        finally:
            with suppress(subprocess.SubprocessError):
                server.pg_ctl("stop", "-w", "-t", "10", "-m", "immediate")
    finally:
        shutil.rmtree(root, ignore_errors=True)


@dataclass
class Load:
    """Threads that GET some URLs in a loop; ``counts`` holds (label, status) tallies.

    A transport failure (refused, reset) is counted with status 0: a fault must be
    answered, never end in a dropped connection.
    """

    targets: dict[str, str]
    threads: int = 4
    counts: collections.Counter = field(default_factory=collections.Counter)
    samples: dict = field(default_factory=dict)
    _stop: threading.Event = field(default_factory=threading.Event)
    _workers: list = field(default_factory=list)

    def _run(self, offset: int) -> None:
        labels = list(self.targets)
        with httpx.Client(timeout=15) as client:
            turn = offset
            while not self._stop.is_set():
                label = labels[turn % len(labels)]
                turn += 1
                try:
                    response = client.get(self.targets[label])
                except httpx.HTTPError:
                    self.counts[(label, 0)] += 1
                    continue
                self.counts[(label, response.status_code)] += 1
                self.samples.setdefault((label, response.status_code), response)

    def start(self) -> Load:
        """Start the threads."""
        for offset in range(self.threads):
            worker = threading.Thread(target=self._run, args=(offset,), daemon=True)
            worker.start()
            self._workers.append(worker)
        return self

    def stop(self) -> None:
        """Stop the threads and wait for their last requests."""
        self._stop.set()
        for worker in self._workers:
            worker.join(timeout=20)

    def statuses(self) -> collections.Counter:
        """Return the tally by status alone."""
        total: collections.Counter = collections.Counter()
        for (_label, status), count in self.counts.items():
            total[status] += count
        return total

    def snapshot(self) -> collections.Counter:
        """Return a copy of the tallies so far (to tell phases of a run apart)."""
        return collections.Counter(self.counts)


