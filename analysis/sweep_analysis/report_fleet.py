"""The report's sections on the GPUs: the fleet (which GPU is slow,
fleet.py: against its class's median GPU, and against a reference run),
and the clocks per rank with the per-device spread across files. The
device classes side by side are report_classes.py's."""

from __future__ import annotations

import pandas as pd

from . import figures, fleet
from .doc import Bullets, Heading, Para, Table
from .tables import (
    axes_text,
    device_spread,
    flag_ranks,
    fmt,
    rank_clocks,
    throttle_text,
)

LACKS_SHOWN = 10  # the points a note names that the reference lacks, at most


class FleetSections:
    """The fleet and the ranks (a mixin of report.Report)."""

    def fleet(self):
        """Which GPU is slow: each GPU against its class's median GPU (fleet.RULE)
        and, with a reference run, each GPU and class against it
        (fleet.REFERENCE_RULE); the noise floor where two ranks shared a GPU.
        Keeps what the Summary's Fleet line says (self.fleet_facts)."""
        s, ref, floor, notes = self._fleet_compared()
        self.fleet_facts = _facts(self.every, s, ref, floor, self.reference)
        if s.empty and floor.empty and ref.empty:
            if notes:
                self.add(Para("**Fleet.** " + " ".join(notes)))
            return
        self.add(Heading(2, "Fleet: which GPU is slow"))
        if notes:
            self.add(Para(" ".join(notes)))
        if len(s) or len(ref):
            self.flag_lines(s, ref)
        if len(s):
            self.fleet_table(s)
        if len(ref):
            self.reference_table(ref)
        for _, f in floor.iterrows():
            self.add(
                Para(
                    f"Noise floor: ranks {f['ranks']} shared GPU `{f['uuid']}`"
                    + (" (emulated)" if f["emulated"] else "")
                    + f" and ran each point on it: over {f['points']} points the ratio of their "
                    f"median times is {f['median']:.4f} in the median, and within "
                    f"{100 * f['p95']:.2f}% of 1 for 95% of the points."
                )
            )

    def _fleet_compared(self):
        """(each GPU against its class, each GPU and class against the
        reference, the noise floors, notes) over the files."""
        found, against, notes, floors = [], [], [], []
        for r in self.runs:
            rows, basis = fleet.fleet_rows(self.every[self.every["file"] == r.label])
            floors.append(fleet.repeats(rows).assign(file=r.label))
            if self.reference is not None and len(rows):
                got = fleet.reference_speeds(
                    rows, r.samples_of, self.reference_rows, self.reference.samples_of
                )
                if got.empty:
                    notes.append(
                        f"{r.label}: the reference {self.reference.label} holds no rows of its "
                        "GPU models on its points, so nothing is compared with it."
                    )
                notes.extend(self._lacking(got, rows, r.label))
                against.append(got.assign(file=r.label, basis=basis))
            if rows["uuid"].nunique() < 2:
                continue
            s = fleet.speeds(rows, r.samples_of)
            if s.empty:
                notes.append(
                    f"{r.label}: no device class has two GPUs that ran the same points, so no "
                    "GPU is compared with another."
                )
                continue
            found.append(s.assign(file=r.label, basis=basis))
        floor = pd.concat(floors, ignore_index=True)
        s = pd.concat(found, ignore_index=True) if found else pd.DataFrame()
        ref = pd.concat(against, ignore_index=True) if against else pd.DataFrame()
        return s, ref, floor, notes

    def _lacking(self, got, rows, label) -> list:
        """A note per class with points the reference has no row of: which
        points, by family, variant and axes (left out of the comparison)."""
        out = []
        for _, c in got[got["uuid"] == ""].iterrows() if len(got) else []:
            if not c["lacks"]:
                continue
            mine = rows[rows["point_id"].isin(c["lacks"])].drop_duplicates("point_id")
            named = [
                f"{p['family']}/{p['variant']} {axes_text(p, self.axes, self.names)}"
                for _, p in mine.sort_values(["family", "variant", "point_id"]).iterrows()
            ]
            shown = "; ".join(named[:LACKS_SHOWN]) + (
                f"; and {len(named) - LACKS_SHOWN} more" if len(named) > LACKS_SHOWN else ""
            )
            out.append(
                f"{label}: the reference {self.reference.label} lacks {len(named)} of the "
                f"{len(named) + c['points']} points of class {c['class']} ({shown}); they are "
                "left out of the comparison with it."
            )
        return out

    def flag_lines(self, s, ref):
        """One line for each flagged GPU (against its class, or below the
        reference), with its full UUID; one for each class below the
        reference, which names no GPU."""
        several = len(self.runs) > 1
        lines = []
        if len(ref):
            for _, c in ref[(ref["uuid"] == "") & ref["below"]].iterrows():
                lines.append(_class_line(c, self.reference.label, several))
        by_gpu = {}
        for _, g in s[s["flagged"]].iterrows() if len(s) else []:
            by_gpu[(g["file"], g["uuid"])] = [g, None]
        for _, g in ref[(ref["uuid"] != "") & ref["below"]].iterrows() if len(ref) else []:
            by_gpu.setdefault((g["file"], g["uuid"]), [None, None])[1] = g
        for g, below in by_gpu.values():
            lines.append(_flag_line(g, below, self.reference, several))
        if lines:
            self.add(Bullets(lines))
        else:
            n = len(s) if len(s) else int((ref["uuid"] != "").sum())
            self.add(
                Para(
                    f"No GPU flagged among {n} GPUs compared"
                    + (" and no class below the reference." if len(ref) else ".")
                )
            )
        self.progress(f"fleet: {len(by_gpu)} GPU(s) flagged")

    def fleet_table(self, s):
        several = len(self.runs) > 1
        self.add(
            Para(
                f"Each GPU against the median GPU of its device class, on "
                f"{' / '.join(dict.fromkeys(s['basis']))}. {fleet.RULE}"
                + (
                    " **Emulated** GPUs (replay backend, `--replay-devices`) replay times "
                    "recorded elsewhere, scaled by their speed: their figures test the chain, "
                    "they measure no GPU."
                    if s["emulated"].any()
                    else ""
                )
            ),
        )
        rows = []
        for _, g in s.iterrows():
            rows.append(
                [
                    g["class"]
                    + (" (emulated)" if g["emulated"] else "")
                    + (f", {g['file']}" if several else ""),
                    g["host"],
                    g["ranks"],
                    g["uuid"],
                    str(g["points"]),
                    f"{g['speed']:.3f}",
                    f"{g['lo']:.3f} - {g['hi']:.3f}",
                    fmt(g["sm_clock_median"], 4),
                    fmt(g["mem_clock_median"], 4),
                    g["throttle"],
                    _verdict(g),
                ]
            )
        self.add(
            Table(
                ["class", "host", "rank", "UUID", "points", "speed", "99% interval"]
                + ["SM clock MHz", "memory clock MHz", "throttle reasons", "verdict"],
                rows,
                right={4, 5, 6, 7, 8},
                classes={(i, 10): "differs" for i in range(len(s)) if s["flagged"].iloc[i]},
                caption="Per GPU: speed relative to its class's median GPU (1 = the median; "
                "0.8 = takes 1.25x its time), clocks NVML reported, throttle reasons seen.",
            )
        )

    def reference_table(self, ref):
        """Each class as a whole, then each of its GPUs, against the reference."""
        several = len(self.runs) > 1
        self.add(
            Para(
                f"Against the reference run **{self.reference.label}** "
                f"({self.reference.path}), on {' / '.join(dict.fromkeys(ref['basis']))}. "
                + fleet.REFERENCE_RULE
            )
        )
        rows = [
            [
                r["class"]
                + (" (emulated)" if r["emulated"] else "")
                + (f", {r['file']}" if several else ""),
                "the class" if not r["uuid"] else r["uuid"],
                r["reference"],
                r["host"] or "-",
                r["ranks"],
                str(r["gpus"] if not r["uuid"] else 1),
                str(r["points"]),
                f"{r['speed']:.3f}",
                f"{r['lo']:.3f} - {r['hi']:.3f}",
                _ref_verdict(r),
            ]
            for _, r in ref.iterrows()
        ]
        self.add(
            Table(
                ["class", "GPU", "matched by", "host", "rank", "GPUs", "points", "speed"]
                + ["99% interval", "verdict"],
                rows,
                right={5, 6, 7, 8},
                classes={(i, 9): "differs" for i in range(len(ref)) if ref["below"].iloc[i]},
                caption="Each class as a whole and each GPU: speed relative to the reference "
                "run's GPU of the same model (1 = as the reference; 0.85 = takes 1/0.85 its "
                "time).",
            )
        )

    def ranks(self):
        self.add(Heading(2, "Ranks, clocks and devices"))
        self.clocks_per_rank()
        self.spread_per_device()

    def clocks_per_rank(self):
        """Per rank the clocks NVML reported and the throttle reasons seen."""
        clocks = flag_ranks(rank_clocks(self.every))
        if clocks.empty:
            self.add(Para("No measured rows: clocks are recorded only when a GPU runs the points."))
            return
        self.add(
            Table(
                [
                    "file",
                    "rank",
                    "session",
                    "host",
                    "device",
                    "points",
                    "SM clock median MHz",
                    "SM clock min MHz",
                    "memory clock MHz",
                    "throttle reasons seen",
                    "flag",
                ],
                [
                    [
                        r["file"],
                        str(r["rank"]),
                        str(r["session"]),
                        r["host"],
                        r["device"],
                        str(r["points"]),
                        fmt(r["sm_clock_median"], 4),
                        fmt(r["sm_clock_min"], 4),
                        fmt(r["mem_clock_median"], 4),
                        throttle_text(r["throttle_mask"]),
                        r["flag"] or "-",
                    ]
                    for _, r in clocks.iterrows()
                ],
                right={1, 2, 5, 6, 7, 8},
                caption="Per rank: clocks read from NVML at each point. Flagged: a median SM "
                "clock more than 5% under the other ranks' on the same device type, or "
                "a slowdown reason (power cap, thermal, hardware slowdown).",
            )
        )
        self.figure(
            figures.rank_clocks(clocks),
            "rank-clocks",
            "Median SM clock per rank; the tick marks the lowest clock seen.",
        )

    def spread_per_device(self):
        """The same points on several devices: only across files."""
        pts, devs = device_spread(self.rows, self.axes)
        if devs.empty:
            self.add(
                Para(
                    "Per-device spread across files: none here. Within one file the same point "
                    "runs on several GPUs only under `placement: every_gpu` or `per_class`, or as "
                    "a calibration point (section *Fleet* compares those GPUs when it has two of "
                    "a class). Several files (`sweep-report a.h5 b.h5 -o DIR`, e.g. one run per "
                    "node or per month) show each point's spread over their devices and the "
                    "devices that are outliers."
                )
            )
            return
        self.add(
            Table(
                [
                    "device",
                    "host",
                    "UUID",
                    "files",
                    "points",
                    "speed vs median",
                    "SM clock MHz",
                    "memory clock MHz",
                    "throttle reasons",
                    "flag",
                ],
                [
                    [
                        r["device"],
                        r["host"],
                        r["uuid"],
                        r["files"],
                        str(r["points"]),
                        f"{100 * (r['ratio'] - 1):+.1f}%",
                        fmt(r["sm_clock_median"], 4),
                        fmt(r["mem_clock_median"], 4),
                        r["throttle"],
                        r["flag"] or "-",
                    ]
                    for _, r in devs.iterrows()
                ],
                right={4, 5, 6, 7},
                caption="Devices that measured the same points: median speed over those points "
                "relative to the median device (time ratio); flagged when more than 5% "
                "slower or throttled.",
            )
        )
        self.figure(
            figures.device_spread(devs),
            "device-spread",
            "Per device: speed on the shared points relative to the median device.",
        )
        top = pts.sort_values("spread", ascending=False).head(20)
        self.add(
            Table(
                ["family", "variant", "point", "devices", "min", "median", "max", "spread of time"],
                [
                    [
                        r["family"],
                        r["variant"],
                        r["axes"],
                        str(r["devices"]),
                        fmt(r["min"]),
                        fmt(r["median"]),
                        fmt(r["max"]),
                        f"{100 * r['spread']:.1f}%",
                    ]
                    for _, r in top.iterrows()
                ],
                right={3, 4, 5, 6, 7},
                caption="Points with the widest spread over devices (throughput in "
                "GB/s, GFLOP/s for matmul)",
            )
        )


