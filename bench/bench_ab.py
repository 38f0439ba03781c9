"""Run one single-checkout bench script of two checkouts alternately and compare its figures.

Many scripts in ``bench/`` measure the checkout they live in (they put their own root first
on ``sys.path``). This driver runs ``BENCH`` (a path relative to each checkout's root, e.g.
``bench/bench_explore.py``) from BEFORE_ROOT and from AFTER_ROOT, one process at a time,
alternating B, A, B, A, ... for ``--rounds`` rounds per side, each process in its own
checkout's root with this interpreter. Load on the machine thus falls on both sides alike.

If the bench accepts ``--workdir`` (seen in its ``--help``), each side gets one workdir kept
across its rounds, so seeding happens once per checkout (in its first round); ``--workdirs
DIR`` keeps them in DIR (reused by a later run), otherwise in a temporary folder removed at
the end.

Figures are taken from what each process prints on stdout:

- a line ``head: 12.3 ms ...`` or ``words 12.3 ms ...``: every number in it after the head,
  named by the head, up to two words before the number in its clause (clauses end at
  ``, ; ( ) :``), its unit (the word after it, or an ``x`` glued to it) and up to two words
  after that in the clause, e.g. ``cold index build of 100,000 results: 12.3 s (8,130
  results/s); memory +300 MB`` gives ``... results: s``, ``... results: results/s`` and
  ``... results: memory MB``. A name printed several times in one process (e.g.
  alternated repeats) contributes every value.
- a JSON object printed on lines of its own: every numeric leaf, named by its dotted path.

It prints, per figure, the median of each side, the after/before ratio, and each side's
spread (max - min over its median, in %); ``apart`` says whether the two sides' ranges do
not overlap (a difference beyond the rounds' own noise). Each process's stdout is echoed to
stderr (and kept in ``--logs DIR`` if given); its stderr passes through unparsed. A process
that fails keeps the figures it printed before failing; the failures are listed last and
the driver exits 1.

Run from any checkout, e.g.::

    .venv/bin/python bench/bench_ab.py bench/bench_explore.py /tmp/old /work/wt-bench \\
        --rounds 2 -- --results 100000

(AFTER_ROOT defaults to this checkout; arguments after ``--`` go to the bench script.)
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent

NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![\d])")
UNIT = re.compile(r"(x\b|%)|\s+([A-Za-z][\w/%]*)")
WORD = re.compile(r"[A-Za-z][\w'/.]*")


def _clean(text: str) -> str:
    return " ".join(text.split())


def parse_line(line: str) -> list[tuple[str, float]]:
    """Return the (name, value) figures of one printed line (see the module docstring)."""
    line = line.rstrip()
    head_end = line.find(": ")
    if head_end >= 0 and NUMBER.search(line, head_end):
        head, start = line[:head_end], head_end + 1
    else:
        first = NUMBER.search(line)
        if first is None:
            return []
        head, start = line[:first.start()].rstrip(" +-"), first.start()
    head = _clean(head)
    figures: list[tuple[str, float]] = []
    position = start
    for match in NUMBER.finditer(line, start):
        clause = re.split(r"[,;():]", line[position:match.start()])[-1]
        before = WORD.findall(clause)[-2:]
        unit_match = UNIT.match(line, match.end())
        unit, position = "", match.end()
        if unit_match:
            unit, position = unit_match.group(1) or unit_match.group(2), unit_match.end()
        after = WORD.findall(re.split(r"[,;():\d]", line[position:])[0])[:2]
        name = _clean(f"{head}: {' '.join([*before, unit, *after])}")
        taken, base, count = {known for known, _ in figures}, name, 1
        while name in taken:  # the same words twice in one line: number them
            count += 1
            name = f"{base} #{count}"
        figures.append((name, float(match.group().replace(",", ""))))
    return figures


def _leaves(value, path: str):
    if isinstance(value, dict):
        for key, inner in value.items():
            yield from _leaves(inner, f"{path}.{key}" if path else str(key))
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        yield path, float(value)


def parse_output(text: str) -> dict[str, list[float]]:
    """Return every figure in a bench's stdout: its text lines and any JSON objects."""
    figures: dict[str, list[float]] = {}
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        line = lines[index]
        if line.startswith("{"):  # a JSON object: take the shortest span that parses
            for end in range(index, len(lines)):
                try:
                    obj = json.loads("\n".join(lines[index:end + 1]))
                except json.JSONDecodeError:
                    continue
                for name, value in _leaves(obj, "json"):
                    figures.setdefault(name, []).append(value)
                index = end + 1
                break
            else:
                index += 1
            continue
        for name, value in parse_line(line):
            figures.setdefault(name, []).append(value)
        index += 1
    return figures


