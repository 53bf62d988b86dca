"""Where model and hardware part (docs/model.md): the measured points whose
efficiency relative to their own variant's best-aligned row differs from the
model's by more than GAP, beyond the interval the raw samples allow. The model
predicts transactions and useful/moved bytes, not time, so a flag says the
hardware pays (or saves) something the model does not count. Model rows and
rows without samples are never flagged.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .stats import median_ratio_ci
from .tables import used_axes

GAP = 0.10  # relative difference of measured and modelled efficiency that flags a point
LEVEL = 0.99
RESAMPLES = 400  # enough for a 99% interval of a ratio of medians; keeps a full file in seconds

RULE = (
    "A measured point parts from the model when its efficiency relative to its own "
    "variant's best-aligned row (the fastest row of the same variant, file, device and "
    "reference sizes among those the model rates most efficient) differs from the modelled "
    f"relative efficiency (model useful/moved bytes over that row's) by more than "
    f"{GAP:.0%}, and the {LEVEL:.0%} bootstrap interval of the measured one, from the raw "
    f"samples of both rows, lies wholly beyond that {GAP:.0%}. Variants whose model "
    "efficiency is the same at every point are not compared."
)


def samples_of(samples, r):
    """The raw samples of row r (a Series with file, sample_offset, n_samples)."""
    s = samples.get(r["file"])
    o, n = int(r.get("sample_offset", 0)), int(r.get("n_samples", 0))
    if s is None or n <= 0 or o + n > len(s):
        return np.empty(0)
    return s[o : o + n]


def _group_keys(rows, axes):
    """The sizes a family's references use (n for offset_read); none without references."""
    refs = rows[rows["is_reference"] == 1]
    return used_axes(refs, axes) if len(refs) else []


def _compare(g, samples):
    """Rows of one group (variant at one size): measured and modelled relative
    efficiency, the interval of the measured one, and the flag."""
    top = g[g["model_efficiency"] >= g["model_efficiency"].max() * (1 - 1e-9)]
    base = top.loc[top["gbps"].idxmax()]
    out = pd.DataFrame(index=g.index)
    out["base_index"] = base.name
    out["measured_rel"] = g["gbps"] / base["gbps"]
    out["model_rel"] = g["model_efficiency"] / base["model_efficiency"]
    q = out["measured_rel"] / out["model_rel"]
    out["lo"], out["hi"] = np.nan, np.nan
    out["flag"] = ""
    xb = samples_of(samples, base)
    for i in g.index[(np.abs(q - 1) > GAP) & (g.index != base.name)]:
        x = samples_of(samples, g.loc[i])
        if len(x) < 2 or len(xb) < 2:
            continue
        # median(base time) / median(row time), times the ratio of useful bytes
        lo, hi = median_ratio_ci(x, xb, level=LEVEL, resamples=RESAMPLES)
        scale = g.at[i, "useful_bytes"] / base["useful_bytes"] / out.at[i, "model_rel"]
        out.loc[i, ["lo", "hi"]] = lo * scale, hi * scale
        if hi * scale < 1 - GAP:
            out.at[i, "flag"] = "slower than modelled"
        elif lo * scale > 1 + GAP:
            out.at[i, "flag"] = "faster than modelled"
    return out


def find(rows: pd.DataFrame, axes, samples: dict) -> pd.DataFrame:
    """Every compared measured row with the columns of _compare (lo, hi:
    the interval of measured over modelled relative efficiency; flag: '' or
    which way it parts). samples: file label -> that file's /samples."""
    m = rows[
        (rows["backend"] == "cuda")
        & (rows["status"] == 0)
        & (rows["is_reference"] == 0)
        & (rows["model_efficiency"] > 0)
        & (rows["gbps"] > 0)
    ]
    parts = []
    for _, fam in m.groupby(["file", "device", "family"], sort=False):
        keys = ["variant", *_group_keys(rows[rows["family"] == fam["family"].iloc[0]], axes)]
        for _, g in fam.groupby(keys, sort=False):
            if g["model_efficiency"].nunique() >= 2:
                parts.append(_compare(g, samples))
    if not parts:
        return pd.DataFrame(columns=["base_index", "measured_rel", "model_rel", "lo", "hi", "flag"])
    return pd.concat(parts)
