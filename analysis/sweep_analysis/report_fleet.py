"""The report's sections on the GPUs: the fleet (which GPU is slow,
fleet.py), the device classes of a run side by side, and the clocks per
rank with the per-device spread across files."""

from __future__ import annotations

import numpy as np
import pandas as pd

from . import figures, fleet
from .doc import Bullets, Heading, Para, Table
from .reader import DEVICE_CLASS
from .tables import (
    axes_text,
    device_spread,
    flag_ranks,
    fmt,
    metric,
    rank_clocks,
    reference_ratios,
    throttle_text,
    variant_order,
)


class FleetSections:
    """The fleet, the classes and the ranks (a mixin of report.Report)."""

    def fleet(self):
        """Which GPU is slow: each GPU against its class's median GPU (fleet.RULE),
        and the noise floor where two ranks shared a GPU."""
        found, notes, floors = [], [], []
        for r in self.runs:
            rows, basis = fleet.fleet_rows(self.every[self.every["file"] == r.label])
            floors.append(fleet.repeats(rows).assign(file=r.label))
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
        if not found and floor.empty:
            if notes:
                self.add(Para("**Fleet.** " + " ".join(notes)))
            return
        self.add(Heading(2, "Fleet: which GPU is slow"))
        if notes:
            self.add(Para(" ".join(notes)))
        if found:
            self.fleet_table(pd.concat(found, ignore_index=True))
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
        flagged = s[s["flagged"]]
        if len(flagged):
            self.add(Bullets([_flag_line(g, several) for _, g in flagged.iterrows()]))
            self.fleet_line = f"{len(flagged)} of {len(s)} GPUs flagged: " + ", ".join(
                f"`{g['uuid']}` ({g['host']}, speed {g['speed']:.3f})"
                for _, g in flagged.iterrows()
            )
        else:
            self.add(Para(f"No GPU flagged among {len(s)} GPUs compared."))
            self.fleet_line = f"none flagged among {len(s)} GPUs compared"
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
        self.progress(f"fleet: {len(s)} GPU(s), {len(flagged)} flagged")

    def classes(self):
        """Per family the device classes side by side: figures, ratios to each
        class's own reference rows, the model's bound for each class's CC."""
        rows = self.classes_rows
        rows = rows[rows["backend"].isin(["cuda", "replay"]) & (rows["status"] == 0)]
        per_file = rows.groupby("file")[DEVICE_CLASS].nunique()
        if not (per_file > 1).any():
            return
        rows = rows[rows["file"].isin(per_file[per_file > 1].index)]
        self.add(Heading(2, "Classes: how the architectures differ"))
        legend = []
        for (f, cls), g in rows.groupby(["file", DEVICE_CLASS], sort=False):
            n = g["uuid"].nunique()
            legend.append(
                f"**{cls}**: {g['device'].iloc[0]}, {n} GPU(s)"
                + (f", {f}" if len(per_file) > 1 else "")
            )
        self.add(
            Para(
                "The same points on each device class of the run: each class's throughput, "
                "its ratio to the family's reference variant measured on that class at the same "
                "sizes (x ref), and the model's bound for that class's CC (useful work over "
                "`model_time_bound_ns`: the moved bytes the model predicts for the CC at the "
                "GPU's theoretical peak) beside what was measured there (% of bound). A class "
                "that ran a point on several GPUs shows its median GPU's row. Emulated classes "
                "replay recorded times scaled by their speed: they test the chain and measure "
                "no GPU."
            ),
            Bullets(legend),
        )
        for _, fr in rows.groupby("file", sort=False):
            self.classes_of_file(fr)

    def classes_of_file(self, rows):
        classes = list(dict.fromkeys(rows.sort_values(DEVICE_CLASS)[DEVICE_CLASS]))
        summary = []
        for fam in dict.fromkeys(rows["family"]):
            f = rows[rows["family"] == fam].copy()
            col, units = metric(f)
            ratios = reference_ratios(f, self.axes, col)
            ref = ratios.columns[0] if len(ratios.columns) else None
            f["x_ref"] = ratios[ref] if ref else np.nan
            f["bound"] = f[col] * f["median_ns"] / f["model_time_bound_ns"]
            f["of_bound"] = f[col] / f["bound"]
            f["point"] = [axes_text(r, self.axes, self.names) for _, r in f.iterrows()]
            shared = f.groupby(["variant", "point"])[DEVICE_CLASS].transform("nunique") > 1
            f = f[shared]
            if f.empty:
                continue
            detail = []
            for (v, pt), g in f.sort_values("plan_index").groupby(["variant", "point"], sort=False):
                by = {r[DEVICE_CLASS]: r for _, r in g.iterrows()}
                cells = [v, pt]
                for c in classes:
                    r = by.get(c)
                    cells += (
                        [fmt(r[col]), fmt(r["x_ref"], 3), fmt(r["bound"]), _pct(r["of_bound"])]
                        if r is not None
                        else ["-"] * 4
                    )
                detail.append(cells)
            for v in variant_order(f):
                fv = f[f["variant"] == v]
                cells = [fam, v]
                for c in classes:
                    g = fv[fv[DEVICE_CLASS] == c]
                    cells += [fmt(g["x_ref"].median(), 3), _pct(g["of_bound"].median())]
                summary.append(cells)
            heads = [
                h
                for c in classes
                for h in (f"{c} {units}", f"{c} x {ref or 'ref'}", f"{c} model", f"{c} % of model")
            ]
            self.add(
                Table(
                    ["variant", "point", *heads],
                    detail,
                    right=set(range(2, 2 + len(heads))),
                    caption=f"{fam} per class: {units}, ratio to {ref or 'no reference'} on the "
                    f"same class, the model's bound ({units}) for the class's CC and the "
                    "measured share of it",
                    folded=len(detail) > 12,
                )
            )
        if summary:
            self.add(
                Table(
                    ["family", "variant"]
                    + [h for c in classes for h in (f"{c} x ref", f"{c} % of model")],
                    summary,
                    right=set(range(2, 2 + 2 * len(classes))),
                    caption="Per variant, the median over the points all classes ran: ratio to "
                    "the family's reference on the same class, and the measured share of the "
                    "model's bound for the class's CC",
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


def _flag_line(g, several) -> str:
    """A flagged GPU, one line: the word, its full UUID, host, rank, clocks, throttle reasons."""
    return (
        f"**flagged**: GPU `{g['uuid']}`"
        + (" (**emulated**)" if g["emulated"] else "")
        + f" of class {g['class']}"
        + (f" in {g['file']}" if several else "")
        + f", host {g['host']}, rank {g['ranks']}: speed {g['speed']:.3f} of its class's "
        f"median GPU (99% interval {g['lo']:.3f} - {g['hi']:.3f}) over {g['points']} point(s); "
        f"SM clock {fmt(g['sm_clock_median'], 4)} MHz, memory clock "
        f"{fmt(g['mem_clock_median'], 4)} MHz, throttle reasons: {g['throttle']}"
    )


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


def _pct(v) -> str:
    return f"{100 * v:.0f}%" if v is not None and np.isfinite(v) else "-"
