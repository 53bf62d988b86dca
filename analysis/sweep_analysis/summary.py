"""The report's opening: a Summary that fits one screen (SUMMARY_LINES lines
of report.md at most), and the claim cells compacted to a range and the
weakest case (the full figures stay in the section *Course claims in full*).
Pure functions over texts and the report's findings: no file access.
"""

from __future__ import annotations

import re

from . import budget, claims

SUMMARY_LINES = 40  # report.md lines of the Summary section, heading included
CELL = 100  # characters of a compacted claim cell at most
FULL_CLAIMS = "Course claims in full"

_NUM = r"x?-?\d[\d.]*(?:e[+-]?\d+)?"
_RUN = re.compile(rf"{_NUM}(?:, {_NUM}){{4,}}")  # five or more numbers in a row
_EFFECT = re.compile(r"(-?[\d.,]+(?:e[+-]?\d+)?)x \[(-?[\d.,e+-]+), (-?[\d.,e+-]+)\]")
_MORE = re.compile(r" \(\+(\d+) more\)$")
_CC = re.compile(r"^CC (\d+\.\d+): (.*)$")


def _num(s: str) -> float:
    return float(s.lstrip("x").replace(",", ""))


def _collapse_runs(text: str) -> str:
    """A run of five or more numbers becomes its range and count."""

    def one(m):
        vals = m.group(0).split(", ")
        nums = [_num(v) for v in vals]
        x = "x" if vals[0].startswith("x") else ""
        lo, hi = min(nums), max(nums)
        if lo == hi:
            return f"{x}{vals[0].lstrip('x')} (x{len(vals)})"
        return f"{x}{lo:g}..{x}{hi:g} ({len(vals)} values)"

    return _RUN.sub(one, text)


def _merge_ccs(parts: list) -> list:
    """Parts 'CC a: T' with the same T become one 'CC a, b, ...: T'."""
    out, seen = [], {}
    for p in parts:
        m = _CC.match(p)
        if not m:
            out.append(p)
            continue
        if m.group(2) in seen:
            seen[m.group(2)].append(m.group(1))
        else:
            seen[m.group(2)] = [m.group(1)]
            out.append((m.group(2),))
    return [p if isinstance(p, str) else f"CC {_cc_range(seen[p[0]])}: {p[0]}" for p in out]


def _cc_range(ccs: list) -> str:
    return ccs[0] if len(ccs) == 1 else f"{ccs[0]}..{ccs[-1]} ({len(ccs)} CCs)"


def compact(text: str, limit: int = CELL) -> str:
    """A claim cell in at most about `limit` characters: kept when short;
    else the range of its effects and the weakest one (the lowest interval),
    runs of numbers as their range, CCs with the same figures merged, and
    what still does not fit counted."""
    text = str(text)
    if len(text) <= limit:
        return text
    more = _MORE.search(text)
    hidden = int(more.group(1)) if more else 0
    body = text[: more.start()] if more else text
    parts = body.split("; ")
    effects = [(p, _EFFECT.search(p)) for p in parts]
    effects = [(p, m) for p, m in effects if m]
    if len(effects) >= 2:
        ratios = [_num(m.group(1)) for _, m in effects]
        weakest, wm = min(effects, key=lambda e: _num(e[1].group(2)))
        n = len(effects) + hidden
        rest = [p for p in parts if not _EFFECT.search(p)]
        head = f"{rest[0]}; " if rest and len(rest[0]) < 50 else ""
        label = weakest[: wm.start()].rstrip(": ")
        label = label if len(label) <= 40 else label[:39] + "…"
        label = f" {label}:" if label else ""
        return f"{head}{n} cases, {min(ratios):g}x..{max(ratios):g}x; weakest{label} {wm.group(0)}"
    parts = _merge_ccs([_collapse_runs(p) for p in parts])
    whole = "; ".join(parts)
    if len(whole) <= 1.8 * limit and not hidden:  # its runs of numbers as ranges, CCs merged
        return whole
    out, n = [], len(parts) + hidden
    for p in parts:
        if len("; ".join([*out, p])) > limit - 12 and out:
            break
        out.append(p)
    left = n - len(out)
    return "; ".join(out) + (f" (+{left} more)" if left else "")


def claims_line(results) -> tuple:
    """(the verdicts counted, bullets for the claims that do not hold)."""
    verdicts = [v for _, v in results]

    def count(basis):
        vs = [v.verdict for v in verdicts if v.basis == basis]
        return f"{vs.count('holds')} hold, {vs.count('differs')} differ"

    absent = sum(v.verdict == claims.ABSENT for v in verdicts)
    line = (
        f"**Course claims** ({len(verdicts)}): measured {count('measured')}; model "
        f"{count('model')}; {claims.RULE_ITSELF} {count(claims.RULE_ITSELF)}; {absent} not in "
        f"these files."
    )
    bad = [
        f"{c.id} differs ({v.basis}): {c.statement}"
        for c, v in results
        if v.verdict == claims.DIFFERS
    ]
    return line, bad


