"""Leave one family out of a calibration file: the time model's out-of-sample
figures (docs/results/time-model.md, "Out of sample") calibrate on a copy of
a fleet check without one family's points and predict that family's points
of a full run. `sweep --model-calibrate` reads only /measurements and
/devices (src/h5/h5measured.c); the copy drops the family's /measurements
rows and keeps everything else as it was, as a run stopped before those
points would have left it (its /plan still lists them, unmeasured). Writes
only the new file; never touches the source.
"""

from __future__ import annotations

import os
import shutil

import h5py
import numpy as np


def families(path: str) -> list:
    """The families with a row in path's /measurements, sorted."""
    with h5py.File(path, "r") as f:
        fam = f["measurements"]["family"]
    return sorted({v.decode("utf-8", "replace") for v in np.unique(fam)})


def without_family(src: str, dst: str, family: str) -> int:
    """Copies src to dst less family's /measurements rows; returns how many
    rows it dropped (0 when src has none: dst is then src's copy). dst must
    not exist: an existing file is left as it is (FileExistsError)."""
    with open(dst, "xb"):
        pass
    try:
        shutil.copyfile(src, dst)
        with h5py.File(dst, "r+") as f:
            old = f["measurements"]
            rows = old[:]
            attrs = dict(old.attrs)
            keep = rows[rows["family"] != family.encode()]
            dropped = len(rows) - len(keep)
            if dropped:
                del f["measurements"]
                new = f.create_dataset("measurements", data=keep, maxshape=(None,), chunks=True)
                for k, v in attrs.items():
                    new.attrs[k] = v
    except BaseException:
        os.remove(dst)
        raise
    return dropped
