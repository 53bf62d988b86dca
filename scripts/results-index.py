#!/usr/bin/env python3
"""Checks docs/results/README.md, the index of docs/results, against the
folder and the tree (ctest test_results_index):

- every file under docs/results has exactly one row, and every row's file
  is there (rows under "Cited, not yet committed" name files still to come:
  such a file must not exist yet; the rows of the "Measured" table, between
  its markers, name figures, not files);
- the row of an .h5 file names, in its "made by" cell, the revision (7
  characters; the whole text where it is not a clean one), the device(s)
  and the date the file records (tool_version, /devices, start_time);
- every `docs/results/...` path a tracked file cites exists (globs must
  match), and so do the markdown links and the backquoted names of results
  files in the docs under docs/results (relative to the doc, to
  docs/results or to the source root). The raw records of gpu-runs/ (all
  but their README.md) are left as they came back from their run.

Reads .h5 files with h5py only. Prints one line per problem and exits 1;
exits 0 when all hold.

usage: results-index.py [SOURCE_DIR]"""

import glob
import os
import re
import subprocess
import sys

import h5py

RESULTS = os.path.join("docs", "results")
INDEX = os.path.join(RESULTS, "README.md")
PENDING_HEADING = "## Cited, not yet committed"
CITED = re.compile(r"docs/results/[A-Za-z0-9_.*/-]*")
LINK = re.compile(r"\]\(([^)\s]+)\)")
QUOTED = re.compile(r"`([^`\s]+)`")
CLEAN_REV = re.compile(r"^[0-9a-fA-F]{7,40}$")


