"""The model's figures against the hardware counters of the same rows
(`sweep --counters`): per measured row with counters, global-load sectors per
request and requests, shared-load wavefronts (the bank-conflict degree) per
request and requests, each as the model predicts it for the measuring GPU's
compute capability and as the counters saw it, and the largest relative
difference among the figures both have.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

TOLERANCE = 0.02  # issue 4: agreement within 2%, or an explained difference

COUNTER_COLUMNS = (
    "counter_note",
    "ctr_ld_requests",
    "ctr_ld_sectors",
    "ctr_shared_ld_requests",
    "ctr_shared_ld_wavefronts",
)


def has_counters(rows: pd.DataFrame) -> bool:
    """Whether any row of the file carries counters."""
    return "counter_note" in rows.columns and (rows["counter_note"] == "ok").any()


def unavailable(rows: pd.DataFrame) -> pd.Series:
    """Why counters are missing, with the number of rows each reason covers."""
    if "counter_note" not in rows.columns:
        return pd.Series(dtype=int)
    notes = rows["counter_note"][(rows["counter_note"] != "ok") & (rows["counter_note"] != "")]
    return notes.value_counts()


def _per(a, b):
    """a / b where b is a positive count, else NaN."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(b > 0, a / b, np.nan)


def _rel(model, counter):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.abs(model - counter) / counter


def agreement(rows: pd.DataFrame) -> pd.DataFrame:
    """One row per measured row with counters: the figures side by side.

    A kind of request the variant's model leaves out (model count 0 or NaN)
    has no model figure (NaN). `worst` is the largest relative difference
    over the figures both sides have, NaN when there is none; `agrees` is
    worst <= TOLERANCE (False where nothing was compared)."""
    r = rows[(rows["backend"] == "cuda") & (rows["counter_note"] == "ok")].copy()
    m_ld = r["model_ld_requests"].where(r["model_ld_requests"] > 0)
    m_sh = r["model_shared_ld_requests"].where(r["model_shared_ld_requests"] > 0)
    out = pd.DataFrame(
        {
            "model_ld_sectors_per_request": _per(r["model_ld_transactions"], m_ld),
            "ctr_ld_sectors_per_request": _per(r["ctr_ld_sectors"], r["ctr_ld_requests"]),
            "ld_requests_ratio": _per(m_ld, r["ctr_ld_requests"]),
            "model_shared_wavefronts_per_request": _per(r["model_shared_ld_wavefronts"], m_sh),
            "ctr_shared_wavefronts_per_request": _per(
                r["ctr_shared_ld_wavefronts"], r["ctr_shared_ld_requests"]
            ),
            "shared_requests_ratio": _per(m_sh, r["ctr_shared_ld_requests"]),
        },
        index=r.index,
    )
    diffs = np.column_stack(
        [
            _rel(out["model_ld_sectors_per_request"], out["ctr_ld_sectors_per_request"]),
            np.abs(out["ld_requests_ratio"] - 1),
            _rel(
                out["model_shared_wavefronts_per_request"], out["ctr_shared_wavefronts_per_request"]
            ),
            np.abs(out["shared_requests_ratio"] - 1),
        ]
    )
    with np.errstate(all="ignore"):
        worst = np.where(
            np.isnan(diffs).all(axis=1),
            np.nan,
            np.nanmax(np.where(np.isnan(diffs), -1, diffs), axis=1),
        )
    out["worst"] = worst
    out["agrees"] = out["worst"] <= TOLERANCE
    return pd.concat([r, out], axis=1)