def accepts_workdir(root: Path, bench: str) -> bool:
    """Whether ``bench`` of ``root`` takes ``--workdir`` (from its --help, else its source)."""
    try:
        out = subprocess.run([sys.executable, bench, "--help"], cwd=root, capture_output=True,
                             text=True, timeout=300).stdout
    except subprocess.TimeoutExpired:
        out = ""
    return "--workdir" in (out or (root / bench).read_text())


def run_once(root: Path, bench: str, extra: list[str],
             log: Path | None) -> tuple[str, float, int]:
    """Run the bench once in ``root``; echo its stdout to stderr (its stderr, logs and
    tracebacks, goes to ours unparsed); return (stdout, seconds, exit code)."""
    started = time.perf_counter()
    process = subprocess.Popen([sys.executable, bench, *extra], cwd=root, text=True,
                               stdout=subprocess.PIPE)
    captured = []
    assert process.stdout is not None
    for line in process.stdout:
        captured.append(line)
        print(f"    | {line}", end="", file=sys.stderr, flush=True)
    code = process.wait()
    seconds = time.perf_counter() - started
    text = "".join(captured)
    if log is not None:
        log.write_text(text)
    return text, seconds, code


def report(samples: dict[str, dict[str, list[float]]], rounds: int) -> None:
    """Print per figure the median of each side, after/before, spreads and ``apart``."""
    names = list(dict.fromkeys([*samples["before"], *samples["after"]]))
    width = max([len(name) for name in names] + [6])
    print(f"{'figure':{width}} {'before':>12} {'after':>12} {'after/before':>12} "
          f"{'spread B':>9} {'spread A':>9} {'apart':>5}  (medians of {rounds} rounds/side)")
    for name in names:
        before, after = samples["before"].get(name, []), samples["after"].get(name, [])
        if not before or not after:
            only = "before" if before else "after"
            print(f"{name:{width}} (printed by {only} only: {before or after})")
            continue
        b_med, a_med = statistics.median(before), statistics.median(after)
        ratio = f"{a_med / b_med:12.3f}" if b_med else f"{'-':>12}"

        def spread(values: list[float], med: float) -> str:
            return f"{(max(values) - min(values)) / abs(med) * 100:8.1f}%" if med else f"{'-':>9}"

        apart = max(before) < min(after) or max(after) < min(before)
        print(f"{name:{width}} {b_med:12.6g} {a_med:12.6g} {ratio} {spread(before, b_med)} "
              f"{spread(after, a_med)} {'yes' if apart else 'no':>5}")


def main() -> None:
    """Alternate the bench between the checkouts, then print the comparison."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("bench", help="bench script, relative to each checkout's root")
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path, nargs="?", default=HERE)
    parser.add_argument("--rounds", type=int, default=2, help="processes per side")
    parser.add_argument("--workdirs", type=Path, help="keep each side's --workdir here")
    parser.add_argument("--logs", type=Path, help="keep each process's output here")
    argv = sys.argv[1:]
    cut = argv.index("--") if "--" in argv else len(argv)
    args, extra = parser.parse_args(argv[:cut]), argv[cut + 1:]  # after --: the bench's
    roots = {"before": args.before.resolve(), "after": args.after.resolve()}
    for root in roots.values():
        if not (root / args.bench).is_file():
            parser.error(f"no {args.bench} in {root}")
    if args.logs:
        args.logs.mkdir(parents=True, exist_ok=True)
    temporary = None
    workdirs: dict[str, Path] = {}
    if all(accepts_workdir(root, args.bench) for root in roots.values()):
        base = args.workdirs or Path(temporary := tempfile.mkdtemp(prefix="bench-ab-"))
        workdirs = {side: base / side for side in roots}
    samples: dict[str, dict[str, list[float]]] = {side: {} for side in roots}
    failures: list[str] = []
    try:
        for index in range(args.rounds):
            for side, root in roots.items():
                side_extra = [*extra, "--workdir", str(workdirs[side])] if workdirs else extra
                print(f"round {index + 1}/{args.rounds} {side}: {root} {args.bench} "
                      f"{' '.join(side_extra)}", file=sys.stderr, flush=True)
                log = args.logs / f"{side}-{index + 1}.txt" if args.logs else None
                text, seconds, code = run_once(root, args.bench, side_extra, log)
                print(f"    ({seconds:.0f} s, exit {code})", file=sys.stderr, flush=True)
                if code != 0:  # its figures printed so far still count
                    failures.append(f"round {index + 1} {side} exited {code} "
                                    "(its stderr above says why)")
                for name, values in parse_output(text).items():
                    samples[side].setdefault(name, []).extend(values)
    finally:
        if temporary:
            shutil.rmtree(temporary, ignore_errors=True)
    print(f"{args.bench} {' '.join(extra)}: before {roots['before']}, after {roots['after']}")
    report(samples, args.rounds)
    for failure in failures:
        print(f"FAILED {failure}")
    if failures:
        sys.exit(1)


if __name__ == "__main__":
    main()