def index_rows(top):
    """{path: (made_by, pending, line number)} of the index's table rows,
    and the problems of the rows themselves (a path named twice)."""
    rows, problems, pending, measured = {}, [], False, False
    with open(os.path.join(top, INDEX), encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if line.startswith("## "):
                pending = line.strip() == PENDING_HEADING
            # the "Measured" table (scripts/measured-table.py) lists figures, not files
            if line.startswith(("<!-- measured-table", "<!-- end of measured-table")):
                measured = line.startswith("<!-- measured-table")
            if measured or not line.startswith("| `"):
                continue
            cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
            path = cells[0].strip("`")
            if len(cells) != 4 or not all(cells):
                problems.append(f"{INDEX}:{n}: {path}: a row has 4 cells, none empty")
            elif path in rows:
                problems.append(f"{INDEX}:{n}: {path} has a row already (line {rows[path][2]})")
            else:
                rows[path] = (cells[2], pending, n)
    return rows, problems


def files_on_disk(top):
    out = []
    for d, dirs, names in os.walk(os.path.join(top, RESULTS)):
        dirs[:] = sorted(x for x in dirs if not x.startswith(".") and x != "__pycache__")
        rel = os.path.relpath(d, os.path.join(top, RESULTS))
        out += [os.path.normpath(os.path.join(rel, x)) for x in names if not x.startswith(".")]
    return sorted(out)


def _text(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def recorded(path):
    """(revision text, device text, date) as the file records them."""
    with h5py.File(path, "r", locking=False) as f:
        version = _text(f.attrs.get("tool_version", ""))
        date = _text(f.attrs.get("start_time", ""))[:10]
        dev = f["devices"][:]
    m = re.search(r"\(git ([^)]*)\)", version)
    rev = m.group(1) if m else version
    if CLEAN_REV.match(rev):
        rev = rev[:7]
    names = sorted({_text(x) for x in dev["name"]})
    gpus = len({_text(x) for x in dev["uuid"]})
    device = ", ".join(names) if gpus < 2 else f"{gpus} x " + ", ".join(names)
    return rev, device, date


def check_index(top):
    rows, problems = index_rows(top)
    disk = files_on_disk(top)
    for path in disk:
        if path not in rows:
            problems.append(f"{RESULTS}/{path}: no row in {INDEX}")
    for path, (made_by, pending, n) in rows.items():
        full = os.path.join(top, RESULTS, path)
        if pending:
            if os.path.exists(full):
                problems.append(
                    f"{INDEX}:{n}: {path} is committed now: move its row from "
                    f'"{PENDING_HEADING[3:]}" into the table it belongs to'
                )
            continue
        if not os.path.exists(full):
            problems.append(f"{INDEX}:{n}: {path}: no such file in {RESULTS}")
            continue
        if not path.endswith(".h5"):
            continue
        try:
            want = recorded(full)
        except (OSError, KeyError, ValueError) as e:
            problems.append(f"{RESULTS}/{path}: cannot read its revision and devices: {e}")
            continue
        missing = [w for w in want if w not in made_by]
        if missing:
            problems.append(
                f"{INDEX}:{n}: {path}: the made-by cell must name "
                f"{', '.join(repr(w) for w in missing)} (the file records revision "
                f"{want[0]!r}, device {want[1]!r}, date {want[2]!r})"
            )
    pending = {p for p, r in rows.items() if r[1]}
    return problems, len(disk), pending


def tracked_files(top):
    try:
        out = subprocess.run(
            ["git", "-C", top, "ls-files", "-z"], capture_output=True, check=True
        ).stdout
        return [p for p in out.decode().split("\0") if p]
    except (OSError, subprocess.CalledProcessError):
        skip = {".git", "venv", "__pycache__"}
        found = []
        for d, dirs, names in os.walk(top):
            dirs[:] = [x for x in dirs if x not in skip and not x.startswith("build")]
            found += [os.path.relpath(os.path.join(d, x), top) for x in names]
        return found


def is_raw_record(path):
    return path.startswith(f"{RESULTS}/gpu-runs/") and os.path.basename(path) != "README.md"


def exists(top, rel, pending):
    rel = rel.rstrip(".")
    if rel.startswith(f"{RESULTS}/") and rel[len(RESULTS) + 1 :] in pending:
        return True
    full = os.path.join(top, rel)
    if "*" in rel:
        return bool(glob.glob(full, recursive=True))
    return os.path.exists(full)


def read_text(top, path):
    """A tracked file's text, or None for a raw record of a run or a binary file."""
    if is_raw_record(path) or path.endswith(".h5"):
        return None
    try:
        with open(os.path.join(top, path), encoding="utf-8") as f:
            return f.read()
    except (OSError, UnicodeDecodeError):
        return None


def cited_paths(path, text):
    """(offset, path from the source root) of each docs/results path a file
    cites, and of each markdown link of a .md file that leads there."""
    cites = [(m.start(), m.group(0)) for m in CITED.finditer(text)]
    if path.endswith(".md"):
        for m in LINK.finditer(text):
            target = m.group(1).split("#")[0]
            rel = os.path.normpath(os.path.join(os.path.dirname(path), target))
            if target and ":" not in target and rel.startswith(RESULTS):
                cites.append((m.start(), rel))
    return cites


def quoted_names(path, text, names):
    """(offset, name) of each backquoted name of a results file in a doc under docs/results."""
    if not (path.endswith(".md") and path.startswith(RESULTS)):
        return []
    found = [(m.start(), m.group(1).rstrip(".,")) for m in QUOTED.finditer(text)]
    return [(at, n) for at, n in found if not n.startswith("/") and os.path.basename(n) in names]


def check_citations(top, pending):
    problems, count = [], 0
    names = {os.path.basename(p) for p in files_on_disk(top) + sorted(pending)}
    for path in tracked_files(top):
        text = read_text(top, path)
        if text is None:
            continue
        here = os.path.dirname(path)
        for at, rel in cited_paths(path, text):
            count += 1
            if not exists(top, rel, pending):
                line = text.count("\n", 0, at) + 1
                problems.append(f"{path}:{line}: cites {rel}, which does not exist")
        for at, name in quoted_names(path, text, names):
            count += 1
            bases = (here, RESULTS, "")
            if not any(
                exists(top, os.path.normpath(os.path.join(b, name)), pending) for b in bases
            ):
                line = text.count("\n", 0, at) + 1
                problems.append(
                    f"{path}:{line}: names `{name}`, found neither beside it, in {RESULTS} "
                    "nor from the source root"
                )
    return problems, count


def main(argv):
    top = os.path.abspath(
        argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    )
    problems, n_files, pending = check_index(top)
    cited, n_cited = check_citations(top, pending)
    problems += cited
    for p in problems:
        print(p)
    print(
        f"results-index: {n_files} files in {RESULTS}, {n_cited} citations checked, "
        f"{len(problems)} problem(s)"
    )
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
