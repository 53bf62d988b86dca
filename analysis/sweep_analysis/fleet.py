"""Which GPU of a run is slow: each GPU's speed relative to the median GPU
of its device class, on the points every GPU of the class ran (the
calibration points where the file has them), with a bootstrap interval from
the raw samples, and the flag (RULE). With a reference run (a known-good
file, REFERENCE_RULE), each GPU and each class as a whole against that
run's rows of the same GPU model, by the same interval rule: a class slow
as a whole, which its own median cannot show, is flagged too. Also the
noise floor seen where two ranks shared one GPU and so ran each point twice
on it.
Pure functions over a Run's rows (replay rows included: the report says
"emulated" for them); no plotting, no printing.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .reader import CALIBRATION, DEVICE_CLASS, EMULATES
from .stats import bootstrap_medians
from .tables import SLOWDOWN_MASK, throttle_text

THRESHOLD = 0.05  # flagged: surely slower than this under the class's median GPU
LEVEL = 0.99  # the interval's level
RESAMPLES = 1000
MIN_RESAMPLES = 200
MAX_DRAWS = 10_000_000  # rounds x GPUs x points of one class, to bound time and memory

RULE = (
    "Per point, each GPU's median time (over its raw samples) is compared with the median "
    "GPU's at that point: speed = median over GPUs of the class / this GPU's time (below 1: "
    "slower). A GPU's speed is the median of that over the points. Its "
    f"{LEVEL:.0%} interval is a bootstrap ({RESAMPLES} rounds; at least {MIN_RESAMPLES} "
    "for classes of many GPUs and points): each round redraws every row's raw samples and "
    "the points, both with replacement, and recomputes every median. "
    f"A GPU is **flagged** when the whole interval lies more than {THRESHOLD:.0%} under 1, "
    f"that is, it is surely slower than its class's median GPU by more than {THRESHOLD:.0%}: "
    "far above one GPU's noise (0.3-0.5% per point on an H200; two runs of one GPU agree "
    "to a median ratio of 1.000), and well short of a GPU at 0.8 of its class's speed. "
    "With two GPUs in a class the median is their mean, so a GPU at 0.8 of the other's "
    "speed reads 0.9 (1.125 / 1.25)."
)


REFERENCE_RULE = (
    "Against a reference run (`--fleet-reference FILE`: a known-good run of the same GPU "
    "model, e.g. the fleet check of a healthy node, or the recording an emulation replays), "
    "each GPU and each class as a whole are compared with FILE's rows of the same GPU model, "
    "matched by the device name the rows recorded (for emulated devices, the GPU they replay: "
    "`emulates`), on the points both hold (the calibration points where the run has them; "
    "the report names the run's points the reference lacks, which are left out). "
    "Per point the reference time is the median over FILE's raw samples of that point; a "
    "GPU's speed is the median over the points of reference time / its time, a class's the "
    "same with the median of its GPUs' times at each point. The "
    f"{LEVEL:.0%} interval is the same bootstrap (the reference's samples redrawn too), and "
    f"a GPU or class is flagged **below reference** when the whole interval lies more than "
    f"{THRESHOLD:.0%} under 1. Its noise floor: one H200 measured twice half a minute apart "
    "(docs/results/legacy/h200-seeds.h5 against h200-seeds-repeat.h5, 113 points) reads "
    "speed 1.0001, 99% interval 0.9998-1.0004; one H100's fleet check run twice "
    "(docs/results/h100-fleet-2.h5 against h100-fleet.h5, 19 calibration points) speed 1.0002, "
    "99% interval 0.9994-1.0017. The time model is not used: its error is larger "
    "than the threshold."
)


def _gpu_rows(rows: pd.DataFrame) -> pd.DataFrame:
    """The rows the fleet compares: ok, timed, on a GPU (measured or emulated)."""
    m = rows[
        rows["backend"].isin(["cuda", "replay"])
        & (rows["status"] == 0)
        & (rows["n_samples"] > 0)
        & rows["uuid"].fillna("").astype(bool)
    ]
    return m


def fleet_rows(rows: pd.DataFrame) -> tuple:
    """(rows, basis) of one file: its calibration rows when it has any, else
    every GPU row; basis says which, for the report."""
    m = _gpu_rows(rows)
    cal = m[m[CALIBRATION] == 1]
    if len(cal):
        return cal, "calibration points"
    return m, "the points the GPUs of a class share"


def speeds(rows: pd.DataFrame, samples_of, resamples=RESAMPLES, level=LEVEL, seed=0):
    """Per GPU (UUID) of a class with at least two GPUs: its speed relative to
    the class's median GPU over the points of the class that two or more of
    its GPUs ran, the interval and the flag. rows: one file's fleet rows
    (fleet_rows); samples_of(row) -> its raw samples. Returns a DataFrame
    sorted by class and speed (empty when no class has two GPUs)."""
    out = []
    rng = np.random.default_rng(seed)
    for cls, c in rows.groupby(DEVICE_CLASS, sort=True):
        per_pt = c.groupby("point_id")["uuid"].nunique()
        c = c[c["point_id"].isin(per_pt[per_pt > 1].index)]
        uuids = sorted(c["uuid"].unique())
        if len(uuids) < 2:
            continue
        points = sorted(c["point_id"].unique())
        gi = {u: i for i, u in enumerate(uuids)}
        pi = {p: i for i, p in enumerate(points)}
        pooled = {}
        for _, r in c.iterrows():
            pooled.setdefault((gi[r["uuid"]], pi[r["point_id"]]), []).append(samples_of(r))
        keys = [k for k, v in pooled.items() if sum(map(len, v))]
        if not keys:
            continue
        cells = [np.concatenate(pooled[k]) for k in keys]
        # a big fleet without calibration points (every point, every GPU) takes fewer rounds
        b = int(np.clip(MAX_DRAWS // (len(uuids) * len(points)), MIN_RESAMPLES, resamples))
        boot = bootstrap_medians(cells, b, rng)
        t = np.full((len(uuids), len(points)), np.nan)
        tb = np.full((b, len(uuids), len(points)), np.nan)
        for i, (g, p) in enumerate(keys):
            t[g, p], tb[:, g, p] = np.median(cells[i]), boot[:, i]
        speed = np.nanmedian(np.nanmedian(t, axis=0) / t, axis=1)
        # each round: every cell's samples redrawn (tb), then the points redrawn
        rb = np.nanmedian(tb, axis=1)[:, None, :] / tb
        draw = rng.integers(0, len(points), (b, len(points)))
        rb = np.take_along_axis(rb, draw[:, None, :].repeat(len(uuids), axis=1), axis=2)
        with np.errstate(all="ignore"):
            sb = np.nanmedian(rb, axis=2)
        tail = (1 - level) / 2 * 100
        lo, hi = np.nanpercentile(sb, [tail, 100 - tail], axis=0)
        for u, g in c.groupby("uuid"):
            i = gi[u]
            clk = g["sm_clock_mhz"][g["sm_clock_mhz"] > 0]
            mem = g["mem_clock_mhz"][g["mem_clock_mhz"] > 0]
            mask = int(np.bitwise_or.reduce(g["throttle_reasons"].astype(np.uint64).to_numpy()))
            out.append(
                {
                    "class": cls,
                    "uuid": u,
                    "host": g["host"].iloc[0],
                    "ranks": ",".join(str(k) for k in sorted(g["rank"].unique())),
                    "device": g["device"].iloc[0],
                    "emulated": bool((g["backend"] == "replay").any()),
                    "gpus": len(uuids),
                    "points": int(np.isfinite(t[i]).sum()),
                    "speed": float(speed[i]),
                    "lo": float(lo[i]),
                    "hi": float(hi[i]),
                    "flagged": bool(hi[i] < 1 - THRESHOLD),
                    "sm_clock_median": float(clk.median()) if len(clk) else np.nan,
                    "mem_clock_median": float(mem.median()) if len(mem) else np.nan,
                    "throttle": throttle_text(mask),
                    "slowdown": bool(mask & SLOWDOWN_MASK),
                }
            )
    if not out:
        return pd.DataFrame()
    return pd.DataFrame(out).sort_values(["class", "speed"], kind="stable").reset_index(drop=True)


def repeats(rows: pd.DataFrame) -> pd.DataFrame:
    """GPUs that two or more ranks shared (--share-gpu): each point ran once
    per rank on the same GPU, and the ratio of the two ranks' median times is
    the noise floor of the fleet figure. Per UUID: ranks, points compared, the
    median ratio (later rank over the first) and the 95th percentile of
    |ratio - 1|. Empty when no GPU was shared."""
    out = []
    for u, g in rows.groupby("uuid"):
        ranks = sorted(g["rank"].unique())
        if len(ranks) < 2:
            continue
        t = g.pivot_table(index="point_id", columns="rank", values="median_ns", aggfunc="median")
        ratio = (t[ranks[1:]].div(t[ranks[0]], axis=0)).stack().dropna()
        if ratio.empty:
            continue
        out.append(
            {
                "uuid": u,
                "ranks": ",".join(map(str, ranks)),
                "points": int(t.dropna().shape[0]),
                "median": float(ratio.median()),
                "p95": float(np.percentile(np.abs(ratio - 1), 95)),
                "emulated": bool((g["backend"] == "replay").any()),
            }
        )
    return pd.DataFrame(out)


def reference_keys(rows: pd.DataFrame) -> np.ndarray:
    """The GPU model each row ran on, as a reference run is matched: the
    recorded device name, or for an emulated device the GPU it replays
    (`emulates`, where the file records it)."""
    name = rows["device_name"].fillna("").astype(str).to_numpy()
    if EMULATES not in rows:
        return name
    em = rows[EMULATES].fillna("").astype(str).to_numpy()
    return np.where((rows["backend"] == "replay").to_numpy() & (em != ""), em, name)


def reference_speeds(rows, samples_of, ref, ref_samples_of, resamples=RESAMPLES, seed=0):
    """Per class of rows (fleet_rows) whose GPU model the reference rows ref
    (fleet_rows of the reference file) hold: a row for the class as a whole
    (uuid "") and one per GPU, each with its speed against the reference, the
    interval and `below` (REFERENCE_RULE), on the points both hold; `lacks`:
    the class's points the reference has no row of (point ids, sorted), left
    out. Empty when no class matches."""
    out = []
    rng = np.random.default_rng(seed)
    ref_key = reference_keys(ref)
    for cls, c in rows.groupby(DEVICE_CLASS, sort=True):
        keys = set(reference_keys(c))
        r = ref[np.isin(ref_key, list(keys))]
        points = sorted(set(c["point_id"]) & set(r["point_id"]))
        if not points:
            continue
        lacks = tuple(sorted(set(c["point_id"]) - set(points)))
        # the reference's other points (a seeds file holds many) compare with nothing
        r = r[r["point_id"].isin(points)]
        c = c[c["point_id"].isin(points)]
        uuids = sorted(c["uuid"].unique())
        speed, lo, hi = _against(c, r, uuids, points, samples_of, ref_samples_of, resamples, rng)
        for i, u in enumerate([""] + uuids):
            g = c if not u else c[c["uuid"] == u]
            out.append(
                {
                    "class": cls,
                    "uuid": u,
                    "reference": ", ".join(sorted(keys)),
                    "host": "" if not u else g["host"].iloc[0],
                    "ranks": ",".join(str(k) for k in sorted(g["rank"].unique())),
                    "emulated": bool((g["backend"] == "replay").any()),
                    "gpus": len(uuids),
                    "points": int(g["point_id"].nunique()),
                    "speed": float(speed[i]),
                    "lo": float(lo[i]),
                    "hi": float(hi[i]),
                    "below": bool(hi[i] < 1 - THRESHOLD),
                    "lacks": lacks,
                }
            )
    return pd.DataFrame(out)


def _cells(rows, key, samples_of) -> dict:
    """key(row) -> its rows' raw samples, pooled."""
    pooled = {}
    for _, r in rows.iterrows():
        pooled.setdefault(key(r), []).append(samples_of(r))
    return {k: np.concatenate(v) for k, v in pooled.items() if sum(map(len, v))}