def _flag_line(g, below, reference, several) -> str:
    """A flagged GPU, one line: the word, its full UUID, host, rank, and why:
    its speed against its class's median GPU (g, with its clocks and throttle
    reasons) and/or against the reference (below)."""
    who = g if g is not None else below
    why = []
    if g is not None:
        why.append(
            f"speed {g['speed']:.3f} of its class's median GPU (99% interval {g['lo']:.3f} - "
            f"{g['hi']:.3f}) over {g['points']} point(s)"
        )
    if below is not None:
        why.append(
            f"below reference {reference.label}: speed {below['speed']:.3f} of it (99% interval "
            f"{below['lo']:.3f} - {below['hi']:.3f}) over {below['points']} point(s)"
        )
    clocks = (
        f"; SM clock {fmt(g['sm_clock_median'], 4)} MHz, memory clock "
        f"{fmt(g['mem_clock_median'], 4)} MHz, throttle reasons: {g['throttle']}"
        if g is not None
        else ""
    )
    return (
        f"**flagged**: GPU `{who['uuid']}`"
        + (" (**emulated**)" if who["emulated"] else "")
        + f" of class {who['class']}"
        + (f" in {who['file']}" if several else "")
        + f", host {who['host']}, rank {who['ranks']}: "
        + "; ".join(why)
        + clocks
    )