def budget_lines(rows) -> list:
    """Per file: timed / wall, and the largest phases around the samples."""
    out = []
    heads = budget.HEADINGS
    for cells in budget.table(rows):
        if cells[1] != "all":
            continue
        label, wall, timed = cells[0], cells[3], cells[4]
        ratio = cells[-1]
        phases = {h: c for h, c in zip(heads[5:], cells[5:-1]) if c != "-"}
        if phases:
            top = sorted(phases.items(), key=lambda kv: -float(kv[1]))[:3]
            over = "largest other phases: " + ", ".join(f"{h} {c} s" for h, c in top)
        else:
            over = "no phase columns in this file (timed against wall only)"
        out.append(f"{label}: {timed} s timed of {wall} s wall ({ratio} of it); {over}")
    return out


def _uuids(frame, k=4) -> str:
    """Full UUIDs with speeds (against the class's median GPU or the
    reference: 0.8 = 1.25x its time), the first k, the rest counted."""
    parts = [f"`{g['uuid']}` (speed {g['speed']:.3f})" for _, g in frame.head(k).iterrows()]
    return ", ".join(parts) + (f" (+{len(frame) - k} more)" if len(frame) > k else "")


def classes_line(facts, scaling="") -> str:
    """The device classes of the files with their GPU counts."""
    classes = facts["classes"]
    if not classes:
        return "none: no GPU rows (model rows only)"
    emu = " (emulated)" if facts["emulated"] else ""
    parts = [f"{c} ({n} GPU{'s' if n != 1 else ''})" for c, n in classes.items()]
    return ", ".join(parts) + emu + (f"; {scaling}" if scaling else "")


def rows_line(runs) -> str:
    """The kinds of row the files hold, counted: measured, emulated, modelled
    (CC targets and device targets apart)."""
    m = e = cc = dev = 0
    names = []
    for r in runs:
        a = r.all_rows
        m += int((a["backend"] == "cuda").sum())
        e += int((a["backend"] == "replay").sum())
        model = a[a["backend"] == "model"]
        target = model["model_device"].fillna("") != ""
        dev += int(target.sum())
        cc += int((~target).sum())
        names += list(model.loc[target, "model_device"])
    devices = f" and {dev} for device targets ({', '.join(dict.fromkeys(names))})" if dev else ""
    return (
        f"{m} measured, {e} emulated (replay), {cc + dev} modelled ({cc} for CC targets{devices})"
    )


def fleet_text(facts) -> str:
    """What the fleet check compared and what it flagged, in one line: true
    for one GPU, one class of many GPUs and several classes."""
    classes, s, ref = facts["classes"], facts["speeds"], facts["against"]
    if not classes:
        return "nothing to compare: no GPU rows"
    parts = []
    if facts["gpus"] == 1:
        parts.append(f"one GPU ({next(iter(classes))}): no other GPU to compare it with")
    elif len(s):
        per = s.groupby("class")["uuid"].nunique()
        flagged = s[s["flagged"]]
        parts.append(
            f"{len(s)} GPUs of {len(per)} class(es) ("
            + ", ".join(f"{c}: {n}" for c, n in per.items())
            + ") each against its class's median GPU: "
            + (f"{len(flagged)} flagged, {_uuids(flagged)}" if len(flagged) else "none flagged")
        )
    single = [c for c, n in classes.items() if n == 1 and facts["gpus"] > 1]
    if single:
        parts.append(f"{', '.join(single)}: one GPU each, not compared with another")
    if facts["gpus"] > 1 and not len(s) and not single:
        parts.append("no two GPUs of a class ran the same points: not compared")
    if facts["reference"]:
        parts.append(_reference_text(facts["reference"], ref))
    for _, f in facts["floor"].iterrows():
        parts.append(
            f"ranks {f['ranks']} shared one GPU: their median time ratio {f['median']:.4f} "
            "(the noise floor)"
        )
    return "; ".join(parts)


def _reference_text(label, ref) -> str:
    if not len(ref):
        return f"reference {label}: it holds none of these GPU models' points, not compared"
    cls = ref[ref["uuid"] == ""]
    gpus = ref[ref["uuid"] != ""]
    below = gpus[gpus["below"]]
    text = f"against reference {label}: " + ", ".join(
        f"class {c['class']} {'below reference' if c['below'] else 'not below it'} "
        f"(speed {c['speed']:.3f})"
        for _, c in cls.iterrows()
    )
    if len(below):
        return text + f"; {len(below)} GPU(s) below reference, flagged: {_uuids(below)}"
    return text + f"; none of its {len(gpus)} GPU(s) below reference"


def checks_line(rows) -> str:
    """Whether the ok rows were checked: status 0 is the backend's, not the
    check's. The model's rows are predictions (no fill, launch or check ran);
    a measured family without a check hook compares nothing."""
    ok = rows[rows["status"] == 0]
    if not len(ok):
        return "**Checks**: no ok rows."
    none = ok["check_mode"].astype(str) == "none"
    model = none & (ok["backend"] == "model")
    hookless = sorted(ok.loc[none & (ok["backend"] != "model"), "family"].astype(str).unique())
    parts = []
    if model.any():
        parts.append(
            f"{int(model.sum())} model row(s) never checked: the model backend runs no fill, "
            "launch or check (predictions)"
        )
    if hookless:
        parts.append(
            f"{int((none & ~model).sum())} measured row(s) never checked: no check hook in "
            + ", ".join(hookless)
        )
    checked = int((~none).sum())
    head = f"**Checks**: {checked} of {len(ok)} ok row(s) checked against their CPU reference"
    return head + ("; " + "; ".join(parts) if parts else "") + "."