def _against(c, r, uuids, points, samples_of, ref_samples_of, resamples, rng):
    """(speed, lo, hi) arrays: the class as a whole first, then each GPU,
    against the reference rows r, on these points."""
    gi, pi = {u: i for i, u in enumerate(uuids)}, {p: i for i, p in enumerate(points)}
    mine = _cells(c, lambda x: (gi[x["uuid"]], pi[x["point_id"]]), samples_of)
    theirs = _cells(r, lambda x: pi[x["point_id"]], ref_samples_of)
    keys = list(mine)
    b = int(np.clip(MAX_DRAWS // (len(uuids) * len(points)), MIN_RESAMPLES, resamples))
    boot = bootstrap_medians([mine[k] for k in keys] + list(theirs.values()), b, rng)
    t = np.full((len(uuids), len(points)), np.nan)
    tb = np.full((b, len(uuids), len(points)), np.nan)
    for i, (g, p) in enumerate(keys):
        t[g, p], tb[:, g, p] = np.median(mine[(g, p)]), boot[:, i]
    ref, refb = np.full(len(points), np.nan), np.full((b, len(points)), np.nan)
    for i, p in enumerate(theirs):
        ref[p], refb[:, p] = np.median(theirs[p]), boot[:, len(keys) + i]
    with np.errstate(all="ignore"):
        # per point: the class's time (the median over its GPUs), then each GPU's
        ratio = np.vstack([ref / np.nanmedian(t, axis=0), ref / t])
        rb = np.concatenate([(refb / np.nanmedian(tb, axis=1))[:, None, :], refb[:, None] / tb], 1)
        draw = rng.integers(0, len(points), (b, len(points)))
        rb = np.take_along_axis(rb, draw[:, None, :].repeat(rb.shape[1], axis=1), axis=2)
        speed = np.nanmedian(ratio, axis=1)
        tail = (1 - LEVEL) / 2 * 100
        lo, hi = np.nanpercentile(np.nanmedian(rb, axis=2), [tail, 100 - tail], axis=0)
    return speed, lo, hi


def fleet_facts_none() -> dict:
    """The Summary's facts of the fleet before it is compared (report_fleet._facts)."""
    return {
        "classes": {},
        "gpus": 0,
        "emulated": False,
        "speeds": pd.DataFrame(),
        "reference": None,
        "against": pd.DataFrame(),
        "floor": pd.DataFrame(),
    }
