#!/usr/bin/env python3
"""The "Measured" table of docs/results/README.md, made from the committed
result files: each row of docs/results/measured.toml names its figures'
sources and how each is computed (that file's head says how); this prints
the table, writes it into that page between its markers (--write), or fails
when the page's table differs from what the files give (--check, ctest
test_measured_table).
Reads the files through sweep_analysis.reader (the analysis venv).

usage: measured-table.py [--check | --write] [--source DIR]
exit: 0 done (or the table agrees), 1 the table differs, 2 a bad manifest
or a source file that does not give a value"""

import argparse
import difflib
import math
import os
import re
import sys

try:
    import tomllib
except ImportError:  # Python before 3.11
    sys.exit("measured-table: needs Python 3.11 or later (tomllib reads measured.toml)")

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(TOP, "analysis"))  # without the venv's install

from sweep_analysis import reader  # noqa: E402

RESULTS = os.path.join("docs", "results")
MANIFEST = os.path.join(RESULTS, "measured.toml")
PAGE = os.path.join(RESULTS, "README.md")  # the page that holds the table
BEGIN = (
    "<!-- measured-table: made by scripts/measured-table.py from docs/results/measured.toml; "
    "edit that, then run the script with --write -->"
)
END = "<!-- end of measured-table -->"
MIN_NS = 100e3  # points compared across two files: 100 us or more, as median-ratios.py
PLACEHOLDER = re.compile(r"\{(\w+)\}")


class ManifestError(Exception):
    pass


class Sources:
    """The files rows read, each read once; paths relative to docs/results."""

    def __init__(self, top):
        self.top = top
        self.runs = {}

    def path(self, name):
        p = os.path.join(self.top, RESULTS, name)
        if not os.path.exists(p):
            raise ManifestError(f"{RESULTS}/{name}: no such file")
        return p

    def run(self, name):
        if name not in self.runs:
            try:
                self.runs[name] = reader.read(self.path(name))
            except reader.SweepFileError as e:
                raise ManifestError(str(e)) from None
        return self.runs[name]

    def text(self, name):
        with open(self.path(name), encoding="utf-8") as f:
            return f.read()

    def made_by(self, name):
        """`name` (revision, device, date) for a result file, `name` otherwise."""
        if not name.endswith(".h5"):
            return f"`{name}`"
        run = self.run(name)
        m = re.search(r"\(git ([^)]*)\)", run.attrs.get("tool_version", ""))
        rev = m.group(1) if m else "unknown"
        rev = "no revision" if rev == "unknown" else re.sub(r"^([0-9a-f]{7})[0-9a-f]*", r"\1", rev)
        gpus = run.devices.drop_duplicates("uuid")
        names = ", ".join(sorted(set(gpus["name"])))
        device = names if len(gpus) < 2 else f"{len(gpus)} x {names}"
        return f"`{name}` ({rev}, {device}, {run.attrs.get('start_time', '')[:10]})"


def select(run, where, what):
    rows = run.rows
    for k, v in where.items():
        if k not in rows:
            raise ManifestError(f"{what}: {run.label} has no column {k}")
        rows = rows[rows[k] == v]
    if len(rows) != 1:
        raise ManifestError(f"{what}: {len(rows)} rows of {run.label} match {where}, not one")
    return rows.iloc[0]


def column_value(row, column, what):
    parts = [c.strip() for c in column.split("/")]
    vals = []
    for c in parts:
        if c not in row:
            raise ManifestError(f"{what}: no column {c}")
        vals.append(float(row[c]))
    return vals[0] / vals[1] if len(vals) == 2 else vals[0]


def steps(spec, over, what):
    """The (row, over-row) selections of a speed or time value, one per list element."""
    lengths = {len(v) for d in (spec, over) for v in d.values() if isinstance(v, list)}
    if len(lengths) > 1:
        raise ManifestError(f"{what}: lists of different lengths")
    n = lengths.pop() if lengths else 1

    def at(d, i):
        return {k: (v[i] if isinstance(v, list) else v) for k, v in d.items()}

    return [(at(spec, i), at(over, i)) for i in range(n)]


def ratio_values(src, v, what):
    kind = "speed" if "speed" in v else "time"
    run = src.run(v["file"])
    where = v.get("where", {})
    out = []
    for mine, theirs in steps(v[kind], v["over"], what):
        a = select(run, {**where, **mine}, what)
        b = select(run, {**where, **theirs}, what)
        if a["status"] != 0 or b["status"] != 0:
            raise ManifestError(f"{what}: a row it compares is not ok")
        r = b["median_ns"] / a["median_ns"]
        out.append(r if kind == "speed" else 1 / r)
    return out


def medians(run):
    ok = run.rows[run.rows["status"] == 0]
    return dict(zip(ok["point_id"], ok["median_ns"]))


def two_file(src, v, what):
    if len(v.get("files", [])) != 2:
        raise ManifestError(f"{what}: `files` names two files, the old one first")
    old, new = (medians(src.run(f)) for f in v["files"])
    r = [new[p] / old[p] for p in old if p in new and old[p] >= MIN_NS]
    if not r:
        raise ManifestError(f"{what}: no point of 100 us or more in both files")
    if v["measure"] == "compared":
        return len(r)
    if v["measure"] == "moved":
        return sum(abs(x - 1) > v["limit"] for x in r)
    return 100 * max(abs(x - 1) for x in r)


