"""This machine's processes as ``/proc`` tells them: parent, state and CPU time of each."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

TICKS = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class Process:
    """One live process: its parent's pid, its state letter (``Z``: a zombie) and the CPU
    seconds it has used (user and system)."""

    parent: int
    state: str
    cpu_seconds: float


def processes() -> dict[int, Process]:
    """Return every process readable now, by pid (one that ends while read is left out)."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        found[int(entry.name)] = Process(int(fields[1]), fields[0],
                                         (int(fields[11]) + int(fields[12])) / TICKS)
    return found