def _class_line(c, label, several) -> str:
    """A class slow as a whole: the word, the class, its speed; no GPU named."""
    return (
        f"**flagged**: class {c['class']}"
        + (" (**emulated**)" if c["emulated"] else "")
        + (f" in {c['file']}" if several else "")
        + f" as a whole, {c['gpus']} GPU(s), below reference {label}: speed {c['speed']:.3f} "
        f"of it (99% interval {c['lo']:.3f} - {c['hi']:.3f}) over {c['points']} point(s)"
    )


def _ref_verdict(r) -> str:
    """The reference table's verdict: only a GPU below it holds "flagged"."""
    if r["below"]:
        return "flagged: below reference" if r["uuid"] else "below reference"
    if r["hi"] < 1:
        return f"slower, not surely by {fleet.THRESHOLD:.0%}"
    if r["lo"] > 1:
        return "faster"
    return "as the reference"


def _facts(every, s, ref, floor, reference) -> dict:
    """What the Summary's Fleet line says: the GPUs and classes there are,
    what was compared with what, and what was flagged."""
    gpu = every[every["backend"].isin(["cuda", "replay"]) & every["uuid"].fillna("").astype(bool)]
    classes = gpu.groupby("device_class")["uuid"].nunique().to_dict() if len(gpu) else {}
    return {
        "classes": classes,
        "gpus": int(gpu["uuid"].nunique()) if len(gpu) else 0,
        "emulated": bool((gpu["backend"] == "replay").any()) if len(gpu) else False,
        "speeds": s,
        "reference": reference.label if reference is not None else None,
        "against": ref,
        "floor": floor,
    }


def _verdict(g) -> str:
    """The fleet table's verdict; only a flagged GPU's holds the word."""
    if g["flagged"]:
        v = "flagged"
    elif g["hi"] < 1:
        v = f"slower, not surely by {fleet.THRESHOLD:.0%}"
    elif g["lo"] > 1:
        v = "faster"
    else:
        v = "as its class"
    return v + ("; throttled" if g["slowdown"] else "")