def measure_value(src, v, what):
    m = v["measure"]
    if m in ("compared", "moved", "max_change_pct"):
        return two_file(src, v, what)
    run = src.run(v["file"])
    if m == "points":
        return len(run.rows)
    if m == "wall_s":
        return float(run.attrs["end_unix"]) - float(run.attrs["start_unix"])
    if m == "timed_wall":
        rows = run.rows[run.rows["backend"] == "cuda"]
        return rows["timed_s"].sum() / (rows["end_unix"] - rows["start_unix"]).sum()
    raise ManifestError(f"{what}: unknown measure {m!r}")


def fmt(x, spec, what):
    if isinstance(x, float) and not math.isfinite(x):
        raise ManifestError(f"{what}: the value is {x}")
    return format(int(round(x)), spec) if spec.endswith("d") else format(float(x), spec)


def value_text(src, v, what):
    if "quote" in v:
        text = src.text(v["file"])
        if v["context"] not in text or v["quote"] not in v["context"]:
            raise ManifestError(
                f"{what}: {v['file']} no longer says {v['context']!r} (or it lacks {v['quote']!r})"
            )
        return v["quote"]
    spec = v.get("format", "g")
    if "speed" in v or "time" in v:
        vals = ratio_values(src, v, what)
        if v.get("join") == "range":
            return f"{fmt(min(vals), spec, what)}-{fmt(max(vals), spec, what)}"
        return v.get("join", ", ").join(fmt(x, spec, what) for x in vals)
    if "column" in v:
        return fmt(
            column_value(select(src.run(v["file"]), v["where"], what), v["column"], what),
            spec,
            what,
        )
    if "measure" in v:
        return fmt(measure_value(src, v, what), spec, what)
    raise ManifestError(f"{what}: neither quote, speed, time, column nor measure")


def row_cells(src, i, row):
    values, files = {}, []
    for name, v in row.get("values", {}).items():
        what = f"{MANIFEST}, row {i} ({row.get('what', '?')[:40]}...), value {name}"
        try:
            values[name] = value_text(src, v, what)
        except KeyError as e:
            raise ManifestError(f"{what}: no {e}") from None
        for f in v.get("files", [v.get("file")]):
            if f and f not in files:
                files.append(f)
    used = set()

    def fill(m):
        if m.group(1) not in values:
            raise ManifestError(f"{MANIFEST}, row {i}: no value {m.group(1)}")
        used.add(m.group(1))
        return values[m.group(1)]

    cells = [PLACEHOLDER.sub(fill, row["what"]), PLACEHOLDER.sub(fill, row["figure"])]
    if set(values) - used:
        raise ManifestError(
            f"{MANIFEST}, row {i}: values never shown: {sorted(set(values) - used)}"
        )
    return cells + ["; ".join(src.made_by(f) for f in files)]


def table(top):
    with open(os.path.join(top, MANIFEST), "rb") as f:
        try:
            rows = tomllib.load(f).get("row", [])
        except tomllib.TOMLDecodeError as e:
            raise ManifestError(f"{MANIFEST}: {e}") from None
    src = Sources(top)
    lines = [BEGIN, "| what | figure | from (revision, device, date) |", "|---|---|---|"]
    lines += ["| " + " | ".join(row_cells(src, i, r)) + " |" for i, r in enumerate(rows, 1)]
    return lines + [END]


def page_parts(top):
    path = os.path.join(top, PAGE)
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    if BEGIN not in lines or END not in lines:
        raise ManifestError(f"{path}: no measured-table markers (the lines {BEGIN!r} and {END!r})")
    a, b = lines.index(BEGIN), lines.index(END)
    return path, lines[:a], lines[a : b + 1], lines[b + 1 :]


def main(argv=None):
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help=f"fail when {PAGE}'s table differs")
    mode.add_argument("--write", action="store_true", help=f"write the table into {PAGE}")
    ap.add_argument("--source", default=TOP, help="the source tree (default: this script's)")
    a = ap.parse_args(argv)
    try:
        made = table(a.source)
        if not (a.check or a.write):
            print("\n".join(made))
            return 0
        path, head, now, tail = page_parts(a.source)
    except ManifestError as e:
        print(f"measured-table: {e}", file=sys.stderr)
        return 2
    if a.write:
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(head + made + tail))
        return 0
    if now == made:
        print(f"measured-table: {PAGE}'s table agrees with the files ({len(made) - 4} rows)")
        return 0
    sys.stdout.writelines(
        difflib.unified_diff(
            [x + "\n" for x in now], [x + "\n" for x in made], PAGE, "from the files"
        )
    )
    print(
        f"measured-table: {PAGE}'s Measured table differs from what the files give: "
        "run scripts/measured-table.py --write (after changing docs/results/measured.toml)"
    )
    return 1


if __name__ == "__main__":
    sys.exit(main())
